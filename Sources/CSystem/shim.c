#define _GNU_SOURCE
#include "CSystem.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>

int rb_start_writeback(int fd, long long offset, long long length) {
#if defined(__linux__)
  return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  (void)offset;
  (void)length;
  return 0;
#endif
}

void rb_set_thread_name(const char *name) {
  char shortName[16];
  strncpy(shortName, name, sizeof shortName - 1);
  shortName[sizeof shortName - 1] = '\0';
#if defined(__APPLE__)
  pthread_setname_np(shortName);
#else
  pthread_setname_np(pthread_self(), shortName);
#endif
}
