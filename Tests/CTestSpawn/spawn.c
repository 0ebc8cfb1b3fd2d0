// posix_spawn for the test suites, instead of Foundation's Process: on Linux, Process.run() reads past a buffer while
// listing /proc/self/fd and crashes now and then once the test process holds many descriptors
// (swift-corelibs-foundation #5472, not in Swift 6.3.1). glibc's own spawn closes the other descriptors.
#define _GNU_SOURCE
#include "CTestSpawn.h"

#include <signal.h>
#include <spawn.h>

int capture_test_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *cwd,
                       int in_fd, int out_fd, int err_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return status;
    }
    int targets[3] = {0, 1, 2};
    int sources[3] = {in_fd, out_fd, err_fd};
    for (int i = 0; i < 3 && status == 0; i++) {
        if (sources[i] >= 0) status = posix_spawn_file_actions_adddup2(&actions, sources[i], targets[i]);
    }
    if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (status == 0 && cwd != NULL) status = posix_spawn_file_actions_addchdir_np(&actions, cwd);
    // A child started from a thread that blocks signals would otherwise inherit the mask (and ignore SIGTERM).
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (status == 0) status = posix_spawnattr_setsigmask(&attributes, &none);
    if (status == 0) status = posix_spawnattr_setsigdefault(&attributes, &all);
    if (status == 0) status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (status == 0) status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return status;
}
