extension ServiceSettings {
    /// The documents clients require (`legalDocuments`).
    public var legalTerms: LegalTerms { LegalTerms(documents: legalDocuments) }
    /// The grace period between a person's deletion of their account and its erasure (`erasureGraceDays`).
    public var accountDeletion: AccountDeletion { AccountDeletion(graceDays: erasureGraceDays) }
    /// The step-up rule with these settings' `recentSignInMinutes`.
    public var stepUpRule: StepUpRule { StepUpRule(window: recentSignInMinutes * 60) }
    /// Where providers send people back (`SocialService.socialCallbackPath` on the public origin).
    public var socialCallbackURL: String { resolvedPublicOrigin + SocialService.socialCallbackPath }
}
