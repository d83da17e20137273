/// One line typed at the seed app's prompt.
///
/// ```text
/// add NAME [DESCRIPTION]   rename N NAME   delete N   list   sync
/// enable   disable   resync (delete local data, fill again from the cloud)
/// wipe (delete local and remote)   status   help   quit
/// ```
enum SeedCommand: Equatable {
    case add(name: String, descText: String)
    case rename(index: Int, name: String)
    case delete(index: Int)
    case list, sync, enable, disable, resync, wipe, status, help, quit

    static let usage = """
        add NAME [DESCRIPTION]  add an entity         rename N NAME  rename entity N
        delete N                delete entity N       list           show the entities
        sync                    sync now              status         is sync on?
        enable / disable        turn sync on / off    resync         delete local data, fill again from the cloud
        wipe                    delete local and remote data        quit
        """

    /// Parses `line`; throws a `SeedError` that says what is wrong.
    init(parsing line: String) throws(SeedError) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first?.lowercased() else { throw SeedError("type a command (help lists them)") }
        func index(_ position: Int) throws(SeedError) -> Int {
            guard words.count > position, let n = Int(words[position]), n >= 1 else { throw SeedError("\(verb) needs an entity number (1, 2, …)") }
            return n - 1
        }
        switch verb {
        case "add":
            guard words.count >= 2 else { throw SeedError("add needs a name") }
            self = .add(name: words[1], descText: words.dropFirst(2).joined(separator: " "))
        case "rename":
            let n = try index(1)
            guard words.count >= 3 else { throw SeedError("rename needs a new name") }
            self = .rename(index: n, name: words.dropFirst(2).joined(separator: " "))
        case "delete": self = .delete(index: try index(1))
        case "list": self = .list
        case "sync": self = .sync
        case "enable": self = .enable
        case "disable": self = .disable
        case "resync": self = .resync
        case "wipe": self = .wipe
        case "status": self = .status
        case "help": self = .help
        case "quit", "exit": self = .quit
        default: throw SeedError("unknown command \(verb) (help lists them)")
        }
    }

    /// Runs the command on `stack`; returns what to print.
    func run(on stack: SeedStack) async throws -> String {
        switch self {
        case .add(let name, let descText): try await stack.add(name: name, descText: descText); return "added \(name)"
        case .rename(let index, let name): try await stack.rename(at: index, to: name); return "renamed \(index + 1) to \(name)"
        case .delete(let index): try await stack.delete(at: index); return "deleted \(index + 1)"
        case .list:
            let entities = try await stack.fetchEntities()
            if entities.isEmpty { return "(no entities)" }
            return entities.enumerated().map { "\($0.offset + 1). \($0.element.name)\($0.element.descText.isEmpty ? "" : " — \($0.element.descText)")" }.joined(separator: "\n")
        case .sync:
            guard await stack.isSyncEnabled else { return "sync is off (enable turns it on)" }
            try await stack.syncIfEnabled(); return "synced"
        case .enable: try await stack.enableSync(); return "sync is on"
        case .disable: try await stack.disableSync(); return "sync is off"
        case .resync: try await stack.deleteLocalAndResync(); return "local data replaced by the cloud's"
        case .wipe: try await stack.deleteLocalAndRemote(); return "local and remote data deleted; sync is off"
        case .status: return await stack.isSyncEnabled ? "sync is on" : "sync is off"
        case .help: return Self.usage
        case .quit: return "bye"
        }
    }
}
