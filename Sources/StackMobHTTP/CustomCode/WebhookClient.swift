import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import StackMobCore

/// The process's one outgoing HTTP client (custom-code webhooks), shut down with the app: it is a
/// service of the application, whose `run` waits for graceful shutdown.
public final class WebhookClient: Service, Sendable {
    let client: HTTPClient

    public init() {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)))
        // An unreachable webhook must fail at once (503 + Retry-After, which the SDKs retry),
        // not after connection retries that would eat the method's time budget.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }

    struct Reply {
        let status: Int
        let headers: [(String, String)]
        let body: ByteBuffer
    }

    /// Posts the call as JSON to the method's webhook and returns its answer as it is.
    func call(_ call: CustomCodeCall, url: String, timeoutSeconds: Int, maxBodyBytes: Int) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-StackMob-Method", value: call.method)
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(call.json, omittingNulls: false)))
        let deadline = NIODeadline.now() + .seconds(Int64(timeoutSeconds))
        do {
            let response = try await client.execute(request, deadline: deadline)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: body)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw CustomCodeError.timedOut(method: call.method, seconds: timeoutSeconds)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CustomCodeError.unreachable(method: call.method)
        }
    }
}
