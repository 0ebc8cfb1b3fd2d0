import CaptureCore
import Hummingbird
import Logging

/// Wraps a handler so that every failure leaves in the contract's shape: domain errors as themselves,
/// anything else as a logged 500 without details.
enum Handle {
    typealias Body = @Sendable (Request, CaptureRequestContext) async throws -> Response

    static func capture(_ body: @escaping Body) -> Body {
        wrap(body, render: Reply.captureError)
    }

    static func oauth(_ body: @escaping Body) -> Body {
        wrap(body, render: Reply.oauthError)
    }

    static func engage(_ body: @escaping Body) -> Body {
        wrap(body, render: Reply.engageError)
    }

    private static func wrap(_ body: @escaping Body, render: @escaping @Sendable (CaptureError) -> Response) -> Body {
        { request, context in
            do {
                return try await body(request, context)
            } catch let error as CaptureError {
                return render(error)
            } catch {
                context.logger.error("unexpected failure", metadata: ["error": "\(String(reflecting: type(of: error)))"])
                return render(.unexpected(String(describing: type(of: error))))
            }
        }
    }
}
