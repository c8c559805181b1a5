import Hummingbird

/// What every request of the API port passes through before its route, credentials or not.
///
/// One concrete chain rather than a middleware each in the router's list: Hummingbird calls each
/// listed middleware through an existential and a closure; here the layers are nested calls on
/// concrete types, which the compiler specialises and inlines, so a request makes one dynamic
/// call where it made twelve (issue 19). The layers are listed in the order a request passes
/// through them.
struct FrontMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let metrics: MetricsMiddleware
    let log = RequestLogMiddleware()
    let headers: ServerHeadersMiddleware
    let monitoring: MonitoringMiddleware
    let admin: AdminMiddleware
    let push: PushHostMiddleware
    let html5: HTML5HostMiddleware
    let cors: CORSMiddleware
    let errors = ErrorMiddleware()
    let transferCoding = TransferCodingMiddleware()
    let notFound = NotFoundMiddleware()
    /// The local file store's downloads; nil when files live in S3.
    let files: FilesMiddleware?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await metrics.handle(request, context: context) { request, context in
            try await log.handle(request, context: context) { request, context in
                try await headers.handle(request, context: context) { request, context in
                    try await monitoring.handle(request, context: context) { request, context in
                        try await admin.handle(request, context: context) { request, context in
                            try await push.handle(request, context: context) { request, context in
                                try await html5.handle(request, context: context) { request, context in
                                    try await cors.handle(request, context: context) { request, context in
                                        try await errors.handle(request, context: context) { request, context in
                                            try await transferCoding.handle(request, context: context) { request, context in
                                                try await notFound.handle(request, context: context) { request, context in
                                                    guard let files else { return try await next(request, context) }
                                                    return try await files.handle(request, context: context, next: next)
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
