import Foundation

/// What the C callbacks of one transfer read and write. Created, used and dropped on one curl thread; the callbacks
/// reach it through CURLOPT_*DATA as an unretained pointer, kept alive by the `CurlEasyHandle` that owns it.
final class CurlTransferState {
    let cancellation: CurlCancellation
    var upload: [UInt8]
    var uploadOffset = 0
    let maxResponseBytes: Int
    var body: [UInt8] = []
    var responseTooLarge = false
    var headers: [OutboundHTTPHeader] = []
    var lastServerReply: String?

    init(cancellation: CurlCancellation, upload: [UInt8], maxResponseBytes: Int) {
        self.cancellation = cancellation
        self.upload = upload
        self.maxResponseBytes = maxResponseBytes
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> CurlTransferState {
        Unmanaged<CurlTransferState>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// CURLOPT_READFUNCTION: hands libcurl the next piece of the upload; 0 means the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, upload.count - uploadOffset)
        guard count > 0 else { return 0 }
        upload.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + uploadOffset, byteCount: count)
        }
        uploadOffset += count
        return count
    }

    /// CURLOPT_WRITEFUNCTION: keeps the body up to the cap. Returning less than given makes libcurl stop with
    /// CURLE_WRITE_ERROR, which is how a body without Content-Length is cut off.
    func write(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        guard body.count + count <= maxResponseBytes else {
            responseTooLarge = true
            return 0
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: count))
        return count
    }

    /// CURLOPT_HEADERFUNCTION: one header line at a time. A new status line (after a redirect or a 100 Continue)
    /// starts the list again, so the headers are the final response's.
    func header(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: count), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            headers.append(OutboundHTTPHeader(name: name, value: value))
        }
        return count
    }

    /// CURLOPT_DEBUGFUNCTION, CURLINFO_HEADER_IN only: the SMTP server's last 4xx or 5xx line, for the error reason
    /// (the last line of all is usually "221 Bye" to libcurl's QUIT). Only the server's lines are looked at; our own
    /// (AUTH with the password, the message) are never read here.
    func serverSaid(_ buffer: UnsafeMutablePointer<CChar>, count: Int) {
        let bytes = UnsafeRawBufferPointer(start: buffer, count: min(count, 512))
        guard let first = bytes.first, first == UInt8(ascii: "4") || first == UInt8(ascii: "5") else { return }
        let printable = bytes.filter { $0 >= 0x20 && $0 < 0x7F }
        lastServerReply = String(decoding: printable.prefix(200), as: UTF8.self)
    }
}
