import NIOCore

/// The body of a request whose head arrived without all of its body: the chunks the connection
/// reads, handed to whoever reads `Request.body`, with back-pressure.
///
/// The connection stops reading from the socket while `highWatermark` chunks wait for the reader
/// (`yield` says `.stopProducing`) and starts again once it is down to `lowWatermark`
/// (`Delegate.produceMore`), so a client sending faster than the route reads is held up by TCP,
/// not buffered in memory. A body of at most `HTTP1ConnectionStateMachine.wholeBodyLimit` (64 KiB) that
/// arrives in the same read as its head is not streamed: the request gets it whole
/// (`RequestBody(buffer:)`).
enum RequestBodyStream {
    typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Delegate
    >
    typealias Source = Producer.Source

    /// Calls back into the connection, from whichever thread the reader runs on.
    struct Delegate: NIOAsyncSequenceProducerDelegate {
        /// The reader caught up: read from the socket again.
        let produceMoreCallback: @Sendable () -> Void
        /// The reader is gone (done, failed, or cancelled): the rest of the body is dropped.
        let didTerminateCallback: @Sendable () -> Void

        func produceMore() { produceMoreCallback() }
        func didTerminate() { didTerminateCallback() }
    }

    static func make(delegate: Delegate) -> (source: Source, body: Producer) {
        let made = Producer.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 16), finishOnDeinit: true, delegate: delegate)
        return (made.source, made.sequence)
    }
}

/// The body of a request that failed before its head's task started: reading it throws the
/// error, which the route answers (StackMobHTTP's `ErrorMapping`): the parser's error is 400, a
/// body that did not arrive in time (`RequestBodyTimeout`) 408, and the connection closes after
/// either.
struct FailedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let error: any Error

    struct AsyncIterator: AsyncIteratorProtocol {
        var error: (any Error)?

        mutating func next() async throws -> ByteBuffer? {
            guard let error else { return nil }
            self.error = nil
            throw error
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(error: error) }
}
