extension CaptureService {
    /// `user`, about to be stored, with its consents stamped for `clientID` (`Consents`), and the choices that
    /// changed, for `recordConsentChanges` once it is stored.
    func stampingConsents(_ user: User, previous: User?, clientID: String) -> (User, [Consents.Change]) {
        Consents.stamped(user, previous: previous, clientID: clientID, at: time.now(), schema: catalog.schema)
    }

    /// An audit row `user.consent_changed` for each choice ("marketing granted", "marketing withdrawn").
    func recordConsentChanges(_ changes: [Consents.Change], of userID: String) async {
        for change in changes {
            let choice = change.granted.map { $0 ? "granted" : "withdrawn" } ?? "cleared"
            await recordSecurityEvent("user.consent_changed", target: userID, detail: "\(change.consent) \(choice)")
        }
    }
}
