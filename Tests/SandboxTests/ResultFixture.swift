import Foundation
import SandboxKit

/// Run results with chosen figures, for tests of what is computed from them (repeats,
/// comparisons, charts) without running anything.
///
/// For example:
/// ```swift
/// let result = ResultFixture.result("import", stack: "hybrid", rate: 50_000)
/// ```
enum ResultFixture {
    /// A result whose other figures are small plausible values.
    static func result(_ scenario: String, variant: String? = nil, stack: String, objects: Int = 1000, rate: Double = 10_000,
                       ratio: Double = 0.1, busyShare: Double = 0.05, maxStallMs: Double = 5, peakMB: Double = 100,
                       check: String = "ok") -> RunResult {
        var object: [String: Any] = [
            "stack": stack, "scenario": scenario, "objects": objects, "batch": 100,
            "wallSeconds": Double(objects) / rate, "objectsPerSecond": rate, "rawObjectsPerSecond": rate / ratio, "ratioToRaw": ratio,
            "mainBusySeconds": busyShare * Double(objects) / rate, "mainBusyShare": busyShare, "heartbeats": 100,
            "stallP50Ms": 0.01, "stallP99Ms": 1.0, "stallMaxMs": maxStallMs, "stallsOver16Ms": maxStallMs >= 16.7 ? 1 : 0,
            "stallsOver100Ms": 0, "stallsOver250Ms": 0, "peakRSSBytes": Int(peakMB * 1_048_576), "rssAtStartBytes": 10_485_760,
            "peakRSSScope": "run", "registeredInMain": 50, "mergesIntoMain": 3, "mainChangeSets": 3, "mainQueueWrites": 0,
            "check": check, "detail": "", "counters": ["authors": 10],
        ]
        if let variant { object["variant"] = variant }
        let data = try! JSONSerialization.data(withJSONObject: object)   // a literal dictionary: cannot fail
        return try! JSONDecoder().decode(RunResult.self, from: data)
    }
}
