import Foundation

// The seed app: Ensembles' sample (a list of entities with add, edit, delete, and sync that
// can be enabled, disabled, reset from the cloud or deleted) rebuilt on Strata.
//
//   swift run SeedApp --demo                               a scripted two-device session, checked
//   swift run SeedApp --store DIR --cloud DIR              type commands (help lists them);
//                                                          run two with one --cloud for two devices
let arguments = CommandLine.arguments.dropFirst()

func value(of option: String) -> String? {
    guard let index = arguments.firstIndex(of: option), arguments.index(after: index) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: index)]
}

if arguments.contains("--demo") {
    do {
        try await SeedDemo.run { print($0) }
        print("demo: every list matched")
    } catch {
        print("demo failed: \(error)")
        exit(1)
    }
} else if let store = value(of: "--store"), let cloud = value(of: "--cloud") {
    let stack = try await SeedStack(storeDirectory: URL(filePath: store), cloudDirectory: URL(filePath: cloud))
    print(SeedCommand.usage)
    while true {
        print("> ", terminator: "")
        guard let line = readLine() else { break }
        do {
            let command = try SeedCommand(parsing: line)
            print(try await command.run(on: stack))
            if command == .quit { break }
        } catch {
            print("error: \(error)")
        }
    }
} else {
    print("usage: SeedApp --demo | SeedApp --store DIR --cloud DIR")
    exit(2)
}
