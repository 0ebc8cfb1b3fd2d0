import CaptureCore
import Hummingbird
import Logging

/// Wraps a handler so that every failure leaves in the contract's shape: domain errors as themselves,
/// anything else as a logged 500 without details.
enum Handle {
    typealias Body = @Sendable (Request, CaptureRequestContext) async throws -> Response

    /// Capture API errors are described in the request's language (`error_description`, field messages).
    static func capture(_ body: @escaping Body) -> Body {
        wrap(body) { error, context in Reply.captureError(error, messages: context.language?.messages) }
    }

    static func oauth(_ body: @escaping Body) -> Body {
        wrap(body) { error, _ in Reply.oauthError(error) }
    }

    static func engage(_ body: @escaping Body) -> Body {
        wrap(body) { error, _ in Reply.engageError(error) }
    }

    private static func wrap(
        _ body: @escaping Body, render: @escaping @Sendable (CaptureError, CaptureRequestContext) -> Response
    ) -> Body {
        { request, context in
            do {
                return try await body(request, context)
            } catch let error as CaptureError {
                return render(error, context)
            } catch {
                context.logger.error("unexpected failure", metadata: ["error": "\(String(reflecting: type(of: error)))"])
                return render(.unexpected(String(describing: type(of: error))), context)
            }
        }
    }
}
