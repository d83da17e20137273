import Foundation
import Strata
@testable import StrataSync

/// A cloud that forwards every call to another one and keeps a copy of every change file an
/// upload *wrote* (it returned, or failed after its effect): what the peers exported, as the
/// oracle sees it. Partial uploads keep the bytes the peer meant to write.
final class RecordingCloud: CloudFileSystem {
    let inner: any CloudFileSystem
    private let written = Locked<[String: Data]>([:])

    init(_ inner: any CloudFileSystem) { self.inner = inner }

    /// Every change file written, by path.
    var files: [String: Data] { written.withLock { $0 } }

    var limits: CloudLimits { inner.limits }
    func connect() async throws { try await inner.connect() }
    func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) { try await inner.fileExists(at: path) }
    func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] { try await inner.contentsOfDirectory(at: path) }
    func createDirectory(at path: CloudPath) async throws { try await inner.createDirectory(at: path) }
    func download(from path: CloudPath) async throws -> Data { try await inner.download(from: path) }
    func removeItem(at path: CloudPath) async throws { try await inner.removeItem(at: path) }

    func upload(_ data: Data, to path: CloudPath) async throws {
        let record = { if path.rawValue.hasSuffix(".strata") { self.written.withLock { $0[path.rawValue] = data } } }
        do {
            try await inner.upload(data, to: path)
            record()
        } catch let error as SyncError {
            if (error.underlying as? InjectedFault)?.tookEffect == true { record() }
            throw error
        }
    }
}

/// An independent implementation of docs/sync.md's merge rules over the records of a set of
/// change files, rendered as ``Ensemble/canonicalDump()`` renders a store: what every peer
/// must hold after a quiescent round.
///
/// It folds every record by stamp (rule 3: per property; rule 5: per member; rule 6: an
/// object exists when its latest insert is newer than its latest delete), then reads
/// references to objects that do not exist as none (rule 7) and fills both sides of every
/// relationship from the side the records name.
struct SyncOracle {
    private var inserts: [GlobalObjectKey: Stamp] = [:]
    private var deletes: [GlobalObjectKey: Stamp] = [:]
    private var cells: [GlobalObjectKey: [String: (Stamp, [UInt8])]] = [:]
    private var members: [GlobalObjectKey: [String: [String: (Stamp, Bool)]]] = [:]
    /// Files that did not decode (the oracle's input should hold none).
    private(set) var undecodable: [String] = []

    init(files: [String: Data]) {
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            do {
                let file = try ChangeFile.decode(data)
                add(try EventPayload.decode(file.payload, file: path).records)
            } catch {
                undecodable.append("\(path): \(error)")
            }
        }
    }

    mutating func add(_ records: [StampedRecord]) {
        for stamped in records {
            let s = stamped.stamp
            switch stamped.record {
            case .insert(let key): if inserts[key].map({ $0 < s }) ?? true { inserts[key] = s }
            case .delete(let key): if deletes[key].map({ $0 < s }) ?? true { deletes[key] = s }
            case .cell(let key, let property, let value):
                if cells[key]?[property].map({ $0.0 < s }) ?? true { cells[key, default: [:]][property] = (s, value) }
            case .member(let key, let relationship, let member, let present):
                if members[key]?[relationship]?[member].map({ $0.0 < s }) ?? true {
                    members[key, default: [:]][relationship, default: [:]][member] = (s, present)
                }
            }
        }
    }

    func exists(_ key: GlobalObjectKey) -> Bool {
        guard let inserted = inserts[key] else { return false }
        return deletes[key].map { $0 < inserted } ?? true
    }

    /// The existing objects, by entity.
    var objects: [GlobalObjectKey] { inserts.keys.filter(exists).sorted() }

    /// The winning value of an attribute of an existing object.
    func attribute(_ key: GlobalObjectKey, _ attribute: AttributeDescription) -> PropertyValue? {
        guard let bytes = cells[key]?[attribute.name]?.1, case .attribute(let value)? = CellValue.decode(bytes, attribute: attribute) else { return nil }
        return value
    }

    /// The text ``Ensemble/canonicalDump()`` must return on every peer.
    func dump(model: ObjectModel) -> String {
        // Edges from whichever side the records name, kept when both ends exist.
        var edges: [GlobalObjectKey: [String: Set<String>]] = [:]
        // A reference names the object of its identifier under the first entity, by name, of
        // the destination and the concrete entities below it where that object exists.
        func kinds(_ destination: String) -> [String] {
            func isBelow(_ entity: EntityDescription) -> Bool {
                var parent = entity.superentityName
                while let name = parent { if name == destination { return true }; parent = model.entity(named: name)?.superentityName }
                return false
            }
            let below = model.entities.filter { !$0.isAbstract && isBelow($0) }.map(\.name)
            return below.isEmpty ? [destination] : (below + (model.entity(named: destination)?.isAbstract == true ? [] : [destination])).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        func link(_ from: GlobalObjectKey, _ relationship: RelationshipDescription, _ gid: String) {
            guard exists(from), let to = kinds(relationship.destination).lazy.map({ GlobalObjectKey(entity: $0, gid: gid) }).first(where: exists) else { return }
            edges[from, default: [:]][relationship.name, default: []].insert(to.gid)
            edges[to, default: [:]][relationship.inverse, default: []].insert(from.gid)
        }
        for key in objects {
            guard let entity = model.entity(named: key.entity) else { continue }
            for relationship in entity.relationships {
                if relationship.isToMany {
                    for (member, (_, present)) in members[key]?[relationship.name] ?? [:] where present { link(key, relationship, member) }
                } else if let bytes = cells[key]?[relationship.name]?.1, case .reference(let gid?)? = CellValue.decode(bytes, attribute: nil) {
                    link(key, relationship, gid)
                }
            }
        }
        var lines: [String] = []
        for key in objects {
            guard let entity = model.entity(named: key.entity) else { continue }
            var fields: [(String, String)] = []
            for attribute in entity.attributes {
                fields.append((attribute.name, "\(self.attribute(key, attribute) ?? attribute.defaultValue)"))
            }
            for relationship in entity.relationships {
                let targets = (edges[key]?[relationship.name] ?? []).sorted()
                if relationship.isToMany {
                    fields.append((relationship.name, "[\(targets.joined(separator: ","))]"))
                } else {
                    fields.append((relationship.name, targets.first ?? "\(PropertyValue.null)"))
                }
            }
            let text = fields.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            lines.append("\(key.entity) \(key.gid) \(text)")
        }
        return lines.sorted().joined(separator: "\n")
    }
}

/// The first line where two dumps differ, for a readable failure.
func firstDifference(_ a: String, _ b: String) -> String {
    let left = a.split(separator: "\n", omittingEmptySubsequences: false), right = b.split(separator: "\n", omittingEmptySubsequences: false)
    for i in 0..<max(left.count, right.count) {
        let l = i < left.count ? String(left[i]) : "<end>", r = i < right.count ? String(right[i]) : "<end>"
        if l != r { return "line \(i + 1):\n  \(l)\n  \(r)" }
    }
    return "equal"
}
