import Foundation

extension LocalCloudFileSystem {
    /// Removes temporary upload files (``temporaryPrefix``) older than `age` from the directory
    /// at `path`: what an upload leaves behind when its process dies between writing and
    /// renaming. Younger ones may belong to an upload still in progress (on this machine or
    /// another sharing the folder) and are kept. Returns how many were removed.
    ///
    /// ```swift
    /// let removed = try await cloud.removeStaleUploads(in: events, olderThan: .seconds(3600))
    /// ```
    public func removeStaleUploads(in path: CloudPath, olderThan age: Duration) async throws -> Int {
        let location = try resolve(path)
        guard let directory = location.resolved else { return 0 }
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        let cutoff = Date().addingTimeInterval(-seconds)
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw SyncError(.backendFailure, "cannot list the directory", path: path.rawValue, underlying: error)
        }
        var removed = 0
        for name in names where name.hasPrefix(Self.temporaryPrefix) {
            let file = directory + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let modified = attributes[.modificationDate] as? Date, modified < cutoff else { continue }
            if (try? FileManager.default.removeItem(atPath: file)) != nil { removed += 1 }
        }
        return removed
    }
}
