import Foundation
import OrderedCollections

/// Key-based access, for generic code and dynamic entities.
extension ManagedObject {
    /// The value for `key` as a Swift value: `String`, `Int16/32/64`, `Double`, `Bool`, `Date`,
    /// `Data`, `UUID`, `URL`, `Decimal`, a transformable's decoded value, a `ManagedObject` for
    /// a to-one, `Set<ManagedObject>` for a to-many, `[ManagedObject]` for an ordered to-many;
    /// `nil` for nil or an unknown key.
    ///
    /// For example:
    /// ```swift
    /// let title = note.value(forKey: "title") as? String
    /// ```
    public func value(forKey key: String) -> Any? {
        switch entity.propertyIndex[key] {
        case .attribute(let i)?:
            return Self.swiftValue(attributeValue(at: i), type: entity.attributes[i].type)
        case .relationship(let i)?:
            let relationship = entity.relationships[i]
            if !relationship.isToMany { return toOne(at: i) }
            let objects = toMany(at: i)
            return relationship.isOrdered ? Array(objects) : Set(objects)
        case nil:
            return nil
        }
    }

    /// The value at a dotted key path, as Core Data's `value(forKeyPath:)` reads it: each key
    /// before the last follows a relationship. Through a to-one it gives the destination's
    /// value (`nil` when the relationship is nil); through a to-many it gives an array of the
    /// members' values (nils left out, a to-many further along flattened into it, in the
    /// relationship's order when it is ordered). `@count` as the last key counts what the path
    /// reached. An unknown key gives `nil`.
    ///
    /// For example:
    /// ```swift
    /// note.value(forKeyPath: "folder.owner.name") as? String     // "Ada"
    /// folder.value(forKeyPath: "notes.title") as? [Any]          // every note's title
    /// folder.value(forKeyPath: "notes.@count") as? Int           // 3
    /// ```
    public func value(forKeyPath keyPath: String) -> Any? {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false)[...]
        guard keys.last == "@count" else { return Self.value(at: keys, from: self) }
        switch Self.value(at: keys.dropLast(), from: self) {
        case let objects as Set<ManagedObject>: return objects.count
        case let values as [Any]: return values.count
        case nil: return 0
        default: return 1
        }
    }

    private static func value(at keys: ArraySlice<Substring>, from value: Any?) -> Any? {
        guard let key = keys.first else { return value }
        let rest = keys.dropFirst()
        switch value {
        case let object as ManagedObject:
            return Self.value(at: rest, from: object.value(forKey: String(key)))
        case let objects as Set<ManagedObject>:
            return members(objects, keys)
        case let objects as [ManagedObject]:
            return members(objects, keys)
        default:
            return nil
        }
    }

    /// Each member's value at `keys`, flattened one level (a to-many further along adds its members' values).
    private static func members(_ objects: some Sequence<ManagedObject>, _ keys: ArraySlice<Substring>) -> [Any] {
        var result: [Any] = []
        for object in objects {
            switch Self.value(at: keys, from: object) {
            case let values as [Any]: result.append(contentsOf: values)
            case let nested as Set<ManagedObject>: result.append(contentsOf: Array(nested) as [Any])
            case let value?: result.append(value)
            case nil: break
            }
        }
        return result
    }

    /// Sets the value for `key`, converting Swift values to the property's type (integers to
    /// any integer attribute, `Date` to `.date`, a `Codable` value through a transformable's
    /// transformer, objects and collections of objects to relationships).
    ///
    /// A ``PropertyValue`` is taken as it is when it is of the attribute's type (see
    /// ``PropertyValue/fitting(_:)``).
    ///
    /// - Throws: `.invalidRequest` for an unknown key, a value of the wrong type (a Swift value
    ///   or a ``PropertyValue``), or a derived attribute (see ``Derived``), which only the store sets.
    ///
    /// For example:
    /// ```swift
    /// try item.setValue("Hello", forKey: "name")
    /// try item.setValue(group, forKey: "group")
    /// ```
    public func setValue(_ value: Any?, forKey key: String) throws(StrataError) {
        switch entity.propertyIndex[key] {
        case .attribute(let i)?:
            // The description is read in place, not copied: this runs once per value a merge or an import sets.
            if let expression = entity.attributes[i].derivationExpression {
                throw StrataError(.invalidRequest, "\(entity.name).\(key) is derived (\(expression)): the store computes it at save; it cannot be set.",
                                  entity: entity.name, key: key, objectID: objectID)
            }
            if let stored = value as? PropertyValue {
                let type = entity.attributeTypes[i]   // the per-slot table: no description copied (sync's merge sets every value here)
                guard let fitting = stored.fitting(type) else {
                    throw StrataError(.invalidRequest, "\(stored) is not a value for \(entity.name).\(key) (\(type.rawValue)).",
                                      entity: entity.name, key: key, objectID: objectID)
                }
                setAttributeValue(fitting, at: i)
            } else {
                setAttributeValue(try Self.propertyValue(value, for: entity.attributes[i], entity: entity), at: i)
            }
        case .relationship(let i)?:
            let relationship = entity.relationships[i]
            if !relationship.isToMany {
                guard value == nil || value is ManagedObject else { throw wrongType(key, value) }
                setToOne(value as? ManagedObject, at: i)
            } else if let set = value as? Set<ManagedObject> {
                setToMany(OrderedSet(set), at: i)
            } else if let array = value as? [ManagedObject] {
                setToMany(OrderedSet(array), at: i)
            } else if value == nil {
                setToMany([], at: i)
            } else {
                throw wrongType(key, value)
            }
        case nil:
            throw StrataError(.invalidRequest, "\(entity.name) has no property \(key).", entity: entity.name, key: key, objectID: objectID)
        }
    }

    /// Key-based read and write. Writing a value of the wrong type or to an unknown key is a
    /// programmer error and traps; use ``setValue(_:forKey:)`` to get a thrown error instead.
    ///
    /// For example:
    /// ```swift
    /// note["title"] = "Hello"
    /// let title = note["title"] as? String
    /// ```
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set {
            do { try setValue(newValue, forKey: key) } catch {
                preconditionFailure("\(error)")  // programmer error: wrong key or type for the subscript
            }
        }
    }

    /// The stored value for `key` (`.null` for nil or an unknown key).
    ///
    /// For example:
    /// ```swift
    /// if case .string(let title) = note.primitiveValue(forKey: "title") { print(title) }
    /// ```
    public func primitiveValue(forKey key: String) -> PropertyValue {
        switch entity.propertyIndex[key] {
        case .attribute(let i)?: attributeValue(at: i)
        case .relationship(let i)?: entity.relationships[i].isToMany ? .objectIDs(toMany(at: i).map(\.objectID)) : (toOne(at: i).map { .objectID($0.objectID) } ?? .null)
        case nil: .null
        }
    }

    /// The properties changed since the last save or fetch, with their new values (to-one as
    /// `.objectID`, to-many as `.objectIDs`). Empty for an unchanged object.
    ///
    /// For example:
    /// ```swift
    /// note.title = "New"
    /// note.changedValues()   // ["title": .string("New")]
    /// ```
    public func changedValues() -> [String: PropertyValue] {
        willAccess()
        var result: [String: PropertyValue] = [:]
        let attributeCount = entity.attributes.count
        for (i, attribute) in entity.attributes.enumerated() where changedProperties.contains(i) {
            if lifecycle.isInserted || committedAttributes?[i] != attributeValues[i] { result[attribute.name] = attributeValues[i] }
        }
        for (i, relationship) in entity.relationships.enumerated() where changedProperties.contains(attributeCount + i) {
            let now = relationValues[i].propertyValue
            if lifecycle.isInserted || committedRelations[i]?.propertyValue != now { result[relationship.name] = now }
        }
        return result
    }

    /// The values of `keys` (all attributes and relationships when nil) as last saved or fetched.
    ///
    /// For example:
    /// ```swift
    /// note.committedValues(forKeys: ["title"])   // ["title": .string("Old")]
    /// ```
    public func committedValues(forKeys keys: [String]?) -> [String: PropertyValue] {
        willAccess()
        var result: [String: PropertyValue] = [:]
        let names = keys ?? (entity.attributes.map(\.name) + entity.relationships.map(\.name))
        for key in names {
            switch entity.propertyIndex[key] {
            case .attribute(let i)?:
                result[key] = committedAttributes?[i] ?? (lifecycle.isInserted ? .null : attributeValues[i])
            case .relationship(let i)?:
                if lifecycle.isInserted { result[key] = entity.relationships[i].isToMany ? .objectIDs([]) : .null }
                else { result[key] = (committedRelations[i] ?? relationValues[i]).propertyValue }
            case nil:
                continue
            }
        }
        return result
    }

    // MARK: Conversions

    static func swiftValue(_ value: PropertyValue, type: AttributeType) -> Any? {
        switch value {
        case .null: return nil
        case .integer(let v):
            switch type {
            case .int16: return Int16(truncatingIfNeeded: v)
            case .int32: return Int32(truncatingIfNeeded: v)
            default: return v
            }
        case .double(let v): return v
        case .string(let v): return v
        case .bool(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .url(let v): return v
        case .decimal(let v): return v
        case .transformed(let v): return v.value
        case .objectID(let v): return v
        case .objectIDs(let v): return v
        }
    }

    /// A Swift value as `attribute`'s stored value (``setValue(_:forKey:)`` passes a
    /// `PropertyValue` through without calling this).
    static func propertyValue(_ value: Any?, for attribute: AttributeDescription, entity: EntityDescription) throws(StrataError) -> PropertyValue {
        guard let value else { return .null }
        let fail = StrataError(.invalidRequest, "\(type(of: value)) is not a value for \(entity.name).\(attribute.name) (\(attribute.type.rawValue)).", entity: entity.name, key: attribute.name)
        switch attribute.type {
        case .string: guard let v = value as? String else { throw fail }; return .string(v)
        case .int16, .int32, .int64:
            switch value {
            case let v as Int: return .integer(Int64(v))
            case let v as Int64: return .integer(v)
            case let v as Int32: return .integer(Int64(v))
            case let v as Int16: return .integer(Int64(v))
            case let v as Int8: return .integer(Int64(v))
            default: throw fail
            }
        case .double:
            switch value {
            case let v as Double: return .double(v)
            case let v as Float: return .double(Double(v))
            case let v as Int: return .double(Double(v))
            default: throw fail
            }
        case .bool: guard let v = value as? Bool else { throw fail }; return .bool(v)
        case .date: guard let v = value as? Date else { throw fail }; return .date(v)
        case .data: guard let v = value as? Data else { throw fail }; return .data(v)
        case .uuid: guard let v = value as? UUID else { throw fail }; return .uuid(v)
        case .url: guard let v = value as? URL else { throw fail }; return .url(v)
        case .decimal:
            if let v = value as? Decimal { return .decimal(v) }
            if let v = value as? Int { return .decimal(Decimal(v)) }
            throw fail
        case .transformable:
            guard let transformer = attribute.transformer else { throw fail }
            do {
                let data = try transformer.encode(value)
                return .transformed(TransformedValue(data: data, value: try transformer.decode(data)))
            } catch {
                throw StrataError(.unencodableValue, "\(entity.name).\(attribute.name) could not encode \(type(of: value)): \(error)", entity: entity.name, key: attribute.name, underlying: error)
            }
        }
    }

    private func wrongType(_ key: String, _ value: Any?) -> StrataError {
        StrataError(.invalidRequest, "\(value.map { "\(type(of: $0))" } ?? "nil") is not a value for relationship \(entity.name).\(key).", entity: entity.name, key: key, objectID: objectID)
    }
}
