import AsyncHTTPClient
import Foundation
import NIOCore
import StackMobCore

/// Binary fields in an S3-compatible object store (AWS S3, MinIO, …), path-style:
/// `<endpoint>/<bucket>/<environment>/<schema>/<id>/<field>/<filename>`, signed with SigV4.
/// The store serves the files itself, so the bucket (or a CDN in `files.base_url`) must allow
/// public reads.
struct S3FileStore: FileStore {
    let settings: S3Settings
    let client: HTTPClient
    var now: @Sendable () -> Date = { Date() }

    init(settings: S3Settings, client: HTTPClient) {
        self.settings = settings
        self.client = client
    }

    var publicBaseURL: String? { bucketURL }

    private var bucketURL: String {
        (settings.endpoint.hasSuffix("/") ? String(settings.endpoint.dropLast()) : settings.endpoint) + "/" + settings.bucket
    }

    /// Stored with the type and disposition the server itself would serve (`FileDelivery`): the
    /// bucket answers with them, and it cannot add our `nosniff` and sandbox headers.
    func put(_ bytes: [UInt8], key: FileKey, contentType: String) async throws {
        try await send("PUT", key: key, body: bytes, delivery: FileDelivery(storedType: contentType, filename: key.filename))
    }

    func delete(_ key: FileKey) async throws {
        try await send("DELETE", key: key, body: [], delivery: nil)
    }

    private func send(_ method: String, key: FileKey, body: [UInt8], delivery: FileDelivery?) async throws {
        let url = bucketURL + "/" + key.path
        guard let components = URLComponents(string: url), let host = components.host else {
            throw BinaryFieldError.storageFailed("invalid object store URL")
        }
        let hostHeader = components.port.map { "\(host):\($0)" } ?? host
        let payloadHash = SigV4Signer.hexSHA256(body)
        let amzDate = SigV4Signer.amzDate(now())
        var headers = ["host": hostHeader, "x-amz-content-sha256": payloadHash, "x-amz-date": amzDate]
        if let delivery {
            headers["content-type"] = delivery.contentType
            headers["content-disposition"] = delivery.disposition
        }
        let signer = SigV4Signer(accessKeyID: settings.accessKeyID, secretAccessKey: settings.secretAccessKey, region: settings.region)
        let authorization = signer.authorization(
            method: method, path: components.percentEncodedPath, headers: headers, payloadHash: payloadHash, amzDate: amzDate)
        var request = HTTPClientRequest(url: url)
        request.method = method == "PUT" ? .PUT : .DELETE
        for (name, value) in headers where name != "host" { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Authorization", value: authorization)
        if method == "PUT" { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(60))
        } catch {
            throw BinaryFieldError.storageFailed("object store unreachable")
        }
        _ = try? await response.body.collect(upTo: 1 << 20)
        // 404 on DELETE: already gone, which is what was asked.
        guard (200..<300).contains(Int(response.status.code)) || (method == "DELETE" && response.status.code == 404) else {
            throw BinaryFieldError.storageFailed("object store answered \(response.status.code)")
        }
    }
}
