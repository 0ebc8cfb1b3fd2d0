import Foundation

/// Wall-clock bounds a test measures (how soon another instance sees a revocation, how soon a silent listener is given
/// up) hold on a machine that runs nothing else. `make test` runs two lanes side by side on two cores, where a second
/// of wall time says nothing about the behaviour: there a test waits for the behaviour itself (`patience`, generous)
/// and prints the times it took. `make bench` runs the same tests with `CAPTURE_TEST_TIMING=1` (`bounded`), which
/// holds those times to their bounds too.
public enum TestTiming {
    /// Whether measured times are held to their bounds (`make bench`).
    public static var bounded: Bool { ProcessInfo.processInfo.environment["CAPTURE_TEST_TIMING"] == "1" }

    /// How long a test waits for behaviour that comes within a second or a few on a quiet machine.
    public static let patience = Duration.seconds(60)
}
