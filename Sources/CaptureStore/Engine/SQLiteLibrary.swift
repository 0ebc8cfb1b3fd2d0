internal import CSQLiteConfig

/// The SQLite library's process-wide settings, made once, before the process's first connection opens
/// (`CaptureDatabase.open` asks for them before it opens anything).
///
/// Memory statistics off. With them on (SQLite's default), every allocation and free inside SQLite takes one mutex
/// shared by the whole process, to count bytes nobody here reads: two event loops reading at once then wait for each
/// other in the kernel (docs/adr/0045-sqlite-engine-settings.md). With them off, `sqlite3_memory_used`,
/// `sqlite3_status64` and the heap limits stop counting; nothing here uses them.
enum SQLiteLibrary {
    /// Whether the settings took effect. False when SQLite was already in use in this process (a test that opens
    /// GRDB directly first): SQLite's defaults then stay, slower under contention and never wrong.
    static let configured: Bool = csqlite_config_memstatus(0) == SQLITE_OK

    /// The bytes SQLite counts as allocated: no longer changes once `configured`.
    static var countedMemory: Int64 { csqlite_memory_used() }
}
