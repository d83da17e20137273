public import Foundation

extension WebDAVCloudFileSystem {
    /// Writes `data` at `path`: a `PUT` to a temporary name in the same folder, then a `MOVE`
    /// into place. The move first asks not to overwrite (`Overwrite: F`), so a new file — the
    /// common case, change files are named once — costs two requests; when something is
    /// there, a depth-0 `PROPFIND` makes sure it is a file (a folder is
    /// `SyncError/Code/typeMismatch`, never replaced) before moving with `Overwrite: T`.
    ///
    /// ```swift
    /// try await cloud.upload(Data("hello".utf8), to: try CloudPath("MainStore/events/greeting"))
    /// ```
    public func upload(_ data: Data, to path: CloudPath) async throws {
        guard let parent = path.parent, let name = path.lastName else {
            throw SyncError(.unsafeName, "cannot write a file at the root folder itself", path: path.rawValue)
        }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "the file has \(data.count) bytes, above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        let temporaryName = Self.temporaryPrefix + UUID().uuidString.lowercased()
        let temporary: CloudPath
        do { temporary = try parent.appending(temporaryName) } catch {
            throw SyncError(.unsafeName, "the path is too long for a temporary name beside it", path: path.rawValue, underlying: error)
        }
        var put = HTTPRequest("PUT", paths.url(for: temporary), cloudPath: path.rawValue)
        put.body = data
        put.headers.add(name: "Content-Type", value: "application/octet-stream")
        put.passStatuses = [404, 405, 409]
        // Some servers (nginx) answer 500 when the folder is missing: check before retrying.
        put.beforeRetry = { [self] _ in
            if try await fileExists(at: parent) != (true, true) {
                throw SyncError(.notFound, "the folder to upload into does not exist", path: path.rawValue)
            }
        }
        let written = try await transport.send(put, authorizer: authorizer)
        switch written.status {
        case 200..<300: break
        case 405: throw SyncError(.typeMismatch, "the folder to upload into is a file", path: path.rawValue)
        default: throw SyncError(.notFound, "the folder to upload into does not exist", path: path.rawValue)
        }
        do {
            try await move(temporary, to: path, name: name, size: data.count)
        } catch {
            await removeQuietly(temporary)
            throw error
        }
    }

    private func move(_ temporary: CloudPath, to path: CloudPath, name: CloudName, size: Int) async throws {
        var move = HTTPRequest("MOVE", paths.url(for: temporary), cloudPath: path.rawValue)
        move.headers.add(name: "Destination", value: paths.url(for: path).absoluteString)
        move.headers.add(name: "Overwrite", value: "F")
        move.passStatuses = [404, 409, 412]
        let first = try await transport.send(move, authorizer: authorizer)
        if (200..<300).contains(first.status) { return }
        if first.status == 404, first.attempts > 1 {
            // A retried MOVE whose first attempt worked: the temporary name is gone.
            if try await fileExists(at: path) == (true, false) { return }
        }
        switch try await fileExists(at: path) {
        case (true, true):
            throw SyncError(.typeMismatch, "a folder is in the way of the file", path: path.rawValue)
        case (true, false):
            move.headers.replaceOrAdd(name: "Overwrite", value: "T")
            move.passStatuses = []
            _ = try await transport.send(move, authorizer: authorizer)
        default:
            throw SyncError(.backendFailure, "the server refused to move the uploaded file into place (HTTP \(first.status))", path: path.rawValue,
                            underlying: HTTPStatusError(status: first.status, method: "MOVE", url: HTTPOrigin.redacted(first.url)))
        }
    }

    /// Best-effort removal of a temporary upload (its failure is not the caller's error).
    private func removeQuietly(_ temporary: CloudPath) async {
        var request = HTTPRequest("DELETE", paths.url(for: temporary), cloudPath: temporary.rawValue)
        request.passStatuses = [404, 409]
        _ = try? await transport.send(request, authorizer: authorizer)
    }
}
