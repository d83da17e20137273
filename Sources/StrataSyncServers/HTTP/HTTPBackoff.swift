import Foundation

/// The waits between attempts: exponential with jitter, or the server's `Retry-After`.
enum HTTPBackoff {
    /// Seconds to wait before attempt number `attempt` (2 for the first retry): the server's
    /// `retryAfter` capped at the policy's `retryAfterCap`, or `backoffBase · 2^(attempt-2)`
    /// capped at `backoffCap`, times a random factor in 0.5…1.
    static func delay(before attempt: Int, policy: HTTPRequestPolicy, retryAfter: Double?) -> Double {
        if let retryAfter { return min(max(retryAfter, 0), policy.retryAfterCap.inSeconds) }
        let exponent = Double(max(0, min(attempt - 2, 30)))
        let base = min(policy.backoffBase.inSeconds * pow(2, exponent), policy.backoffCap.inSeconds)
        return base * Double.random(in: 0.5...1.0)
    }

    /// A `Retry-After` value in seconds: delay-seconds, or an HTTP date (seconds from now).
    static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text) { return Double(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
