import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

/// The S3 file store against a local S3 stub that records what it receives.
@Suite("S3-compatible file store")
struct S3FileStoreTests {
    final class Recorder: Sendable {
        let requests = Mutex<[(method: String, path: String, authorization: String, contentType: String, disposition: String, bytes: Int)]>([])
        let verified = Mutex<[Bool]>([])
    }

    /// Recomputes the signature from what arrived, as S3 does.
    static func verify(_ request: Request, body: ByteBuffer) -> Bool {
        let signer = SigV4Signer(accessKeyID: "AKIDTEST", secretAccessKey: "secret-key-for-tests", region: "eu-west-1")
        guard let date = request.headers[HTTPField.Name("x-amz-date")!], let hash = request.headers[HTTPField.Name("x-amz-content-sha256")!],
            hash == SigV4Signer.hexSHA256(Array(body.readableBytesView))
        else { return false }
        var headers = ["host": request.head.authority ?? "", "x-amz-date": date, "x-amz-content-sha256": hash]
        if let type = request.headers[.contentType] { headers["content-type"] = type }
        if let disposition = request.headers[HTTPField.Name("Content-Disposition")!] { headers["content-disposition"] = disposition }
        let expected = signer.authorization(method: request.method.rawValue, path: request.uri.path, headers: headers, payloadHash: hash, amzDate: date)
        return request.headers[.authorization] == expected
    }

    static func stub(_ recorder: Recorder) -> some ApplicationProtocol {
        let router = Router()
        router.on("/**", method: .put) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 24)
            let valid = Self.verify(request, body: body)
            recorder.verified.withLock { $0.append(valid) }
            recorder.requests.withLock {
                $0.append((
                    "PUT", request.uri.path, request.headers[.authorization] ?? "", request.headers[.contentType] ?? "",
                    request.headers[HTTPField.Name("Content-Disposition")!] ?? "", body.readableBytes
                ))
            }
            return Response(status: .ok)
        }
        router.on("/**", method: .delete) { request, _ -> Response in
            let valid = Self.verify(request, body: ByteBuffer())
            recorder.verified.withLock { $0.append(valid) }
            recorder.requests.withLock { $0.append(("DELETE", request.uri.path, request.headers[.authorization] ?? "", "", "", 0)) }
            return Response(status: .noContent)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test("uploads, replacements and deletes are signed PUTs and DELETEs to the bucket; URLs point at the store")
    func s3Lifecycle() async throws {
        let recorder = Recorder()
        try await Self.stub(recorder).test(.live) { s3 in
            let port = try #require(s3.port)
            let endpoint = "http://127.0.0.1:\(port)"
            try await TestServer.run(configure: { configuration in
                configuration.files.store = .s3
                configuration.files.s3 = S3Settings(
                    endpoint: endpoint, bucket: "media", region: "eu-west-1", accessKeyID: "AKIDTEST", secretAccessKey: "secret-key-for-tests")
            }) { client in
                let created = try await client.create(
                    "photo", ["photo_id": "p1", "pic": .string(BinaryFieldTests.envelope([1, 2, 3], filename: "a.png"))])
                #expect(created["pic"] == .string("\(endpoint)/media/development/photo/p1/pic/a.png"))
                // A page is stored as an opaque attachment: the bucket serves it as stored.
                let updated = try await client.put("/photo/p1", ["pic": .string(BinaryFieldTests.envelope([4, 5], filename: "b.html", type: "text/html"))])
                #expect(updated.object?["pic"] == .string("\(endpoint)/media/development/photo/p1/pic/b.html"))
                #expect(try await client.delete("/photo/p1").status == .ok)
                // Files are not served locally with the S3 store.
                #expect(try await client.withoutKey.get("/_files/development/photo/p1/pic/b.html").status != .ok)
            }
        }
        let requests = recorder.requests.withLock { $0 }
        #expect(requests.map(\.method) == ["PUT", "PUT", "DELETE", "DELETE"])
        #expect(requests.map(\.path) == [
            "/media/development/photo/p1/pic/a.png", "/media/development/photo/p1/pic/b.html",
            "/media/development/photo/p1/pic/a.png", "/media/development/photo/p1/pic/b.html",
        ])
        #expect(recorder.verified.withLock { $0 } == [true, true, true, true])
        #expect(requests[0].contentType == "image/png" && requests[0].disposition == "inline")
        #expect(requests[1].contentType == "application/octet-stream" && requests[1].disposition == "attachment; filename=\"b.html\"")
        #expect(requests[0].bytes == 3)
        for request in requests {
            #expect(request.authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDTEST/"))
            #expect(request.authorization.contains("/eu-west-1/s3/aws4_request, SignedHeaders="))
            #expect(request.authorization.contains("host;x-amz-content-sha256;x-amz-date"))
            #expect(request.authorization.range(of: #"Signature=[0-9a-f]{64}$"#, options: .regularExpression) != nil)
            #expect(!request.authorization.contains("secret-key-for-tests"))
        }
    }
}
