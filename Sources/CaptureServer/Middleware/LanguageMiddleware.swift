import CaptureCore
import Hummingbird

/// Gives every request the language its errors are described in (`CaptureRequestContext.language`).
struct LanguageMiddleware: RouterMiddleware {
    let localization: Localization

    func handle(
        _ request: Request, context: CaptureRequestContext,
        next: (Request, CaptureRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.language = RequestLanguage(localization: localization, acceptLanguage: request.headers[.acceptLanguage])
        return try await next(request, context)
    }
}
