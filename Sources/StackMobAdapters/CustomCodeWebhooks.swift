import AsyncHTTPClient
import NIOCore
import StackMobCore

/// Custom-code calls (PROTOCOL §10.2) over HTTP: the call is POSTed as JSON to the method's
/// webhook, and its answer comes back as it is.
struct CustomCodeWebhooks: CustomCodeGateway {
    let client: HTTPClient

    func call(_ call: CustomCodeCall, url: String, timeoutSeconds: Int, maxBodyBytes: Int) async throws -> CustomCodeReply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-StackMob-Method", value: call.method)
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(call.json, omittingNulls: false)))
        let deadline = NIODeadline.now() + .seconds(Int64(timeoutSeconds))
        do {
            let response = try await client.execute(request, deadline: deadline)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return CustomCodeReply(
                status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
                body: Array(body.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw CustomCodeError.timedOut(method: call.method, seconds: timeoutSeconds)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CustomCodeError.unreachable(method: call.method)
        }
    }
}
