extension EntitySpec {
    /// Describes a typed class by reflecting once on a prototype instance.
    init(describing type: ManagedObject.Type) throws(StrataError) {
        let placeholder = EntityDescription("_Prototype")
        let (prototype, formerNames) = PropertyRenames.collect {
            type.init(ObjectCreation(  // no construction is installed: wrappers keep their conversions
                objectID: ObjectID(entity: placeholder, key: 0, isTemporary: true),
                attributeValues: [], relationValues: [], isFault: false))
        }
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var attributeConversions: [(any AttributeConversion.Type)?] = []
        var relationshipConversions: [(any RelationshipConversion.Type)?] = []
        var ancestors: [ObjectIdentifier] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            if ObjectIdentifier(current.subjectType) != ObjectIdentifier(type), ObjectIdentifier(current.subjectType) != ObjectIdentifier(ManagedObject.self),
               let cls = current.subjectType as? AnyClass {
                ancestors.append(ObjectIdentifier(cls))
            }
            for child in current.children {
                if let attribute = child.value as? any AttributeWrapperDescribing {
                    attributes.append(attribute.attributeDescription())
                    attributeConversions.append(attribute.conversionType)
                } else if let relationship = child.value as? any RelationshipWrapperDescribing {
                    relationships.append(relationship.relationshipDescription())
                    relationshipConversions.append(relationship.conversionType)
                }
            }
            mirror = current.superclassMirror
        }
        if attributes.isEmpty && relationships.isEmpty {
            throw StrataError(.invalidModel, "\(type) declares no @Attribute or @Relationship.", entity: type.entityName)
        }
        for i in attributes.indices { attributes[i].renamingIdentifier = formerNames[attributes[i].name] }
        for i in relationships.indices { relationships[i].renamingIdentifier = formerNames[relationships[i].name] }
        self.init(name: type.entityName, attributes: attributes, relationships: relationships,
                  managedClass: type, attributeConversions: attributeConversions, relationshipConversions: relationshipConversions,
                  renamingIdentifier: type.entityRenamedFrom, isAbstract: type.isAbstractEntity)
        superclasses = ancestors
    }
}
