#define _GNU_SOURCE
#include "CSpawn.h"
#include <fcntl.h>
#include <unistd.h>

int rb_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int rb_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
