#ifndef STRATA_FAULT_VFS_H
#define STRATA_FAULT_VFS_H

/// A SQLite VFS for tests only (issue 12, "Proof under faults"): it wraps the default VFS
/// (unix) and fails reads, writes or syncs of chosen files on command, with SQLite's own I/O
/// error codes, as a failing disk would.
///
/// `strata_fault_vfs_install` registers it as the process's default VFS, so every connection
/// opened afterwards (GRDB passes no VFS name) goes through it; while nothing is armed it only
/// forwards. Faults hit only files whose path starts with the armed prefix (a test's temporary
/// directory), so tests running beside it see none.

/// What to fail (bits of `strata_fault_vfs_arm`'s `kinds`).
enum {
    STRATA_FAULT_READ = 1,   ///< xRead returns SQLITE_IOERR_READ
    STRATA_FAULT_WRITE = 2,  ///< xWrite returns SQLITE_IOERR_WRITE, xTruncate SQLITE_IOERR_TRUNCATE
    STRATA_FAULT_SYNC = 4,   ///< xSync returns SQLITE_IOERR_FSYNC
};

/// Registers the VFS as the default (once; later calls do nothing). Returns a SQLite result code.
int strata_fault_vfs_install(void);

/// Fails the operations in `kinds` on files whose path starts with `prefix` until disarmed.
void strata_fault_vfs_arm(const char *prefix, int kinds);

/// Stops failing anything.
void strata_fault_vfs_disarm(void);

/// How many operations have been failed since the process started.
long strata_fault_vfs_injected(void);

#endif
