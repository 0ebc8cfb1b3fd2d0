import CCurl

/// A failed curl_easy_setopt: the transfer is not attempted.
struct CurlSetupError: Error {
    var code: CURLcode
    var option: String
}

/// An easy handle with typed, throwing setters. Lives on one curl thread for one transfer; never shared.
/// It owns everything libcurl holds a pointer to (the callbacks' state, the error buffer, string lists), so none
/// of it can go before curl_easy_cleanup, which may still call the debug callback while closing the connection.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    let state: CurlTransferState
    /// CURLOPT_ERRORBUFFER: libcurl writes its diagnostic for a failed transfer here.
    let errorBuffer: UnsafeMutablePointer<CChar>
    private var lists: [UnsafeMutablePointer<curl_slist>] = []

    init?(state: CurlTransferState) {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        self.state = state
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(raw)
        for list in lists { curl_slist_free_all(list) }
        errorBuffer.deallocate()
        // `state` is released after this body, once libcurl can no longer call back.
    }

    /// What CURLOPT_*DATA get: `state`, unretained, valid as long as this handle is.
    var statePointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(state).toOpaque() }

    func set(_ option: CURLoption, _ value: Int, _ name: String) throws(CurlSetupError) {
        try check(ccurl_setopt_long(raw, option, value), name)
    }

    func set(_ option: CURLoption, offset value: Int64, _ name: String) throws(CurlSetupError) {
        try check(ccurl_setopt_off_t(raw, option, curl_off_t(value)), name)
    }

    func set(_ option: CURLoption, _ value: String, _ name: String) throws(CurlSetupError) {
        try check(ccurl_setopt_string(raw, option, value), name)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: String) throws(CurlSetupError) {
        try check(ccurl_setopt_pointer(raw, option, value), name)
    }

    func set(_ option: CURLoption, callback: ccurl_data_callback, _ name: String) throws(CurlSetupError) {
        try check(ccurl_setopt_data_callback(raw, option, callback), name)
    }

    /// Sets a string-list option; the handle frees the list when it goes.
    func set(_ option: CURLoption, list strings: [String], _ name: String) throws(CurlSetupError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for string in strings {
            guard let longer = curl_slist_append(list, string) else {
                if let list { curl_slist_free_all(list) }
                throw CurlSetupError(code: CURLE_OUT_OF_MEMORY, option: name)
            }
            list = longer
        }
        if let list { lists.append(list) }
        try check(ccurl_setopt_slist(raw, option, list), name)
    }

    func check(_ code: CURLcode, _ name: String) throws(CurlSetupError) {
        guard code == CURLE_OK else { throw CurlSetupError(code: code, option: name) }
    }

    func responseCode() -> Int {
        var code = 0
        return ccurl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0
    }
}
