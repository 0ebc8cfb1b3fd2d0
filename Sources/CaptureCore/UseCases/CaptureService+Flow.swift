extension CaptureService {
    /// Checks client, flow, form, response type and redirect URI of a submission, in that order.
    func context(of request: FlowRequest) async throws -> FlowContext {
        let client = try await authenticateClient(id: request.clientID, secret: request.clientSecret)
        guard let flowName = request.flow, !flowName.isEmpty else { throw CaptureError.missingArgument("flow") }
        guard let flow = catalog.flow(named: flowName) else {
            throw CaptureError.invalidArgument("flow", "unknown flow '\(flowName)'")
        }
        guard let form = request.form, !form.isEmpty else { throw CaptureError.missingArgument("form") }
        let responseType = request.responseType.flatMap { $0.isEmpty ? nil : $0 } ?? "token"
        guard ClientRules.responseTypes.contains(responseType) else {
            throw CaptureError.invalidArgument("response_type", "must be token, code or code_and_token")
        }
        guard responseType == "token" else {
            throw CaptureError.invalidArgument("response_type", "'\(responseType)' is not enabled on this service yet")
        }
        guard client.responseTypes.contains(responseType) else {
            throw CaptureError.invalidArgument("response_type", "'\(responseType)' is not allowed for this client")
        }
        try checkRedirect(request.redirectURI, for: client)
        return FlowContext(client: client, flow: flow, form: form, responseType: responseType)
    }

    /// The value of the form's field that maps to `attribute` (e.g. "email", "password").
    func value(for attribute: String, form: String, in values: [String: String]) -> String? {
        catalog.fields(ofForm: form).first { $0.attribute == attribute }.flatMap { values[$0.name] }
    }

    func fieldName(for attribute: String, form: String) -> String? {
        catalog.fields(ofForm: form).first { $0.attribute == attribute }?.name
    }
}
