import GRDBSQLite

/// Keeps the text a save binds until its statement has run, so that SQLite reads each text
/// where it lies (`SQLITE_STATIC`) instead of copying it into a buffer of its own
/// (`SQLITE_TRANSIENT`: an allocation and a free per text bound, about 500 instructions of
/// the 700 a bind cost).
///
/// A statement's texts are copied into the arena's chunks, which never move while they are
/// in use; ``reset()`` before the next row's binds reuses them. The owner unbinds the
/// statement after it ran (`sqlite3_clear_bindings`), so no statement keeps a pointer into
/// memory the arena will reuse or free.
///
/// For example (inside a save transaction):
/// ```swift
/// texts.reset()
/// texts.bind("Dune", to: handle, at: 2)
/// try RawStatement.execute(statement, db)
/// sqlite3_clear_bindings(handle)
/// ```
final class TextArena {
    /// The size of a chunk (a longer text gets a chunk of its own size).
    static let chunkSize = 16 * 1024

    private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// The chunk being filled, and how much of it is used.
    private var current = 0
    private var used = 0

    init() {}

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// Lets the next binds reuse every chunk (the statements bound before have run).
    func reset() {
        current = 0
        used = 0
    }

    /// Binds `text` at 1-based `index` of `handle`, from a copy held until ``reset()``.
    func bind(_ text: String, to handle: OpaquePointer, at index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            let count = bytes.count
            let destination = reserve(max(count, 1))   // (an empty text still needs an address: NULL would bind NULL)
            if let source = bytes.baseAddress, count > 0 { destination.copyMemory(from: source, byteCount: count) }
            _ = sqlite3_bind_text(handle, index, destination.assumingMemoryBound(to: CChar.self), Int32(count), SQLITE_STATIC_BINDING)
        }
    }

    /// `count` bytes that stay where they are until ``reset()``.
    private func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        if current < chunks.count, used + count <= chunks[current].count {
            defer { used += count }
            return chunks[current].baseAddress! + used
        }
        if current < chunks.count { current += 1 }   // the chunk being filled is full: the next one
        if current == chunks.count || chunks[current].count < count {
            chunks.insert(.allocate(byteCount: max(Self.chunkSize, count), alignment: 1), at: current)
        }
        used = count
        return chunks[current].baseAddress!
    }
}

/// SQLite's `SQLITE_STATIC`: the bound memory stays valid and unchanged until the statement
/// is rebound, reset with new bindings, or finalised.
let SQLITE_STATIC_BINDING = unsafeBitCast(0, to: sqlite3_destructor_type.self)
