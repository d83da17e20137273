#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the `renamedFrom:` arguments of `@Attribute` and `@Relationship` wrappers while a
/// model reflects on a class's prototype, so that the wrappers themselves carry nothing extra
/// in every object (the renames matter only to the model and to migration).
///
/// It lives in a thread-local slot only for the duration of one prototype's `init`.
@usableFromInline
final class PropertyRenames {
    /// Former names by current key.
    private(set) var formerNames: [String: String] = [:]

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Records that the property `key` was called `formerName` in an older model; does nothing
    /// unless a model is reflecting on a prototype on this thread.
    @usableFromInline static func record(_ key: String, formerName: String) {
        guard let raw = pthread_getspecific(Self.key) else { return }
        Unmanaged<PropertyRenames>.fromOpaque(raw).takeUnretainedValue().formerNames[key] = formerName
    }

    /// Runs `body` (which builds a prototype) with a collector installed, and returns what it
    /// built with the renames its wrappers declared.
    static func collect<T>(_ body: () -> T) -> (T, [String: String]) {
        let renames = PropertyRenames()
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(renames).toOpaque())
        let result = withExtendedLifetime(renames) { body() }
        pthread_setspecific(key, previous)
        return (result, renames.formerNames)
    }
}
