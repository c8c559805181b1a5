import Hummingbird
import NIOCore
import StackMobCore

/// Reads request bodies as JSON whatever their `Content-Type` claims (PROTOCOL §2.8: the JS SDK on
/// Sencha and Zepto, and iOS custom code, send misleading or no content types).
enum RequestBodyReader {
    static func json(_ request: Request, limit: Int) async throws -> JSONValue {
        let buffer = try await bytes(request, limit: limit)
        guard buffer.readableBytes > 0 else { throw RequestError.emptyBody }
        // A large body (a file in an envelope) takes milliseconds to parse: on Swift's shared
        // pool, not on the connection's event loop, whose other connections would wait. A small
        // one is parsed where it is, sooner than two thread switches.
        guard buffer.readableBytes >= offLoopBytes else { return try parse(buffer) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try parse(buffer) }
    }

    /// From this size on, a body is parsed off the event loop.
    static let offLoopBytes = 256 * 1024

    /// Parses the body, and grows the request's share of the body budgets to what the parsed
    /// form may take (`BodyBudget`): more than the text's bytes when it holds many values.
    static func parse(_ buffer: ByteBuffer) throws -> JSONValue {
        let parsed: (value: JSONValue, values: Int)
        do {
            parsed = try JSONParser.parseCountingValues(buffer.readableBytesView, options: .requestBody)
        } catch {
            throw RequestError.malformedJSON(error.description)
        }
        try BodyBudget.current?.grow(to: buffer.readableBytes + parsed.values * JSONParser.bytesPerValue)
        return parsed.value
    }

    /// The raw body, possibly empty (custom code forwards it as it is). Every body the server
    /// reads comes through here, so that each way a read can fail is the client's error it is:
    /// too large (413), malformed framing (`HTTPParserError`, 400), too slow
    /// (`RequestBodyTimeout`, 408), or a connection gone mid-body.
    static func bytes(_ request: Request, limit: Int) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limit: limit)
        } catch is IOError {
            throw RequestError.connectionLost
        } catch is ChannelError {
            throw RequestError.connectionLost
        }
    }

    static func object(_ request: Request, limit: Int) async throws -> JSONObject {
        guard let object = try await json(request, limit: limit).objectValue else { throw DatastoreError.notAnObject }
        return object
    }
}
