#include "CSQLite.h"

// What an empty text or blob points at: SQLite binds NULL for a NULL pointer.
static const char rb_empty = 0;

int rb_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, sqlite3_uint64 length) {
  return sqlite3_bind_text64(statement, index, length == 0 ? &rb_empty : text, length, SQLITE_STATIC, SQLITE_UTF8);
}

int rb_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, sqlite3_uint64 length) {
  return sqlite3_bind_blob64(statement, index, length == 0 ? (const void *)&rb_empty : bytes, length, SQLITE_STATIC);
}

static int rb_wal_hook(void *frames, sqlite3 *db, const char *name, int count) {
  (void)db;
  (void)name;
  *(int *)frames = count;
  return SQLITE_OK;
}

void rb_sqlite3_count_wal_frames(sqlite3 *db, int *frames) {
  sqlite3_wal_hook(db, rb_wal_hook, frames);
}

int rb_sqlite3_no_checkpoint_on_close(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

int rb_sqlite3_configure(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
