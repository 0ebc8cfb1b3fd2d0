import CoreMetrics
import Foundation
import Synchronization

/// A swift-metrics factory that keeps the last value each gauge recorded, by label; everything else is dropped.
final class RecordingMetrics: MetricsFactory {
    private let gauges = Mutex<[String: Double]>([:])

    func gauge(_ label: String) -> Double? { gauges.withLock { $0[label] } }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Ignored() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Ignored() }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Gauge(label: label, owner: self)
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    private final class Ignored: CounterHandler, TimerHandler {
        func increment(by: Int64) {}
        func reset() {}
        func recordNanoseconds(_ duration: Int64) {}
    }

    private final class Gauge: RecorderHandler {
        let label: String
        let owner: RecordingMetrics

        init(label: String, owner: RecordingMetrics) {
            self.label = label
            self.owner = owner
        }

        func record(_ value: Int64) { record(Double(value)) }
        func record(_ value: Double) { owner.gauges.withLock { $0[label] = value } }
    }
}
