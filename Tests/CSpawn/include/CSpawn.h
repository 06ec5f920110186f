#ifndef REQBENCH_CSPAWN_H
#define REQBENCH_CSPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+), which Swift's Glibc module does not
/// export: the child closes every descriptor from `from` on, so nothing of the test process (other
/// tests' pipes, sockets) leaks into it or into a daemon it leaves behind.
int rb_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/// pipe2(fds, O_CLOEXEC): a pipe no other child inherits (pipe2 needs _GNU_SOURCE).
int rb_pipe_cloexec(int fds[2]);

#endif
