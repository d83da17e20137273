/// The cloud the `sync` scenario's peers share (`--backend`).
///
/// - `local`: a folder in the run's scratch directory (``LocalCloudFileSystem``).
/// - `webdav`: nginx with its WebDAV modules on loopback, started for the run and stopped
///   after it (``WebDAVCloudFileSystem``).
/// - `s3`: moto's S3-compatible server on loopback, started and stopped the same way
///   (``S3CloudFileSystem``).
///
/// For example:
/// ```swift
/// var options = SandboxOptions()
/// options.scenarios = ["sync"]
/// options.syncBackend = .webdav
/// ```
public enum SyncBackend: String, CaseIterable, Sendable {
    case local, webdav, s3
}
