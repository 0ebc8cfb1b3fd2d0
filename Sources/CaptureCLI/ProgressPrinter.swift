import Foundation

/// Progress of a long import or pull on stderr: on a terminal one line redrawn in place (records, rate, and the time
/// left when the total is known), at most ten times a second; otherwise a plain line every `plainEvery` seconds, so a
/// log shows signs of life without filling up (a run shorter than that prints none). Stdout keeps only the summary.
final class ProgressPrinter {
    private let label: String
    private let isTerminal: Bool
    private let plainEvery: TimeInterval
    private let started = Date()
    private var lastPrint = Date()
    var total: Int?

    init(label: String, total: Int? = nil, plainEvery: TimeInterval = 10) {
        self.label = label
        self.total = total
        self.plainEvery = plainEvery
        isTerminal = isatty(STDERR_FILENO) == 1
    }

    /// `done` records so far; `note` (a failure count, the last id) goes at the end of the line.
    func update(_ done: Int, note: String = "") {
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= (isTerminal ? 0.1 : plainEvery) else { return }
        lastPrint = now
        write(line(done, at: now, note: note))
    }

    /// On a terminal, the last figures and the line ended (plain output has had its lines).
    func finish(_ done: Int, note: String = "") {
        guard isTerminal else { return }
        write(line(done, at: Date(), note: note))
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func line(_ done: Int, at now: Date, note: String) -> String {
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(done) / elapsed
        var text = "\(done)"
        if let total { text += "/\(total)" }
        text += " \(label), \(Int(rate.rounded()))/s, \(Self.clock(elapsed)) elapsed"
        if let total, rate > 0, total > done { text += ", about \(Self.clock(Double(total - done) / rate)) left" }
        if !note.isEmpty { text += ", " + note }
        return text
    }

    private func write(_ text: String) {
        if isTerminal {
            // Back to the line's start and clear it: the line is drawn anew in place.
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    static func clock(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
