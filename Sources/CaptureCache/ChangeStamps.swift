import Atomics
import Foundation
import Synchronization

/// When rows last changed, shared by every process that opens the same database file: a small file beside it
/// (`<database>-changes`), mapped into memory, that the token-check cache consults on every hit at the cost of a
/// few memory reads, where asking the database would cost what the lookup it saves costs.
///
/// The file holds a generation counter and a table of stamps. A write transaction that updates or deletes a row of
/// `tokens` or `users` (`ChangeRecorder`) takes the next generation and writes it into that row's stamp; a change to
/// `clients`, or too many rows at once, into the stamp of everything. A cache entry remembers the generation read
/// before its row was read, and is good only while neither its rows' stamps nor everything's are newer. Rows share
/// stamps by hash: a collision only sends a check to the database once more.
///
/// Order makes it exact: a writer stamps after its commit (and once before, in case it dies in between); a reader
/// reads the generation before it reads the rows. A stamp that a writer took before a reader read the generation
/// belongs to a commit the reader's read already sees; a later one is newer than the reader's generation.
///
/// On PostgreSQL (`inMemory`) the stamps are the process's own: its listener writes what the change notices name,
/// and `suspend` makes everything stale while it cannot hear them.
///
/// `@unchecked Sendable`: the mapping is fixed for the object's life and only ever read and written through atomics.
public final class ChangeStamps: @unchecked Sendable {
    /// What a stamp stands for.
    public enum Subject: Hashable, Sendable {
        case token(rowID: Int64)
        case user(rowID: Int64)
        /// Clients, or more rows than are worth stamping one by one: every cached entry.
        case everything
    }

    static let slotCount = 1 << 18
    private static let headerWords = 2  // a format mark, then the generation
    private static let format: UInt64 = 0x6361_7074_7572_6531  // "capture1"

    private let base: UnsafeMutableRawPointer
    private let byteCount: Int

    /// The stamps of the database file at `databasePath`, one mapping per process and file.
    public static func forDatabase(at databasePath: String) throws -> ChangeStamps {
        // Beside the file SQLite opens: a database reached through a symbolic link has its stamps where the file is.
        let database = URL(fileURLWithPath: databasePath).standardizedFileURL
        let file = FileManager.default.fileExists(atPath: database.path) ? database.resolvingSymlinksInPath() : database
        let path = file.path + "-changes"
        return try opened.withLock { opened in
            if let stamps = opened[path] { return stamps }
            let stamps = try ChangeStamps(path: path)
            opened[path] = stamps
            return stamps
        }
    }

    private static let opened = Mutex<[String: ChangeStamps]>([:])

    /// Stamps no other process sees: 2 MiB of anonymous memory, all zeros.
    public static func inMemory() -> ChangeStamps {
        let byteCount = (headerWords + slotCount) * MemoryLayout<UInt64>.stride
        let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { fatalError("mmap of \(byteCount) bytes failed: \(errno)") }
        return ChangeStamps(base: mapped, byteCount: byteCount)
    }

    private init(base: UnsafeMutableRawPointer, byteCount: Int) {
        self.base = base
        self.byteCount = byteCount
        word(0).store(Self.format, ordering: .relaxed)
    }

    /// A mapping of its own (`forDatabase` shares one per process; tests map a file twice, as two processes do).
    convenience init(path: String) throws {
        let byteCount = (Self.headerWords + Self.slotCount) * MemoryLayout<UInt64>.stride
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(path: path, call: "open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(path: path, call: "fstat") }
        // A new file is all zeros: generation 0, nothing stamped. Growing it never loses a stamp.
        if Int(status.st_size) < byteCount, ftruncate(descriptor, off_t(byteCount)) != 0 {
            throw Failure(path: path, call: "ftruncate")
        }
        guard let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else { throw Failure(path: path, call: "mmap") }
        self.init(base: mapped, byteCount: byteCount)
    }

    deinit { munmap(base, byteCount) }

    struct Failure: Error, CustomStringConvertible {
        let path: String
        let call: String
        var description: String { "\(call) of \(path) failed: \(String(cString: strerror(errno)))" }
    }

    private func word(_ index: Int) -> UnsafeAtomic<UInt64> {
        UnsafeAtomic(at: base.assumingMemoryBound(to: UInt64.AtomicRepresentation.self) + index)
    }

    /// The generation now: read it before reading what will be cached.
    public var generation: UInt64 { word(1).load(ordering: .acquiring) }

    /// The generation in which `subject` last changed (0: never, or not since the file was made).
    public func stamp(of subject: Subject) -> UInt64 {
        word(Self.headerWords + Self.slot(of: subject)).load(ordering: .acquiring)
    }

    /// Stamps every subject with one new generation.
    public func changed(_ subjects: some Sequence<Subject>) {
        let generation = word(1).loadThenWrappingIncrement(by: 1, ordering: .acquiringAndReleasing) + 1
        for subject in subjects {
            let stamp = word(Self.headerWords + Self.slot(of: subject))
            var current = stamp.load(ordering: .relaxed)
            // Two processes may stamp the same slot at once: the newer generation must win.
            while current < generation {
                let (exchanged, original) = stamp.weakCompareExchange(
                    expected: current, desired: generation, successOrdering: .releasing, failureOrdering: .relaxed)
                if exchanged { break }
                current = original
            }
        }
    }

    /// Makes every entry stale until `resume`: whoever cannot hear changes any more must not answer from memory.
    public func suspend() {
        word(Self.headerWords).store(.max, ordering: .releasing)
    }

    /// Stamps everything with a new generation, ending a `suspend`: what was kept before is stale, what is kept from
    /// now on is good while its rows' stamps stay older.
    public func resume() {
        let generation = word(1).loadThenWrappingIncrement(by: 1, ordering: .acquiringAndReleasing) + 1
        let stamp = word(Self.headerWords)
        var current = stamp.load(ordering: .relaxed)
        while current == .max || current < generation {
            let (exchanged, original) = stamp.weakCompareExchange(
                expected: current, desired: generation, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    /// Everything has slot 0; rows hash into the others.
    static func slot(of subject: Subject) -> Int {
        let mixed: UInt64
        switch subject {
        case .everything: return 0
        case .token(let rowID): mixed = mix(UInt64(bitPattern: rowID) &* 2)
        case .user(let rowID): mixed = mix(UInt64(bitPattern: rowID) &* 2 &+ 1)
        }
        return 1 + Int(mixed % UInt64(slotCount - 1))
    }

    /// SplitMix64's finalizer: neighbouring row ids land far apart.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
