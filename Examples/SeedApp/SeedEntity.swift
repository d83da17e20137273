import Foundation
import Strata

/// The seed app's one entity, as in the Ensembles sample it ports: a name, a description, and
/// a unique identifier and creation date given at insert. The identifier is what the ensemble
/// uses to tell objects apart across devices.
final class Entity: ManagedObject {
    @Attribute("name") var name = ""
    @Attribute("descText") var descText = ""
    @Attribute("uniqueIdentifier") var uniqueIdentifier = UUID().uuidString   // evaluated per insert
    @Attribute("creationDate") var creationDate = Date()
}
