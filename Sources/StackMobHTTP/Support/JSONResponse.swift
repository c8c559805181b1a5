import Hummingbird
import NIOCore
import StackMobCore

/// Responses with StackMob's JSON conventions (PROTOCOL §1.4).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        response(JSONWriter.withBytes(value) { ByteBuffer(bytes: $0) }, status: status, headers: headers)
    }

    /// `make` for an answer whose size the request decides when it was expanded (`depth` > 0,
    /// PROTOCOL §5.5): refused with `responseTooLarge` once its text passes `limit` bytes, so
    /// that one request never holds more than that, whatever is stored. Without expansion an
    /// answer holds each stored object once, and its size is the data's.
    static func make(
        _ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], expandedBy depth: Int, limit: Int
    ) async throws -> Response {
        guard depth > 0 else { return make(value, status: status, headers: headers) }
        return response(try await expandedText(value, limit: limit) { ByteBuffer(bytes: $0) }, status: status, headers: headers)
    }

    /// The most text of an expanded answer written on an event loop: past it, the text is
    /// written again on `LoopWork.threads`. An expansion may be 32 MiB of text.
    static let loopTextBytes = 256 * 1024

    /// The text of an expanded answer, lent to `body`: within `limit` bytes, or
    /// `responseTooLarge`; its memory counted as it grows in the request's `AnswerMemory`, or the
    /// budgets' refusal (`CountedAnswerMemory`). Written on the request's event loop up to
    /// `loopTextBytes`, and past them, from the start, off it.
    static func expandedText<Result: Sendable>(
        _ value: JSONValue, limit: Int, _ body: (UnsafeRawBufferPointer) -> Result
    ) async throws -> Result {
        try await LoopWork.offTheLoopWhenOutgrown {
            try text(of: value, limit: limit, loopBound: LoopWork.isOnEventLoop ? loopTextBytes : nil, body)
        }
    }

    /// `expandedText`'s text, written where the caller runs; `LoopWork.Outgrown` once it would
    /// pass `loopBound`, having given back what it was granted.
    private static func text<Result>(
        of value: JSONValue, limit: Int, loopBound: Int?, _ body: (UnsafeRawBufferPointer) -> Result
    ) throws -> Result {
        let memory = AnswerMemoryScope.current as? CountedAnswerMemory
        var granted = 0
        var outgrown = false
        let grant = { (bytes: Int) -> Bool in
            if let loopBound, granted + bytes > loopBound {
                outgrown = true
                return false
            }
            guard memory?.grant(bytes) ?? true else { return false }
            granted += bytes
            return true
        }
        guard let result = JSONWriter.withBytes(value, limit: limit, grant: grant, body) else {
            if outgrown {
                memory?.giveBack(granted)
                throw LoopWork.Outgrown()
            }
            if let refusal = memory?.refusal { throw refusal }
            throw RequestError.responseTooLarge(limit: limit)
        }
        return result
    }

    private static func response(_ body: ByteBuffer, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// A status with no body, for HEAD requests.
    static func empty(_ status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentLength: "0"])
    }
}
