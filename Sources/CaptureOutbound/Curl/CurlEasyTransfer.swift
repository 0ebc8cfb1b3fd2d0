import CCurl

/// Runs one transfer to completion on the calling thread, which is always one of `CurlClient`'s own threads:
/// curl_easy_perform blocks until the transfer ends or a timeout fires.
enum CurlEasyTransfer {
    static func run(_ transfer: CurlTransfer, cancellation: CurlCancellation) -> CurlOutcome {
        if cancellation.isCancelled {
            return failure(CURLE_ABORTED_BY_CALLBACK, "cancelled before it started", cancelled: true)
        }
        let state: CurlTransferState
        switch transfer.kind {
        case .smtp(let envelope):
            state = CurlTransferState(cancellation: cancellation, upload: envelope.message, maxResponseBytes: 0)
        case .http(let exchange):
            state = CurlTransferState(
                cancellation: cancellation, upload: exchange.body ?? [], maxResponseBytes: exchange.maxResponseBytes)
        }
        guard let handle = CurlEasyHandle(state: state) else {
            return failure(CURLE_FAILED_INIT, "curl_easy_init failed")
        }

        do throws(CurlSetupError) {
            try configureCommon(handle, transfer)
            switch transfer.kind {
            case .smtp(let envelope): try configureSMTP(handle, envelope)
            case .http(let exchange): try configureHTTP(handle, exchange)
            }
        } catch {
            return failure(
                error.code, "could not set \(error.option): \(String(cString: curl_easy_strerror(error.code)))")
        }

        let code = curl_easy_perform(handle.raw)
        let bufferText = String(cString: handle.errorBuffer)
        var outcome = CurlOutcome(
            code: code.rawValue, responseCode: handle.responseCode(),
            errorText: bufferText.isEmpty ? String(cString: curl_easy_strerror(code)) : bufferText,
            lastServerReply: state.lastServerReply)
        outcome.headers = state.headers
        outcome.body = state.body
        outcome.responseTooLarge = state.responseTooLarge || code == CURLE_FILESIZE_EXCEEDED
        outcome.cancelled = code == CURLE_ABORTED_BY_CALLBACK && cancellation.isCancelled
        return outcome
    }

    private static func failure(_ code: CURLcode, _ text: String, cancelled: Bool = false) -> CurlOutcome {
        var outcome = CurlOutcome(code: code.rawValue, responseCode: 0, errorText: text, lastServerReply: nil)
        outcome.cancelled = cancelled
        return outcome
    }

    /// The settings every transfer gets, whatever the protocol.
    private static func configureCommon(
        _ handle: CurlEasyHandle, _ transfer: CurlTransfer
    ) throws(CurlSetupError) {
        let state = handle.statePointer
        try handle.set(CURLOPT_URL, transfer.url, "URL")
        // Signals are process-wide and these are threads: without NOSIGNAL, libcurl's resolver timeout uses SIGALRM.
        try handle.set(CURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        try handle.set(CURLOPT_PROTOCOLS_STR, transfer.protocols, "PROTOCOLS_STR")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, transfer.protocols, "REDIR_PROTOCOLS_STR")
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(transfer.connectTimeoutSeconds), "CONNECTTIMEOUT_MS")
        try handle.set(CURLOPT_TIMEOUT_MS, milliseconds(transfer.totalTimeoutSeconds), "TIMEOUT_MS")
        // Verification is libcurl's default; set anyway so no later default or environment can change it.
        try handle.set(CURLOPT_SSL_VERIFYPEER, 1, "SSL_VERIFYPEER")
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2, "SSL_VERIFYHOST")
        try handle.set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2), "SSLVERSION")
        if let caFile = transfer.caFile { try handle.set(CURLOPT_CAINFO, caFile, "CAINFO") }
        try handle.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(handle.errorBuffer), "ERRORBUFFER")
        // The progress callback is how a cancelled task stops a transfer that is already running.
        try handle.set(CURLOPT_NOPROGRESS, 0, "NOPROGRESS")
        try handle.set(CURLOPT_XFERINFODATA, pointer: state, "XFERINFODATA")
        try handle.check(
            ccurl_setopt_xferinfo_callback(handle.raw) { userdata, _, _, _, _ in
                CurlTransferState.from(userdata).cancellation.isCancelled ? 1 : 0
            }, "XFERINFOFUNCTION")
    }

    private static func configureSMTP(
        _ handle: CurlEasyHandle, _ envelope: CurlTransfer.SMTPEnvelope
    ) throws(CurlSetupError) {
        let state = handle.statePointer
        if envelope.requireStartTLS {
            try handle.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue), "USE_SSL")
        }
        try handle.set(CURLOPT_MAIL_FROM, "<\(envelope.mailFrom)>", "MAIL_FROM")
        try handle.set(CURLOPT_MAIL_RCPT, list: envelope.recipients.map { "<\($0)>" }, "MAIL_RCPT")
        if let username = envelope.username { try handle.set(CURLOPT_USERNAME, username, "USERNAME") }
        if let password = envelope.password { try handle.set(CURLOPT_PASSWORD, password, "PASSWORD") }
        try handle.set(CURLOPT_UPLOAD, 1, "UPLOAD")
        try handle.set(CURLOPT_INFILESIZE_LARGE, offset: Int64(envelope.message.count), "INFILESIZE_LARGE")
        try handle.set(CURLOPT_READDATA, pointer: state, "READDATA")
        try handle.set(
            CURLOPT_READFUNCTION,
            callback: { buffer, size, count, userdata in
                CurlTransferState.from(userdata).read(into: buffer!, capacity: size * count)
            }, "READFUNCTION")
        // VERBOSE only feeds the debug callback below (nothing is printed); it keeps the server's last reply line.
        try handle.set(CURLOPT_VERBOSE, 1, "VERBOSE")
        try handle.set(CURLOPT_DEBUGDATA, pointer: state, "DEBUGDATA")
        try handle.check(
            ccurl_setopt_debug_callback(handle.raw) { _, type, data, size, userdata in
                if type == CURLINFO_HEADER_IN, let data {
                    CurlTransferState.from(userdata).serverSaid(data, count: size)
                }
                return 0
            }, "DEBUGFUNCTION")
    }

    private static func configureHTTP(
        _ handle: CurlEasyHandle, _ exchange: CurlTransfer.HTTPExchange
    ) throws(CurlSetupError) {
        let state = handle.statePointer
        switch exchange.method {
        case .get: try handle.set(CURLOPT_HTTPGET, 1, "HTTPGET")
        case .head: try handle.set(CURLOPT_NOBODY, 1, "NOBODY")
        default: break
        }
        if let body = exchange.body {
            // POST mode makes libcurl pull the body through the read callback; CUSTOMREQUEST renames the method.
            try handle.set(CURLOPT_POST, 1, "POST")
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count), "POSTFIELDSIZE_LARGE")
            try handle.set(CURLOPT_READDATA, pointer: state, "READDATA")
            try handle.set(
                CURLOPT_READFUNCTION,
                callback: { buffer, size, count, userdata in
                    CurlTransferState.from(userdata).read(into: buffer!, capacity: size * count)
                }, "READFUNCTION")
        }
        if exchange.method != .get && exchange.method != .head && !(exchange.method == .post && exchange.body != nil) {
            try handle.set(CURLOPT_CUSTOMREQUEST, exchange.method.rawValue, "CUSTOMREQUEST")
        }
        // "Expect:" with no value stops libcurl waiting a second for 100-continue before larger bodies.
        try handle.set(CURLOPT_HTTPHEADER, list: exchange.headerLines + ["Expect:"], "HTTPHEADER")
        try handle.set(CURLOPT_FOLLOWLOCATION, exchange.maxRedirects > 0 ? 1 : 0, "FOLLOWLOCATION")
        try handle.set(CURLOPT_MAXREDIRS, exchange.maxRedirects, "MAXREDIRS")
        // Refuses early when Content-Length says too much; the write callback cuts off bodies without one.
        try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(exchange.maxResponseBytes), "MAXFILESIZE_LARGE")
        try handle.set(CURLOPT_WRITEDATA, pointer: state, "WRITEDATA")
        try handle.set(
            CURLOPT_WRITEFUNCTION,
            callback: { buffer, size, count, userdata in
                CurlTransferState.from(userdata).write(buffer!, count: size * count)
            }, "WRITEFUNCTION")
        try handle.set(CURLOPT_HEADERDATA, pointer: state, "HEADERDATA")
        try handle.set(
            CURLOPT_HEADERFUNCTION,
            callback: { buffer, size, count, userdata in
                CurlTransferState.from(userdata).header(buffer!, count: size * count)
            }, "HEADERFUNCTION")
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        // 0 would mean "no timeout" to libcurl; every transfer has one.
        max(1, Int((seconds * 1000).rounded()))
    }
}
