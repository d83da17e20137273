import Foundation

/// The owner of ``KeyPathProbe``'s probe objects: it records every property read, answers an
/// attribute read with a recognisable value (``sentinel(_:round:)``) and a relationship read
/// with fresh probes of the destination class (one for a to-one, `round + 1` for a to-many,
/// so that a `count` is recognised too). Lives for one probe, on one thread.
final class KeyPathProbeRecorder: ObjectOwner {
    /// One read through a wrapper.
    struct Touch {
        enum Kind {
            case attribute(AttributeType)
            case toOne(ManagedObject)
            case toMany([ManagedObject])
        }
        var object: ObjectIdentifier
        var key: String
        var kind: Kind
    }

    /// 0 or 1: which ``sentinel(_:round:)`` attributes answer.
    let round: Int
    private(set) var touches: [Touch] = []
    /// Every probe made, kept alive while the key path is read (objects hold their owner weakly).
    private var probes: [ManagedObject] = []

    init(round: Int) { self.round = round }

    /// A probe object of `type`: no values, every relationship unloaded, owned by `self`.
    func makeProbe(_ type: ManagedObject.Type) throws(StrataError) -> ManagedObject {
        let entity = try KeyPathProbe.probeEntity(type)
        // No construction may be installed: the wrappers must find their slots in the probe entity.
        let object = ObjectConstruction.outside { type.init(ObjectCreation(
            objectID: ObjectID(entity: entity, key: Int64(probes.count), isTemporary: true),
            attributeValues: [], relationValues: Array(repeating: .unloaded, count: entity.relationships.count), isFault: false)) }
        object.setOwner(self)
        probes.append(object)
        return object
    }

    func valueOfMissingAttribute(_ object: ManagedObject, at index: Int) -> PropertyValue {
        guard index >= 0, index < object.entity.attributes.count else { return .null }
        let attribute = object.entity.attributes[index]
        touches.append(Touch(object: ObjectIdentifier(object), key: attribute.name, kind: .attribute(attribute.type)))
        return Self.sentinel(attribute.type, round: round) ?? .null
    }

    func loadToMany(_ object: ManagedObject, relationship: Int) -> [ManagedObject] {
        guard relationship >= 0, relationship < object.entity.relationships.count else { return [] }
        let description = object.entity.relationships[relationship]
        let destination = object.entity.relationshipConversions[relationship]?.destination ?? ManagedObject.self
        var children: [ManagedObject] = []
        let count = description.isToMany ? round + 1 : 1
        for _ in 0..<count {
            guard let child = try? makeProbe(destination) else { break }
            children.append(child)
        }
        let kind: Touch.Kind = description.isToMany ? .toMany(children) : children.first.map { .toOne($0) } ?? .toMany([])
        touches.append(Touch(object: ObjectIdentifier(object), key: description.name, kind: kind))
        return children
    }

    func resolve(_ id: ObjectID) -> ManagedObject {
        // Probes hold no object IDs in their relationships; a plain object stands in.
        ManagedObject(ObjectCreation(objectID: id, attributeValues: [], relationValues: [], isFault: false))
    }

    func checkAccess(_ object: ManagedObject) {}
    func fireFault(_ object: ManagedObject) {}
    func objectWillChange(_ object: ManagedObject) {}
    func willChangeForUndo(_ object: ManagedObject, property: Int) {}
    func notePointer(to id: ObjectID, holder: ManagedObject, relationship: Int) {}

    /// The value a probe answers for an attribute of `type` in `round` (two rounds, two
    /// different values: a computed property rarely returns both unchanged); nil for a
    /// transformable attribute, whose value is not checked.
    static func sentinel(_ type: AttributeType, round: Int) -> PropertyValue? {
        let first = round == 0
        switch type {
        case .string: return .string(first ? "ŝtrata probe" : "PROBE-B")
        case .int16, .int32, .int64: return .integer(first ? 3 : -5)
        case .double: return .double(first ? 2.5 : -7.25)
        case .bool: return .bool(first)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: first ? 123_456.5 : -98_765.25))
        case .data: return .data(Data(first ? [1, 2, 3] : [9]))
        case .uuid: return .uuid(UUID(uuid: first ? (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16) : (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)))
        case .url: return .url(URL(fileURLWithPath: first ? "/strata/probe-a" : "/strata/probe-b"))
        case .decimal: return .decimal(Decimal(first ? 2.5 : -7.25))
        case .transformable: return nil
        }
    }
}
