/// What the state says of one object.
struct ObjectState {
    var localKey: Int64?
    var exists: Bool
}
