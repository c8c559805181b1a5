import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("User schemas: login field as primary key, passwords hashed and never returned")
struct UserSchemaTests {
    @Test("a password never appears in any response, and is stored only as a PBKDF2 hash", .sqliteFiles)
    func passwordNeverReturned() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await TestServer.run(configuration: configuration) { client in
                let secret = "s3cret-Passw0rd"
                var bodies: [String] = []
                let created = try await client.post("/user", ["username": "ann", "password": .string(secret), "age": 30])
                #expect(created.status == .created)
                #expect(created.object?["username"] == "ann")
                #expect(created.object?["password"] == nil)
                bodies.append(created.text)
                bodies.append(try await client.get("/user/ann").text)
                bodies.append(try await client.get("/user").text)
                // Only the private key changes a password by saving the user (docs/guide.md,
                // "Users and login").
                let updated = try await client.oauth1(.put, "/user/ann", shape: .java, json: ["password": "another-Secret", "age": 31])
                #expect(updated.status == .ok)
                bodies.append(updated.text)
                bodies.append(try await client.post("/user", [["username": "bob", "password": .string(secret)]]).text)
                bodies.append(try await client.post("/user", ["username": "ann", "password": .string(secret)]).text)
                for body in bodies {
                    #expect(!body.contains(secret))
                    #expect(!body.contains("another-Secret"))
                    #expect(!body.contains("password"))
                    #expect(!body.contains("pbkdf2"))
                }
            }
            // On disk: a salted hash, never the plaintext.
            let database = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/development.sqlite"))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/development.sqlite-wal"))) ?? Data()
            let everything = database + wal
            #expect(everything.range(of: Data("s3cret-Passw0rd".utf8)) == nil)
            #expect(everything.range(of: Data("pbkdf2-sha256$1000$".utf8)) != nil)
        }
    }

    @Test("a user needs its login field: it is the primary key")
    func loginRequired() async throws {
        try await TestServer.run { client in
            let response = try await client.post("/user", ["password": "x"])
            #expect(response.status == .badRequest)
            #expect(response.error == "username is required")
            let duplicate = try await client.post("/user", ["username": "ann"])
            #expect(duplicate.status == .created)
            #expect(try await client.post("/user", ["username": "ann"]).error == #"Duplicate key for schema user: "ann""#)
        }
    }

    @Test("a user schema with its own login and password fields")
    func customUserSchema() async throws {
        try await TestServer.run(configure: {
            $0.development.userSchemas = [UserSchema(), UserSchema(name: "member", loginField: "name", passwordField: "pass")]
        }) { client in
            let response = try await client.post("/member", ["name": "zoe", "pass": "pw", "email": "z@example.com"])
            #expect(response.status == .created)
            #expect(response.object?["name"] == "zoe")
            #expect(response.object?["pass"] == nil)
            #expect(response.object?["member_id"] == nil)
            #expect(try await client.get("/member/zoe").object?["email"] == "z@example.com")
            #expect(try await client.put("/member/zoe", ["name": "other"]).error == "unable to update primary key")
            // A password must be a string.
            #expect(try await client.post("/member", ["name": "x", "pass": 5]).error == "pass is an incompatible type, please check your schema")
        }
    }

    @Test("the default PBKDF2 round count is the OWASP floor, and hashes verify")
    func hasher() async throws {
        #expect(PasswordHasher.defaultRounds >= 210_000)
        let hasher = PasswordHasher(rounds: 1_000)
        let hash = try await hasher.hash("pw")
        #expect(hash.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(try await hash != hasher.hash("pw"))
        #expect(await hasher.verify("pw", against: hash))
        #expect(await !hasher.verify("pW", against: hash))
        #expect(await !hasher.verify("pw", against: "garbage"))
    }
}
