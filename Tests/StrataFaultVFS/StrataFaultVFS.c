// A fault-injecting SQLite VFS for tests (see include/StrataFaultVFS.h).
#include "StrataFaultVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// A file of the wrapped VFS, followed in memory by the real VFS's file.
typedef struct FaultFile {
    sqlite3_file base;
    const char *path;     // valid until xClose (SQLite keeps the name alive)
    sqlite3_file *real;   // points just after this struct
} FaultFile;

static sqlite3_vfs faultVFS;
static sqlite3_vfs *realVFS;
static sqlite3_io_methods methodsByVersion[4];   // set once by install; [1...3] used
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *armedPrefix;
static int armedKinds;
static long injected;

/// Whether `kind` is armed for `file` (counted when it is).
static int shouldFail(FaultFile *file, int kind) {
    int fail = 0;
    pthread_mutex_lock(&lock);
    if ((armedKinds & kind) && armedPrefix && file->path && strncmp(file->path, armedPrefix, strlen(armedPrefix)) == 0) {
        fail = 1;
        injected += 1;
    }
    pthread_mutex_unlock(&lock);
    return fail;
}

static int faultClose(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    int rc = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    file->real->pMethods = NULL;
    return rc;
}

static int faultRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    if (shouldFail(file, STRATA_FAULT_READ)) return SQLITE_IOERR_READ;
    return file->real->pMethods->xRead(file->real, buffer, amount, offset);
}

static int faultWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    if (shouldFail(file, STRATA_FAULT_WRITE)) return SQLITE_IOERR_WRITE;
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int faultTruncate(sqlite3_file *f, sqlite3_int64 size) {
    FaultFile *file = (FaultFile *)f;
    if (shouldFail(file, STRATA_FAULT_WRITE)) return SQLITE_IOERR_TRUNCATE;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int faultSync(sqlite3_file *f, int flags) {
    FaultFile *file = (FaultFile *)f;
    if (shouldFail(file, STRATA_FAULT_SYNC)) return SQLITE_IOERR_FSYNC;
    return file->real->pMethods->xSync(file->real, flags);
}

// The rest forwards to the real file.
static int faultFileSize(sqlite3_file *f, sqlite3_int64 *size) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xFileSize(file->real, size); }
static int faultLock(sqlite3_file *f, int level) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xLock(file->real, level); }
static int faultUnlock(sqlite3_file *f, int level) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xUnlock(file->real, level); }
static int faultCheckReservedLock(sqlite3_file *f, int *out) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xCheckReservedLock(file->real, out); }
static int faultFileControl(sqlite3_file *f, int op, void *arg) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xFileControl(file->real, op, arg); }
static int faultSectorSize(sqlite3_file *f) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xSectorSize(file->real); }
static int faultDeviceCharacteristics(sqlite3_file *f) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xDeviceCharacteristics(file->real); }
static int faultShmMap(sqlite3_file *f, int page, int size, int extend, void volatile **out) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xShmMap(file->real, page, size, extend, out); }
static int faultShmLock(sqlite3_file *f, int offset, int n, int flags) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xShmLock(file->real, offset, n, flags); }
static void faultShmBarrier(sqlite3_file *f) { FaultFile *file = (FaultFile *)f; file->real->pMethods->xShmBarrier(file->real); }
static int faultShmUnmap(sqlite3_file *f, int deleteFlag) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xShmUnmap(file->real, deleteFlag); }
static int faultFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xFetch(file->real, offset, amount, out); }
static int faultUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *pointer) { FaultFile *file = (FaultFile *)f; return file->real->pMethods->xUnfetch(file->real, offset, pointer); }

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)f;
    file->path = name;
    file->real = (sqlite3_file *)(file + 1);
    file->base.pMethods = NULL;
    int rc = realVFS->xOpen(realVFS, name, file->real, flags, outFlags);
    if (file->real->pMethods == NULL) return rc;   // nothing to close: SQLite will not call xClose
    // The methods this file has are the real file's version (no shm methods below 2, no
    // fetch below 3), so SQLite never calls a method the real file lacks.
    int version = file->real->pMethods->iVersion;
    if (version < 1) version = 1;
    if (version > 3) version = 3;
    file->base.pMethods = &methodsByVersion[version];
    return rc;
}

int strata_fault_vfs_install(void) {
    pthread_mutex_lock(&lock);
    if (realVFS != NULL) { pthread_mutex_unlock(&lock); return SQLITE_OK; }
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (real == NULL) { pthread_mutex_unlock(&lock); return SQLITE_ERROR; }
    for (int version = 1; version <= 3; version++) {
        methodsByVersion[version] = (sqlite3_io_methods){
            .iVersion = version, .xClose = faultClose, .xRead = faultRead, .xWrite = faultWrite, .xTruncate = faultTruncate,
            .xSync = faultSync, .xFileSize = faultFileSize, .xLock = faultLock, .xUnlock = faultUnlock,
            .xCheckReservedLock = faultCheckReservedLock, .xFileControl = faultFileControl, .xSectorSize = faultSectorSize,
            .xDeviceCharacteristics = faultDeviceCharacteristics, .xShmMap = faultShmMap, .xShmLock = faultShmLock,
            .xShmBarrier = faultShmBarrier, .xShmUnmap = faultShmUnmap, .xFetch = faultFetch, .xUnfetch = faultUnfetch,
        };
    }
    // Everything but opening a file is the real VFS's (its functions read pAppData, kept).
    faultVFS = *real;
    faultVFS.pNext = NULL;
    faultVFS.zName = "strata-fault";
    faultVFS.szOsFile = (int)sizeof(FaultFile) + real->szOsFile;
    faultVFS.xOpen = faultOpen;
    realVFS = real;
    int rc = sqlite3_vfs_register(&faultVFS, 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

void strata_fault_vfs_arm(const char *prefix, int kinds) {
    pthread_mutex_lock(&lock);
    free(armedPrefix);
    armedPrefix = strdup(prefix);
    armedKinds = kinds;
    pthread_mutex_unlock(&lock);
}

void strata_fault_vfs_disarm(void) {
    pthread_mutex_lock(&lock);
    free(armedPrefix);
    armedPrefix = NULL;
    armedKinds = 0;
    pthread_mutex_unlock(&lock);
}

long strata_fault_vfs_injected(void) {
    pthread_mutex_lock(&lock);
    long count = injected;
    pthread_mutex_unlock(&lock);
    return count;
}
