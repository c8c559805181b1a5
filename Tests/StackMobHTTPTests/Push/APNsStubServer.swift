import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import StackMobCore
import Synchronization

/// A local stand-in for Apple's provider API: HTTP/2 only (ALPN h2) over TLS with the committed
/// test certificate. It checks the provider token's ES256 signature against the expected key
/// (403 `InvalidProviderToken` otherwise), answers 400 `BadDeviceToken` for one token and 200
/// to the rest, and records every request.
final class APNsStubServer: Sendable {
    struct Received: Sendable {
        let method: String
        let path: String
        let version: HTTPVersion
        let headers: [String: String]
        let body: JSONValue?
    }

    final class State: Sendable {
        /// Raw bytes: the key type itself is not `Sendable`.
        let publicKey: Data
        let badToken: String
        let received = Mutex<[Received]>([])

        init(publicKey: P256.Signing.PublicKey, badToken: String) {
            self.publicKey = publicKey.rawRepresentation
            self.badToken = badToken
        }

        func answer(_ head: HTTPRequestHead, body: ByteBuffer) -> (Int, String) {
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            received.withLock {
                $0.append(Received(method: head.method.rawValue, path: head.uri, version: head.version, headers: headers, body: try? JSONParser.parse(body.readableBytesView)))
            }
            guard let authorization = headers["authorization"], authorization.hasPrefix("bearer "),
                let key = try? P256.Signing.PublicKey(rawRepresentation: publicKey), Self.verify(String(authorization.dropFirst("bearer ".count)), key: key)
            else { return (403, #"{"reason":"InvalidProviderToken"}"#) }
            if head.uri == "/3/device/\(badToken)" { return (400, #"{"reason":"BadDeviceToken"}"#) }
            return (200, "")
        }

        static func verify(_ jwt: String, key: P256.Signing.PublicKey) -> Bool {
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let raw = decode(parts[2]), let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { return false }
            return key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        }

        static func decode(_ part: String) -> Data? {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return Data(base64Encoded: base64)
        }
    }

    let state: State
    private let channel: any Channel
    var port: Int { channel.localAddress!.port! }
    var received: [Received] { state.received.withLock { $0 } }

    /// The mail tests' certificate; Tests/ is three components above this file
    /// (Tests/StackMobHTTPTests/Push/APNsStubServer.swift).
    static var certificateDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("StackMobMailTests/Certificates")
    }
    static var certificateFile: String { certificateDirectory.appendingPathComponent("localhost.cert.pem").path }

    init(publicKey: P256.Signing.PublicKey, badToken: String) async throws {
        let state = State(publicKey: publicKey, badToken: badToken)
        self.state = state
        let certificates = try NIOSSLCertificate.fromPEMFile(Self.certificateFile)
        let key = try NIOSSLPrivateKey(file: Self.certificateDirectory.appendingPathComponent("localhost.key.pem").path, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    child.configureHTTP2Pipeline(mode: .server) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), StreamHandler(state: state)])
                        }
                    }.map { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func stop() async {
        try? await channel.close()
    }

    private final class StreamHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: State
        var head: HTTPRequestHead?
        var body = ByteBuffer()

        init(state: State) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(var buffer): body.writeBuffer(&buffer)
            case .end:
                guard let head else { return }
                let (status, json) = state.answer(head, body: body)
                var headers = HTTPHeaders()
                headers.add(name: "apns-id", value: UUID().uuidString)
                headers.add(name: "content-length", value: String(json.utf8.count))
                if !json.isEmpty { headers.add(name: "content-type", value: "application/json") }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .init(statusCode: status), headers: headers))), promise: nil)
                if !json.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: json)))), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
