// SQLite's process-wide settings for Swift. sqlite3_config is a C variadic function, which Swift cannot call, so each
// setting the store makes gets a typed inline wrapper here. The policy (which settings, when) lives in CaptureStore
// (SQLiteLibrary.swift).
#ifndef CSQLITECONFIG_SHIM_H
#define CSQLITECONFIG_SHIM_H

#include <sqlite3.h>

/// SQLITE_CONFIG_MEMSTATUS: whether SQLite counts every allocation under one process-wide mutex. Only takes effect
/// before the library is initialised (before the first connection opens); otherwise SQLITE_MISUSE.
static inline int csqlite_config_memstatus(int enabled) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, enabled); }

/// The bytes SQLite counts as allocated: unchanged while memory statistics are off.
static inline sqlite3_int64 csqlite_memory_used(void) { return sqlite3_memory_used(); }

#endif
