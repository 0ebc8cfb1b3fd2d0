#ifndef C_TEST_SPAWN_H
#define C_TEST_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated) in `cwd` (NULL: the caller's), its standard input, output
/// and error on the given descriptors (-1: the caller's own), every other descriptor closed and every signal at its
/// default, unblocked. Returns 0 and the child's pid, or an errno value.
int capture_test_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *cwd,
                       int in_fd, int out_fd, int err_fd);

#endif
