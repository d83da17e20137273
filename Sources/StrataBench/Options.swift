/// Command-line options, parsed by hand from `CommandLine.arguments`.
import Foundation

/// What to run and how.
struct Options {
    /// Number of notes per benchmark (`--objects N`).
    var objects = 100_000
    /// Save every `batch` objects in the context import; 0 = one save (`--batch B`).
    var batch = 0
    /// Repetitions of each measurement (`--runs R`).
    var runs = 3
    /// Print one JSON object per line instead of a table (`--json`).
    var json = false
    /// Run only the benchmarks whose name contains one of these (`--only a,b`); empty = all.
    var only: [String] = []

    static let usage = """
        usage: StrataBench [--objects N] [--batch B] [--runs R] [--only NAME[,NAME…]] [--json]
          --only takes: raw-insert, raw-read, engine-insert, engine-batch-insert, engine-fetch, engine-fetch-batched
        """

    /// Parses `arguments` (without the program name), or exits with the usage.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func number(after flag: String) -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value >= 0 else { fail("\(flag) needs a number\n\(usage)") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--objects": options.objects = number(after: argument)
            case "--batch": options.batch = number(after: argument)
            case "--runs": options.runs = max(1, number(after: argument))
            case "--json": options.json = true
            case "--only":
                guard let list = rest.popFirst() else { fail("--only needs names\n\(usage)") }
                options.only = list.split(separator: ",").map(String.init)
            case "--help", "-h":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)\n\(usage)")
            }
        }
        if options.objects == 0 { fail("--objects must be at least 1") }
        return options
    }

    /// Whether the benchmark called `name` should run.
    func runs(_ name: String) -> Bool { only.isEmpty || only.contains(name) }
}
