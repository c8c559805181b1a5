import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

extension HTTPServerBuilder {
    /// Connections served by Hummingbird's own `HTTP1Channel` (`listen.http1_channel:
    /// hummingbird`), with the limits the server's own layer keeps: the guard in each pipeline
    /// (`HummingbirdConnectionGuard`) and the request deadline (`HummingbirdExchange`).
    ///
    /// As with `HTTP1Connection`, the responder Hummingbird hands the builder (the
    /// `Application`'s) is not used: it cannot be given a deadline, because it writes its response
    /// itself, and a request past its deadline must get 504 in place of whatever it would write.
    public static func hummingbird<Responder: HTTPResponder>(responder: Responder, settings: HTTP1ConnectionSettings, logger: Logger)
        -> HTTPServerBuilder
    where Responder.Context: RequestContext, Responder.Context.Source == ApplicationRequestContextSource {
        let limits = settings.decoderLimits
        let configuration = HTTP1Channel.Configuration(
            // An autoclosure: every connection gets a guard of its own.
            additionalChannelHandlers: [HummingbirdConnectionGuard(settings: settings)],
            // The guard keeps the idle timeout as the server's own layer does: restarted by any
            // byte, so that a head arriving slowly is bounded by the header timeout alone.
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maxHeaderFieldSize, maxHeaderListSize: limits.maxHeaderListSize,
                maxHeaderFieldCount: limits.maxHeaderFieldCount))
        let respond = HummingbirdExchange.responder(responder, settings: settings, logger: logger)
        return HTTPServerBuilder { _ in EventLoopBoundChannel(base: HTTP1Channel(responder: respond, configuration: configuration)) }
    }
}
