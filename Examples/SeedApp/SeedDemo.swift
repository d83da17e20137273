import Foundation

/// A scripted session of two devices sharing one cloud folder, checking after each step what
/// each device lists: the seed app's scenarios (enable, add, edit, delete, disable, resync,
/// wipe) without a person at the keyboard. CI runs it; it fails loudly when a list is wrong.
enum SeedDemo {
    struct Step {
        var device: Int
        var command: String
        /// What the device lists afterwards (names, oldest first), when checked.
        var expect: [String]?
        /// Text the command's output must contain, when checked.
        var says: String? = nil
    }

    static let steps: [Step] = [
        Step(device: 0, command: "add Apple red and round", expect: ["Apple"]),
        Step(device: 0, command: "enable", expect: ["Apple"]),
        Step(device: 1, command: "add Banana", expect: ["Banana"]),
        Step(device: 1, command: "enable", expect: ["Apple", "Banana"]),
        Step(device: 0, command: "sync", expect: ["Apple", "Banana"]),
        Step(device: 0, command: "rename 2 Blueberry", expect: ["Apple", "Blueberry"]),
        Step(device: 1, command: "sync", expect: ["Apple", "Blueberry"]),
        Step(device: 1, command: "delete 1", expect: ["Blueberry"]),
        Step(device: 0, command: "sync", expect: ["Blueberry"]),
        Step(device: 1, command: "disable", expect: ["Blueberry"]),
        Step(device: 1, command: "add Cherry", expect: ["Blueberry", "Cherry"]),
        Step(device: 0, command: "sync", expect: ["Blueberry"]),
        Step(device: 1, command: "resync", expect: ["Blueberry"]),
        Step(device: 0, command: "wipe", expect: []),
        Step(device: 1, command: "sync", expect: ["Blueberry"], says: "cloudIdentityChanged"),   // the ensemble is gone: forced detach
        Step(device: 1, command: "status", expect: ["Blueberry"], says: "sync is off"),
    ]

    /// Runs the steps in a temporary folder; returns the transcript, or throws at the first
    /// list that differs from what the step expects.
    static func run(log: (String) -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "strata-seed-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cloud = root.appending(path: "cloud")
        let devices = [
            try await SeedStack(storeDirectory: root.appending(path: "device-1"), cloudDirectory: cloud),
            try await SeedStack(storeDirectory: root.appending(path: "device-2"), cloudDirectory: cloud),
        ]
        for step in steps {
            let output: String
            do {
                output = try await SeedCommand(parsing: step.command).run(on: devices[step.device])
            } catch {
                output = "error: \(error)"
            }
            log("device \(step.device + 1)> \(step.command)\n  \(output.replacingOccurrences(of: "\n", with: "\n  "))")
            if let says = step.says, !output.contains(says) {
                throw SeedError("after \"\(step.command)\" device \(step.device + 1) said \"\(output)\", expected it to say \"\(says)\"")
            }
            guard let expected = step.expect else { continue }
            let listed = try await devices[step.device].fetchEntities().map(\.name)
            log("  lists: \(listed.isEmpty ? "(nothing)" : listed.joined(separator: ", "))")
            guard listed == expected else {
                throw SeedError("after \"\(step.command)\" device \(step.device + 1) lists \(listed), expected \(expected)")
            }
        }
    }
}
