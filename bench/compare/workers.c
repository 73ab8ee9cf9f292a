/* opendir and readdir are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "workers.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../timing.h"

#define MAX_WAIT_SECONDS 1.0

/* The state letter of /proc/self/task/<tid>/stat, after "tid (name) ". */
static int task_is_running(const char *tid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/self/task/%.24s/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t length = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[length] = '\0';
    /* The last ')': a thread's name may hold one. */
    const char *paren = strrchr(stat, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] == 'R';
}

static int other_threads_running(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return 0;
    char self[24];
    snprintf(self, sizeof self, "%ld", (long)getpid());  /* the main thread's tid */
    int running = 0;
    const struct dirent *e;
    while (!running && (e = readdir(dir)) != NULL)
        running = e->d_name[0] != '.' && strcmp(e->d_name, self) != 0 &&
                  task_is_running(e->d_name);
    closedir(dir);
    return running;
}

void compare_wait_for_idle_workers(void)
{
    const double start = bench_now();
    while (other_threads_running() && bench_now() - start < MAX_WAIT_SECONDS)
        continue;
}
