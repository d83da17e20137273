import Foundation

/// Maps a Swift key path of a managed object class (`\Note.title`, `\Note.folder?.name`) to
/// the model keys it reads (`["title"]`, `["folder", "name"]`).
///
/// It reads the key path on probe objects made without a context, whose owner
/// (``KeyPathProbeRecorder``) records which `@Attribute` or `@Relationship` each read went
/// through, answers each attribute read with a recognisable value and each relationship read
/// with another probe. A key path is accepted when its reads form one chain of to-ones ending
/// on one property and it returns exactly what that property held, in two rounds with
/// different values, and has an optional value when it goes through a to-one: so a computed property
/// (`var shout: String { title.uppercased() }`), a plain stored property or a method's result
/// is refused. Answers are cached per key path.
enum KeyPathProbe {
    private static let cache = KeyPathCache()

    /// The model key path `keyPath` (rooted at `root`) reads; throws `.unsupportedPredicate`
    /// naming the key path when it is not a modelled property.
    static func modelKeyPath(_ keyPath: AnyKeyPath, root: ManagedObject.Type) throws(StrataError) -> ModelKeyPath {
        if let known = cache.keyPath(keyPath) { return known }
        let first = try probe(keyPath, root: root, round: 0)
        let second = try probe(keyPath, root: root, round: 1)
        guard first == second else { throw notModelled(keyPath, root, "it reads different properties on different values") }
        let ownKeys = first.terminal == .count ? 2 : 1   // the keys of the last object read
        if first.terminal == .object || first.keys.count > ownKeys {
            // Through a to-one: a nil on the way must give nil, as the predicate's key path does,
            // so the value must be optional (`holder?.name ?? ""` is not `holder.name`). Checked
            // on the type: a getter is never run with a nil to-one, which could trap in it.
            guard type(of: keyPath).valueType is any OptionalProbeBox.Type else {
                throw notModelled(keyPath, root, "its value is not optional, so it cannot be nil when the relationship \"\(first.keys[0])\" is nil")
            }
        }
        cache.setKeyPath(keyPath, first)
        return first
    }

    /// The probe entity of a class: its attributes and relationships as its wrappers declare
    /// them (no model needed), cached per class.
    static func probeEntity(_ type: ManagedObject.Type) throws(StrataError) -> EntityDescription {
        if let known = cache.entity(type) { return known }
        let spec: EntitySpec
        do { spec = try ObjectConstruction.outside { () throws(StrataError) in try EntitySpec(describing: type) } } catch {
            throw StrataError(.unsupportedPredicate, "\(type) declares no @Attribute or @Relationship, so its key paths name no model keys.",
                              entity: type.entityName, underlying: error)
        }
        let entity = EntityDescription(
            name: spec.name, attributes: spec.attributes, relationships: spec.relationships, managedClass: type, index: -1,
            attributeConversions: spec.attributeConversions, relationshipConversions: spec.relationshipConversions)
        cache.setEntity(type, entity)
        return entity
    }

    private static func probe(_ keyPath: AnyKeyPath, root: ManagedObject.Type, round: Int) throws(StrataError) -> ModelKeyPath {
        let recorder = KeyPathProbeRecorder(round: round)
        let object = try recorder.makeProbe(root)
        let value = withExtendedLifetime(recorder) { ObjectConstruction.outside { object[keyPath: keyPath] } }
        guard let value else { throw notModelled(keyPath, root, "its root is not \(root)") }
        // The reads must form one chain: each read on the probe the previous one returned.
        var keys: [String] = []
        var current = ObjectIdentifier(object)
        var terminal: ProbeEnd?
        var returned: [ManagedObject] = []
        for touch in recorder.touches {
            guard terminal == nil, touch.object == current else {
                throw notModelled(keyPath, root, "it reads more than one property (a computed property?)")
            }
            keys.append(touch.key)
            switch touch.kind {
            case .attribute(let type): terminal = .attribute(type)
            case .toOne(let child): current = ObjectIdentifier(child); returned = [child]
            case .toMany(let children): terminal = .toMany; returned = children
            }
        }
        guard !keys.isEmpty else { throw notModelled(keyPath, root, "it reads no @Attribute or @Relationship") }
        let result = unwrapped(value)
        switch terminal {
        case .attribute(let type)?:
            // A value that converts must be the very value the probe answered.
            if let sentinel = KeyPathProbeRecorder.sentinel(type, round: round),
               let converted = (result as? any PredicateArgumentConvertible)?.predicateArgument,
               converted != sentinel {
                throw notModelled(keyPath, root, "it does not return the attribute \"\(keys.joined(separator: "."))\" as stored")
            }
            return ModelKeyPath(keys: keys, terminal: .attribute(type))
        case .toMany?:
            if let count = result as? Int, count == returned.count { return ModelKeyPath(keys: keys + ["@count"], terminal: .count) }
            guard let collection = result as? any Collection, collection.count == returned.count else {
                throw notModelled(keyPath, root, "it does not return the relationship \"\(keys.joined(separator: "."))\" as stored")
            }
            return ModelKeyPath(keys: keys, terminal: .toMany)
        case nil:
            guard let target = result as? ManagedObject, returned.count == 1, target === returned[0] else {
                throw notModelled(keyPath, root, "it does not return the relationship \"\(keys.joined(separator: "."))\" as stored")
            }
            return ModelKeyPath(keys: keys, terminal: .object)
        }
    }

    /// Looks through any number of `Optional` layers.
    private static func unwrapped(_ value: Any) -> Any? {
        if let optional = value as? any OptionalProbeBox { return optional.probeBoxed.flatMap(unwrapped) }
        return value
    }

    static func notModelled(_ keyPath: AnyKeyPath, _ root: ManagedObject.Type, _ why: String) -> StrataError {
        StrataError(.unsupportedPredicate, "The key path \(keyPath) of \(root) is not a modelled property: \(why).",
                    entity: root.entityName)
    }
}

/// Where a probe's chain of reads ended.
private enum ProbeEnd { case attribute(AttributeType), toMany }

/// Lets ``KeyPathProbe`` see inside an `Optional` stored in an `Any`.
private protocol OptionalProbeBox { var probeBoxed: Any? { get } }
extension Optional: OptionalProbeBox {
    fileprivate var probeBoxed: Any? { self.map { $0 } }
}

/// The answers of ``KeyPathProbe``: model key paths by Swift key path, probe entities by class.
private final class KeyPathCache: @unchecked Sendable {  // safe: both tables only under `lock`; key paths are immutable
    private let lock = NSLock()
    private var keyPaths: [AnyKeyPath: ModelKeyPath] = [:]
    private var entities: [ObjectIdentifier: EntityDescription] = [:]

    func keyPath(_ keyPath: AnyKeyPath) -> ModelKeyPath? { lock.withLock { keyPaths[keyPath] } }
    func setKeyPath(_ keyPath: AnyKeyPath, _ model: ModelKeyPath) { lock.withLock { keyPaths[keyPath] = model } }
    func entity(_ type: ManagedObject.Type) -> EntityDescription? { lock.withLock { entities[ObjectIdentifier(type)] } }
    func setEntity(_ type: ManagedObject.Type, _ entity: EntityDescription) { lock.withLock { entities[ObjectIdentifier(type)] = entity } }
}
