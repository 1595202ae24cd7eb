#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Turns off SQLite's memory statistics for this process (`SQLITE_CONFIG_MEMSTATUS`, 0).
///
/// With them on, every allocation SQLite makes takes one process-wide mutex, which threads reading at
/// once contend for. Must run before SQLite is first used; returns SQLite's result code
/// (`SQLITE_MISUSE` when it already was). `sqlite3_config` is variadic, which Swift cannot call.
int wopi_sqlite_disable_memory_statistics(void);

#endif
