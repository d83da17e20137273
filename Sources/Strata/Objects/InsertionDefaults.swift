#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the initial values of a typed object's `@Attribute` wrappers while the context
/// constructs it for an insert, so `@Attribute("created") var created = Date()` gives each
/// new object its own date without reflecting on every object.
///
/// It lives in a thread-local slot only for the duration of one synchronous `init` call.
final class InsertionDefaults {
    var values: [PropertyValue] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The collector of the insertion in progress on this thread, if any.
    static var current: InsertionDefaults? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<InsertionDefaults>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with a collector installed and returns what it collected.
    static func collect<T>(_ body: () -> T) -> (T, [PropertyValue]) {
        let collector = InsertionDefaults()
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(collector).toOpaque())
        let result = withExtendedLifetime(collector) { body() }
        pthread_setspecific(key, previous)
        return (result, collector.values)
    }
}
