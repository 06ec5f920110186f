#ifndef REQBENCH_CSYSTEM_H
#define REQBENCH_CSYSTEM_H

// Linux calls that Swift's Glibc module does not import (it declares them only with _GNU_SOURCE).

/// Starts writing the file's dirty pages in [offset, offset + length) to disk and returns without
/// waiting for them (sync_file_range with SYNC_FILE_RANGE_WRITE), so a later fsync has only the
/// rest to wait for. 0, or -1 with errno set; 0 and nothing done where the call does not exist.
int rb_start_writeback(int fd, long long offset, long long length);

/// Names the calling thread for the system (at most 15 bytes are kept; a longer name is cut).
void rb_set_thread_name(const char *name);

#endif
