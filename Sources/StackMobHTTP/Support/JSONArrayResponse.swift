import Hummingbird
import NIOCore
import StackMobCore

/// The answer to a query as JSON text: the objects of `Datastore.queryInBatches`, written a
/// batch of about 4 MiB at a time (`Batches`), so that a request holds one batch of objects,
/// never the whole answer (docs/architecture.md, "Memory per request").
///
/// - An answer of one batch is one buffer with its `Content-Length`, as every other response.
/// - A longer answer without expansion is streamed (chunked): each batch is read and written in
///   turn, waiting while the client is slow. A batch that fails to read once the head has been
///   sent cannot become an error response any more: the connection is closed, and the client
///   sees a truncated body, never a well-formed wrong one.
/// - A longer answer with expansion is built whole, as its size is the request's choice, within
///   `limits.max_expanded_response_bytes`, and refused with `responseTooLarge` (400) past it,
///   before anything is sent.
///
/// Reading and writing the batches of a long answer runs on `LoopWork.threads`, not on the
/// connection's event loop: a batch of large objects takes milliseconds to serialise.
///
/// A streamed answer holds the keys of its rest until it is written, however slowly its client
/// reads: a key is a client's string of any length, and a list may have a million. They are
/// noted in `notes` for the body budgets to count (`BodyBudget.answering`), so that a client's
/// many connections cannot hold many lists' keys at once: a list whose keys do not fit the
/// client's share is refused with a `503` before anything of it is sent.
enum JSONArrayResponse {
    static func make(
        _ answer: Datastore.QueryBatches, status: HTTPResponse.Status, headers: HTTPFields, expandedBy depth: Int, limit: Int,
        notes: RequestNotes? = nil
    ) async throws -> Response {
        guard let rest = answer.rest else {
            return try await JSONResponse.make(
                .array(answer.first.map(JSONValue.object)), status: status, headers: headers, expandedBy: depth, limit: limit)
        }
        var fields = headers
        fields[.contentType] = JSONResponse.contentType
        guard depth == 0 else {
            let body = try await withTaskExecutorPreference(LoopWork.threads) { try await bounded(answer.first, rest, limit: limit) }
            return Response(status: status, headers: fields, body: .init(byteBuffer: body))
        }
        notes?.answerKeeps = rest.keyBytes
        let first = FirstBatch(answer.first)
        return Response(
            status: status, headers: fields,
            body: ResponseBody { writer in
                try await withTaskExecutorPreference(LoopWork.threads) {
                    var array = ArrayText()
                    var batches = Batches(rest: rest)
                    var part: ByteBuffer
                    do {
                        let objects = first.take()
                        part = array.elements(objects)
                        batches.wrote(part.readableBytes, objects: objects.count)
                    }
                    try await writer.write(part)
                    while let batch = try await batches.next() {
                        part = array.elements(batch)
                        batches.wrote(part.readableBytes, objects: batch.count)
                        try await writer.write(part)
                    }
                    try await writer.write(array.end())
                    try await writer.finish(nil)
                }
            })
    }

    /// The first batch of a streamed answer, handed to its writer once: the answer holds it for
    /// as long as it is written, which a slow client makes as long as it likes.
    ///
    /// `@unchecked Sendable`: only the task writing the answer takes it, once.
    private final class FirstBatch: @unchecked Sendable {
        private var objects: [JSONObject]

        init(_ objects: [JSONObject]) {
            self.objects = objects
        }

        func take() -> [JSONObject] {
            defer { objects = [] }
            return objects
        }
    }

    /// The whole text within `limit` bytes, or `responseTooLarge`; counted as it grows, as
    /// `JSONResponse.expandedText` counts it.
    private static func bounded(_ first: [JSONObject], _ rest: Datastore.RemainingObjects, limit: Int) async throws -> ByteBuffer {
        var array = ArrayText()
        var batches = Batches(rest: rest)
        var body = try await array.elements(first, limit: limit)
        batches.wrote(body.readableBytes, objects: first.count)
        while let batch = try await batches.next() {
            var part = try await array.elements(batch, limit: limit - body.readableBytes)
            batches.wrote(part.readableBytes, objects: batch.count)
            body.writeBuffer(&part)
        }
        var end = array.end()
        guard body.readableBytes + end.readableBytes <= limit else { throw RequestError.responseTooLarge(limit: limit) }
        body.writeBuffer(&end)
        return body
    }

    /// The rest of an answer in batches of about `targetBytes` of text each: as many objects as
    /// fit that at the size of those written so far, so that a request holds a few megabytes
    /// whether its objects are a hundred bytes or a hundred kilobytes each.
    struct Batches {
        static let targetBytes = 4 << 20
        static let sizes = 10...1_000
        let rest: Datastore.RemainingObjects
        private var position = 0
        private var bytes = 0
        private var objects = 0

        init(rest: Datastore.RemainingObjects) {
            self.rest = rest
        }

        mutating func wrote(_ bytes: Int, objects: Int) {
            self.bytes += bytes
            self.objects += objects
        }

        /// The next batch; nil once every key was read. A batch may hold fewer objects than it
        /// asked for (objects deleted since, or stored values past `Datastore.batchBytes`: the
        /// text written can be far smaller than what was read), none included.
        mutating func next() async throws -> [JSONObject]? {
            guard position < rest.count else { return nil }
            let average = max(1, bytes / max(1, objects))
            let size = min(max(Self.targetBytes / average, Self.sizes.lowerBound), Self.sizes.upperBound)
            let batch = try await rest.read(position..<min(position + size, rest.count))
            position = batch.next
            return batch.objects
        }
    }

    /// One JSON array written in parts: `[`, the elements of each batch with the commas between
    /// them, `]`.
    private struct ArrayText {
        var opened = false

        /// The objects as the array's next elements, within `limit` bytes
        /// (`JSONResponse.expandedText`).
        mutating func elements(_ objects: [JSONObject], limit: Int) async throws -> ByteBuffer {
            guard !objects.isEmpty else { return ByteBuffer() }
            let continues = opened
            let part = try await JSONResponse.expandedText(.array(objects.map(JSONValue.object)), limit: limit) {
                Self.elements(of: $0, opened: continues)
            }
            opened = true
            return part
        }

        /// `elements` without a limit or counting.
        mutating func elements(_ objects: [JSONObject]) -> ByteBuffer {
            guard !objects.isEmpty else { return ByteBuffer() }
            let part = JSONWriter.withBytes(.array(objects.map(JSONValue.object))) { Self.elements(of: $0, opened: opened) }
            opened = true
            return part
        }

        /// The elements of a batch's own array, `[…]`, whose brackets give way to the whole
        /// array's.
        private static func elements(of text: UnsafeRawBufferPointer, opened: Bool) -> ByteBuffer {
            var buffer = ByteBuffer()
            buffer.reserveCapacity(text.count)
            buffer.writeInteger(opened ? UInt8(ascii: ",") : UInt8(ascii: "["))
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: text[1..<(text.count - 1)]))
            return buffer
        }

        mutating func end() -> ByteBuffer {
            ByteBuffer(string: opened ? "]" : "[]")
        }
    }
}
