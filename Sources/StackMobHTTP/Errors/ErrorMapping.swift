import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import StackMobCore
import StackMobHTTPServer

/// The one place where errors become StackMob's JSON error responses (PROTOCOL §14).
///
/// Every domain error case is mapped on purpose, without `default:`, so that a new case cannot
/// silently turn into a 500. Anything unexpected is a generic 500 without internals.
enum ErrorMapping {
    struct Mapped {
        let status: HTTPResponse.Status
        let message: String
        /// False for failures that are the server's own fault (logged at error level).
        let isClientError: Bool
        /// `error_description`, for the OAuth-style errors of the user actions (§8.2, §8.3).
        var description: String? = nil
    }

    static func map(_ error: any Error) -> Mapped {
        switch error {
        case let error as DatastoreError: return map(error)
        case let error as QueryError: return Mapped(status: .badRequest, message: error.message, isClientError: true)
        case let error as RelationError: return Mapped(status: .badRequest, message: error.message, isClientError: true)
        case let error as AuthenticationError: return Mapped(status: .unauthorized, message: error.message, isClientError: true)
        case let error as RequestError: return map(error)
        case let error as UserAccountError: return map(error)
        case let error as BinaryFieldError: return map(error)
        case let error as CustomCodeError: return map(error)
        case let error as PushError: return map(error)
        case let error as AccessError: return map(error)
        case let error as SocialError: return map(error)
        case let error as HTML5Error: return map(error)
        case let error as AdminError: return map(error)
        case is NIOTooManyBytesError: return Mapped(status: .contentTooLarge, message: "The request body is too large", isClientError: true)
        case let error as HTTPParserError:
            // Raised while a handler reads a body that breaks HTTP/1.1 (a chunk size `zz`).
            return Mapped(status: .badRequest, message: "Malformed HTTP request: \(error.debugDescription)", isClientError: true)
        case let error as BodyBudget.Refused:
            let what = error.answer ? "large answers" : "large request bodies"
            let whose = error.perClient ? (error.answer ? "to this client " : "from this client ") : ""
            return Mapped(status: .serviceUnavailable, message: "Too many \(what) \(whose)at once: try again in a second", isClientError: true)
        case let error as FailureLimiter.Refusal:
            return Mapped(
                status: .tooManyRequests, message: "Too many failed attempts: try again in \(error.retryAfterSeconds) seconds", isClientError: true)
        case let error as RequestTimedOut:
            return Mapped(
                status: .gatewayTimeout, message: "The request took longer than \(error.seconds) seconds: the server stopped it", isClientError: false)
        case let error as RequestBodyTimeout:
            return Mapped(
                status: .requestTimeout, message: "The request body did not arrive within \(error.seconds) seconds", isClientError: true)
        case let error as HTTPError:
            return Mapped(status: error.status, message: error.body ?? error.status.reasonPhrase, isClientError: error.status.code < 500)
        default:
            return Mapped(status: .internalServerError, message: "Internal server error", isClientError: false)
        }
    }

    private static func map(_ error: DatastoreError) -> Mapped {
        let status: HTTPResponse.Status
        switch error {
        case .objectNotFound, .objectNotFoundForDelete, .unknownName:
            status = .notFound
        case .duplicateKey:
            status = .conflict
        case .invalidSchemaName, .invalidFieldName, .reservedSchemaName, .unknownSchema, .unknownField, .primaryKeyChange, .incompatibleType,
            .invalidType, .subObjectWithoutRelation, .missingPrimaryKey, .invalidPrimaryKey, .notAnObject, .invalidTimestamp, .secondGeopoint, .tooManyFields,
            .containsNUL, .tooManyPasswords, .passwordChangeNeedsReset, .unhashedPassword, .expansionTooLarge:
            status = .badRequest
        case .cancelled:
            // Seen only by a client still there: the deadline answers 504 itself.
            status = .serviceUnavailable
        }
        return Mapped(status: status, message: error.message, isClientError: true)
    }

    private static func map(_ error: RequestError) -> Mapped {
        let status: HTTPResponse.Status
        switch error {
        case .malformedJSON, .emptyBody, .invalidPercentEncoding, .methodOverrideNotAllowed, .containsNUL, .responseTooLarge: status = .badRequest
        case .bodyTooLarge: status = .contentTooLarge
        case .routeNotFound: status = .notFound
        case .connectionLost: status = .badRequest
        case .unsupportedTransferCoding: status = .notImplemented
        }
        return Mapped(status: status, message: error.message, isClientError: true)
    }

    private static func map(_ error: UserAccountError) -> Mapped {
        switch error {
        case .accessDenied, .temporaryPasswordResetRequired, .invalidGrant, .notLoggedIn, .wrongOldPassword, .unknownUser, .noEmailAddress,
            .invalidCookieLogin:
            return Mapped(status: .unauthorized, message: error.error, isClientError: true, description: error.errorDescription)
        case .invalidNewPassword, .malformedResetBody:
            return Mapped(status: .badRequest, message: error.error, isClientError: true)
        case .mailDeliveryFailed:
            return Mapped(status: .serviceUnavailable, message: error.error, isClientError: false)
        }
    }

    private static func map(_ error: BinaryFieldError) -> Mapped {
        switch error {
        case .malformedEnvelope, .invalidBase64: return Mapped(status: .badRequest, message: error.message, isClientError: true)
        case .tooLarge: return Mapped(status: .contentTooLarge, message: error.message, isClientError: true)
        case .storageFailed: return Mapped(status: .internalServerError, message: error.message, isClientError: false)
        }
    }

    private static func map(_ error: CustomCodeError) -> Mapped {
        switch error {
        case .timedOut: return Mapped(status: .gatewayTimeout, message: error.message, isClientError: false)
        case .unreachable: return Mapped(status: .serviceUnavailable, message: error.message, isClientError: false)
        }
    }

    private static func map(_ error: PushError) -> Mapped {
        let status: HTTPResponse.Status
        switch error {
        case .unknownTokenType, .invalidToken, .malformedRequest, .payloadTooLarge, .invalidPayload: status = .badRequest
        case .tokenAlreadyRegistered: status = .conflict
        case .privateKeyRequired, .publicRegistrationDisabled: status = .unauthorized
        }
        return Mapped(status: status, message: error.message, isClientError: true)
    }

    /// Schema permissions (PROTOCOL §12.2): exact texts the SDKs rely on.
    private static func map(_ error: AccessError) -> Mapped {
        switch error {
        case .insufficientAuthorization: Mapped(status: .unauthorized, message: error.message, isClientError: true)
        case .methodNotAllowed: Mapped(status: .methodNotAllowed, message: error.message, isClientError: true)
        }
    }

    private static func map(_ error: HTML5Error) -> Mapped {
        switch error {
        case .invalidPath: Mapped(status: .badRequest, message: error.message, isClientError: true)
        case .fileNotFound, .nothingDeployed, .noDeployedVersion: Mapped(status: .notFound, message: error.message, isClientError: true)
        case .methodNotAllowed: Mapped(status: .methodNotAllowed, message: error.message, isClientError: true)
        case .sourceNotFound, .sourceNotADirectory, .unreadableFile, .pathOutsideSource, .unsupportedFile, .noPreviousVersion,
            .outsideDeployRoot, .badArchive:
            // Deploy-time errors, for the admin API: the operator's request is what is wrong.
            Mapped(status: .badRequest, message: error.message, isClientError: true)
        case .busy: Mapped(status: .conflict, message: error.message, isClientError: true)
        case .storageFailed:
            // The detail (a system error, which may name a server path) is for the log only.
            Mapped(status: .internalServerError, message: "Could not write the deployed files", isClientError: false)
        }
    }

    /// The admin API (docs/operations.md, "Admin API").
    private static func map(_ error: AdminError) -> Mapped {
        let status: HTTPResponse.Status
        switch error {
        case .closed: status = .serviceUnavailable
        case .notSignedIn, .badCredentials: status = .unauthorized
        case .csrfMismatch: status = .forbidden
        case .tooManyAttempts: status = .tooManyRequests
        case .badInput: status = .badRequest
        case .notFound: status = .notFound
        case .conflict: status = .conflict
        }
        return Mapped(status: status, message: error.message, isClientError: true)
    }

    private static func closesConnection(_ error: any Error) -> Bool {
        // A body refused before it was read: what follows on the connection is the rest of it.
        if let refused = error as? BodyBudget.Refused { return !refused.afterReading }
        if error is HTTPParserError || error is RequestBodyTimeout { return true }
        switch error as? RequestError {
        case .connectionLost?, .unsupportedTransferCoding?: return true
        default: return false
        }
    }

    /// The response for an error: `{"error": "<message>"}` with the JSON content type.
    static func response(for error: any Error) -> Response {
        let mapped = map(error)
        var body: JSONObject = ["error": .string(mapped.message)]
        if let description = mapped.description { body["error_description"] = .string(description) }
        var headers = HTTPFields()
        if closesConnection(error) {
            // The rest of the connection's bytes cannot be trusted or waited for
            // (`HTTP1ConnectionHandler` closes it after the answer).
            headers[.connection] = "close"
        }
        if let refusal = error as? FailureLimiter.Refusal {
            headers[HTTPField.Name("Retry-After")!] = String(refusal.retryAfterSeconds)
        }
        if case .tooManyAttempts(let seconds)? = error as? AdminError {
            headers[HTTPField.Name("Retry-After")!] = String(seconds)
        }
        if error is BodyBudget.Refused {
            // Every SDK retries a 503 that says when (PROTOCOL §10.3).
            headers[HTTPField.Name("Retry-After")!] = "1"
        }
        if case .unreachable? = error as? CustomCodeError {
            // Every SDK retries a 503 that says when (PROTOCOL §10.3).
            headers[HTTPField.Name("Retry-After")!] = String(CustomCodeError.retryAfterSeconds)
        }
        return JSONResponse.make(.object(body), status: mapped.status, headers: headers)
    }
}
