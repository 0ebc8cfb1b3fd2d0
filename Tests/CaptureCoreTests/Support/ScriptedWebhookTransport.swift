import CaptureCore
import Foundation
import Synchronization

/// A listener's answers in order (the last repeats), recording every request the delivery posted: for the delivery
/// loop's rules without a network (the real listeners are Tests/Interop/test_webhooks.py's).
final class ScriptedWebhookTransport: WebhookTransport {
    private let state: Mutex<(answers: [WebhookResponse], requests: [WebhookRequest])>

    init(_ answers: [WebhookResponse]) {
        state = Mutex((answers, []))
    }

    var requests: [WebhookRequest] { state.withLock { $0.requests } }

    func post(_ request: WebhookRequest) async -> WebhookResponse {
        state.withLock { state in
            state.requests.append(request)
            return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
        }
    }
}
