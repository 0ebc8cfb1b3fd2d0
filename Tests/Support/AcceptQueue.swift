import Foundation

/// The connections waiting to be accepted on a listening loopback socket, as the kernel counts them: for a socket in
/// LISTEN, /proc/net/tcp's `rx_queue` is its accept queue's length. A test sees a client's handshake done and the
/// connection not (yet) taken by the server, without timing anything.
public enum AcceptQueue {
    /// The accept queue's length of the socket listening on `port`, or nil if none listens there.
    public static func length(port: Int) -> Int? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // local_address (…:PORT in hex), rem_address, st (0A: listening), tx_queue:rx_queue
                guard fields.count > 4, fields[3] == "0A", fields[1].hasSuffix(String(format: ":%04X", port)),
                    let queued = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                return queued
            }
        }
        return nil
    }

    /// Whether the accept queue on `port` holds `count` connections within a minute, asked every 10 ms.
    public static func reaches(_ count: Int, port: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if length(port: port) == count { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return length(port: port) == count
    }
}
