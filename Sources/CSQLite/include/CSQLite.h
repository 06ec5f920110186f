#ifndef REQBENCH_CSQLITE_H
#define REQBENCH_CSQLITE_H

#include <sqlite3.h>

// SQLite's SQLITE_STATIC is a macro casting 0 to a function pointer, which Swift cannot import.
// These bind text and blobs with it: SQLite keeps the pointer and reads the bytes when the
// statement steps, so they must stay where they are until it is reset (which clears the
// bindings) or bound again. An empty text or blob is bound as empty, never as NULL.

int rb_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, sqlite3_uint64 length);
int rb_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length);

/// sqlite3_db_config is variadic. SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE: closing the last connection
/// leaves the WAL to the next checkpoint instead of copying it into the database (and syncing)
/// right then, so a short process does not wait for that at its exit.
int rb_sqlite3_no_checkpoint_on_close(sqlite3 *db);

/// Replaces SQLite's automatic checkpoint (its own WAL hook) with one that stores, after each
/// commit of this connection, the number of frames in the WAL at `frames`, which must outlive
/// the connection. The caller then checkpoints when it suits it.
void rb_sqlite3_count_wal_frames(sqlite3 *db, int *frames);

/// sqlite3_config is variadic. Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS),
/// which take a global mutex around every allocation; reqbench never reads them. Must run
/// before the first connection opens; returns SQLITE_MISUSE after.
int rb_sqlite3_configure(void);

#endif
