import Synchronization

/// The series of one metric already made, by their labels. A factory finds a series by its name and labels on
/// every make (a lock, the labels hashed, a status turned into text first), so the series every request records into
/// are made once and kept. At most `capacity` are kept: past it a series is made each time, as before.
final class MadeSeries<Labels: Hashable & Sendable, Series: Sendable>: Sendable {
    private let made = Mutex<[Labels: Series]>([:])
    private let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    func series(_ labels: Labels, make: () -> Series) -> Series {
        if let series = made.withLock({ $0[labels] }) { return series }
        let series = make()
        return made.withLock { made in
            if let kept = made[labels] { return kept }
            if made.count < capacity { made[labels] = series }
            return series
        }
    }
}
