import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The query language over HTTP (PROTOCOL §5), on one seeded schema.
@Suite("Queries: operators, OR groups, ordering, ranges, select, delete by query")
struct QueryTests {
    /// Five items covering every field type, with gaps (no price on i4, no note on most).
    static func seed(_ client: StackMobClient) async throws {
        let items: [JSONObject] = [
            ["item_id": "i1", "name": "apple", "price": 1.5, "qty": 10, "active": true, "tags": ["red", "fruit"], "note": ""],
            ["item_id": "i2", "name": "banana", "price": 0.25, "qty": 5, "active": false, "tags": ["yellow", "fruit"]],
            ["item_id": "i3", "name": "cherry", "price": 3, "qty": 0, "active": true, "tags": ["red"], "note": "x"],
            ["item_id": "i4", "name": "date", "qty": 7, "active": false, "tags": []],
            ["item_id": "i5", "name": "elder", "price": 10, "qty": 1, "active": true],
        ]
        for item in items { _ = try await client.create("item", item) }
    }

    static func ids(_ response: APIResponse) -> [String] {
        (response.array ?? []).compactMap { $0.objectValue?["item_id"]?.stringValue }
    }

    @Test("filters select exactly the matching objects", arguments: [
        ("name=apple", ["i1"]),
        ("name[ne]=apple", ["i2", "i3", "i4", "i5"]),
        ("name[lt]=c", ["i1", "i2"]),
        ("name[lte]=cherry", ["i1", "i2", "i3"]),
        ("name[gt]=cherry", ["i4", "i5"]),
        ("name[gte]=date", ["i4", "i5"]),
        ("price[gte]=1.5", ["i1", "i3", "i5"]),
        ("price[lt]=1", ["i2"]),
        ("price[lt]=1e0", ["i2"]),
        ("price[lte]=7.5E-1", ["i2"]),
        ("price=3", ["i3"]),
        ("price[in]=0.25,10", ["i2", "i5"]),
        ("qty[gt]=4", ["i1", "i2", "i4"]),
        ("qty[lte]=1", ["i3", "i5"]),
        ("qty[lt]=0.5", ["i3"]),
        ("qty[in]=0,1", ["i3", "i5"]),
        ("qty[nin]=0,1", ["i1", "i2", "i4"]),
        ("qty%5Bgt%5D=4", ["i1", "i2", "i4"]),
        ("name%5Bin%5D=apple%2Cdate", ["i1", "i4"]),
        ("price[null]=true", ["i4"]),
        ("price[null]=false", ["i1", "i2", "i3", "i5"]),
        ("active=true", ["i1", "i3", "i5"]),
        ("active=1", ["i1", "i3", "i5"]),
        ("active=0", ["i2", "i4"]),
        ("active[ne]=true", ["i2", "i4"]),
        ("tags=red", ["i1", "i3"]),
        ("tags[in]=yellow,blue", ["i2"]),
        ("tags[ne]=fruit", ["i3", "i4", "i5"]),
        ("tags[null]=true", ["i5"]),
        ("note[empty]=true", ["i1"]),
        ("note[empty]=false", ["i3"]),
        ("item_id[in]=i1,i2", ["i1", "i2"]),
        ("item_id=i9", []),
        ("qty[gt]=0&active=true", ["i1", "i5"]),
        ("[or1].name=apple&[or1].name=banana", ["i1", "i2"]),
        ("qty[gt]=0&[or1].[and1].active=true&[or1].[and1].price[gt]=2&[or1].name=banana", ["i2", "i5"]),
        ("[or1].name=apple&[or1].name=cherry&[or2].qty=10&[or2].qty=0", ["i1", "i3"]),
        ("[or1].[and1].name=apple&[or1].[and1].qty=10&[or1].[and2].name=date&[or1].[and2].qty=7&[or1].name=elder", ["i1", "i4", "i5"]),
        ("%5Bor1%5D.name=apple&%5Bor1%5D.name=elder", ["i1", "i5"]),
        ("_expand=2&name=apple", ["i1"]),
    ])
    func filter(query: String, expected: [String]) async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get("/item?\(query)", headers: ["X-StackMob-OrderBy": "item_id:asc"])
            #expect(response.status == .ok, "\(response.text)")
            #expect(Self.ids(response) == expected)
        }
    }

    @Test("createddate and lastmoddate are queryable as integers")
    func timestamps() async throws {
        let clock = ManualClock(1_000)
        try await TestServer.run(clock: clock) { client in
            _ = try await client.create("item", ["item_id": "old"])
            clock.advance(by: 500)
            _ = try await client.create("item", ["item_id": "new"])
            #expect(Self.ids(try await client.get("/item?createddate[gt]=1200")) == ["new"])
            #expect(Self.ids(try await client.get("/item?lastmoddate[lte]=1000")) == ["old"])
        }
    }

    @Test("X-StackMob-OrderBy sorts by several keys; without it, newest first")
    func ordering() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            #expect(Self.ids(try await client.get("/item", headers: ["X-StackMob-OrderBy": "price:desc"])) == ["i5", "i3", "i1", "i2", "i4"])
            #expect(Self.ids(try await client.get("/item", headers: ["X-StackMob-OrderBy": "active:desc,name:asc"])) == ["i1", "i3", "i5", "i2", "i4"])
            #expect(Self.ids(try await client.get("/item", headers: ["X-StackMob-OrderBy": "qty"])) == ["i3", "i5", "i2", "i4", "i1"])
        }
    }

    @Test("Range windows: 206 with Content-Range for a strict subset, 200 otherwise", arguments: [
        ("objects=0-1", 206, ["i1", "i2"], "objects 0-1/5"),
        ("objects=2-3", 206, ["i3", "i4"], "objects 2-3/5"),
        ("objects=3-4", 206, ["i4", "i5"], "objects 3-4/5"),
        ("objects=3-", 206, ["i4", "i5"], "objects 3-4/5"),
        ("objects=0-", 200, ["i1", "i2", "i3", "i4", "i5"], "objects 0-4/5"),
        ("objects=0-9", 200, ["i1", "i2", "i3", "i4", "i5"], "objects 0-4/5"),
        ("objects=4-9", 206, ["i5"], "objects 4-4/5"),
        ("objects=5-9", 200, [], nil),
        ("objects=0-0", 206, ["i1"], "objects 0-0/5"),
    ] as [(String, Int, [String], String?)])
    func ranges(range: String, status: Int, expected: [String], contentRange: String?) async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get("/item", headers: ["Range": range, "X-StackMob-OrderBy": "name:asc"])
            #expect(response.status.code == status)
            #expect(Self.ids(response) == expected)
            #expect(response.header("Content-Range") == contentRange)
        }
    }

    @Test("counts through Range: objects=0-0, for totals of 0, 1 and many")
    func counts() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let many = try await client.get("/item?qty[gt]=0", headers: ["Range": "objects=0-0"])
            #expect(many.status == .partialContent)
            #expect(many.header("Content-Range") == "objects 0-0/4")
            let one = try await client.get("/item?name=apple", headers: ["Range": "objects=0-0"])
            #expect(one.status == .ok)
            #expect(Self.ids(one) == ["i1"])
            let none = try await client.get("/item?name=zzz", headers: ["Range": "objects=0-0"])
            #expect(none.status == .ok)
            #expect(none.text == "[]")
            // HEAD answers the status the GET would.
            let head = try await client.head("/item?qty[gt]=0", headers: ["Range": "objects=0-0"])
            #expect(head.status == .partialContent)
            #expect(head.header("Content-Range") == "objects 0-0/4")
            #expect(head.body.isEmpty)
        }
    }

    @Test("X-StackMob-Select returns the chosen fields and always the primary key, never a password")
    func select() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get("/item?item_id=i1", headers: ["X-StackMob-Select": "name,qty"])
            #expect(response.array == [["item_id": "i1", "name": "apple", "qty": 10]])
            _ = try await client.create("user", ["username": "ann", "password": "pw"])
            let users = try await client.get("/user", headers: ["X-StackMob-Select": "password,username"])
            #expect(users.array == [["username": "ann"]])
            // Single-object reads honour it too.
            let one = try await client.get("/item/i2", headers: ["X-StackMob-Select": "price"])
            #expect(one.object == ["item_id": "i2", "price": 0.25])
            #expect(try await client.get("/item/i2", headers: ["X-StackMob-Select": "nope"]).status == .badRequest)
        }
    }

    @Test("DELETE /<schema>?query deletes exactly the matching objects")
    func deleteByQuery() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.delete("/item?active=false")
            #expect(response.status == .ok)
            #expect(response.text == "{}")
            #expect(Self.ids(try await client.get("/item", headers: ["X-StackMob-OrderBy": "item_id:asc"])) == ["i1", "i3", "i5"])
            let noQuery = try await client.delete("/item")
            #expect(noQuery.status == .badRequest)
            #expect(try await client.get("/item").array?.count == 3)
            // A schema never written is not found, query or not, as for every other request.
            let unknown = try await client.delete("/never_written")
            #expect(unknown.status == .notFound, "\(unknown.text)")
            #expect(try await client.delete("/never_written?a=1").status == .notFound)
        }
    }

    @Test("bad query syntax is a 400 naming the parameter or header", arguments: [
        ("/item?qty[foo]=1", [:], "Unknown query operator in 'qty[foo]': use lt, lte, gt, gte, ne, in, nin, null, empty, near or within"),
        ("/item?qty[gt]=abc", [:], "Query parameter 'qty[gt]': the value does not fit field qty, which holds integer values"),
        ("/item?price=cheap", [:], "Query parameter 'price': the value does not fit field price, which holds float values"),
        ("/item?active=yes", [:], "Query parameter 'active': the value does not fit field active, which holds boolean values"),
        ("/item?tags[in]=1,x&qty[in]=1,x", [:], "Query parameter 'qty[in]': the value does not fit field qty, which holds integer values"),
        ("/item?price[null]=maybe", [:], "Malformed query parameter 'price[null]': expected true or false"),
        ("/item?qty[empty]=true", [:], "Malformed query parameter 'qty[empty]': [empty] applies to string fields only"),
        ("/item?[or1]name=x", [:], "Malformed query parameter '[or1]name': expected [orN]. with a number N"),
        ("/item?qty[gt=1", [:], "Malformed query parameter 'qty[gt': unclosed '['"),
        ("/item?Name=x", [:], "Malformed query parameter 'Name': 'Name' is not a field name"),
        ("/item?qty%ZZ=1", [:], "Invalid percent-encoding in 'qty%ZZ'"),
        // A filter on a field the schema does not have, whatever the operator (the iOS SDK's specs).
        ("/item?not_a_field=hello", [:], "Field 'not_a_field' does not exist in schema 'item'"),
        ("/item?not_a_field[ne]=hello", [:], "Field 'not_a_field' does not exist in schema 'item'"),
        ("/item?not_a_field[nin]=a,b", [:], "Field 'not_a_field' does not exist in schema 'item'"),
        ("/item?not_a_field[null]=true", [:], "Field 'not_a_field' does not exist in schema 'item'"),
        ("/item?[or1].name=x&[or1].not_a_field=y", [:], "Field 'not_a_field' does not exist in schema 'item'"),
        ("/item", ["X-StackMob-OrderBy": "nope:asc"], "Field 'nope' does not exist in schema 'item'"),
        ("/item", ["X-StackMob-OrderBy": "name:up"], "Invalid X-StackMob-OrderBy: 'name:up' is not field:asc or field:desc"),
        ("/item", ["X-StackMob-OrderBy": "tags:asc"], "Invalid X-StackMob-OrderBy: field tags cannot be sorted on"),
        ("/item", ["X-StackMob-Select": "nope"], "Field 'nope' does not exist in schema 'item'"),
        ("/item", ["X-StackMob-Select": "owner.name"], "Field 'owner' does not exist in schema 'item'"),
        ("/item", ["X-StackMob-Select": "name.x"], "Invalid X-StackMob-Select: 'name' is not a relationship, so 'name.…' selects nothing"),
        ("/item", ["Range": "items=0-1"], "Invalid Range header 'items=0-1': use objects=<start>-<end> or objects=<start>-"),
        ("/item", ["Range": "objects=5-2"], "Invalid Range header 'objects=5-2': use objects=<start>-<end> or objects=<start>-"),
        ("/user?password[lt]=m", [:], "Query parameter 'password[lt]': field password cannot be queried"),
    ] as [(String, [String: String], String)])
    func badQueries(path: String, headers: [String: String], message: String) async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get(path, headers: headers)
            #expect(response.status == .badRequest)
            #expect(response.error == message)
        }
    }
}
