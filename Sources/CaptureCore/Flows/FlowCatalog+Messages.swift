extension FlowCatalog {
    /// The texts a request is answered in: its `locale`, else its `Accept-Language`, else the default.
    public func messages(for request: FlowRequest) -> Messages {
        let messages = messages(locale: request.locale, acceptLanguage: request.acceptLanguage)
        // An imported flow's own texts in that language come first.
        let imported = request.flow.flatMap { flow(named: $0)?.imported }
        return imported.map { messages.overlaid(with: $0.texts(for: messages.tag)) } ?? messages
    }

    /// The catalogs' texts in `locale`, else in `acceptLanguage`'s first language they have, else the default's.
    public func messages(locale: String?, acceptLanguage: String?) -> Messages {
        let localization = self.localization
        return localization.messages(for: localization.negotiate(explicit: locale, acceptLanguage: acceptLanguage, fallback: nil))
    }

}
