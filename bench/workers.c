/* opendir and readdir are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "workers.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timing.h"

#define MAX_WAIT_SECONDS 1.0

/* A library's worker threads go on spinning for a while after its call, in
 * case another comes (libgomp's for qmm and oneDNN and gemmlowp's for some
 * milliseconds, XNNPACK's pthreadpool's for about 30, OpenBLAS's, yielding,
 * for 2^28 cycles: about 100 ms): with as many threads as cores, the next
 * contender would find a core taken and run at half speed or worse (gemmlowp
 * after XNNPACK, qmm after OpenBLAS). So with more than one thread, each
 * contender's first (untimed) call in qmm-bench-peers, and each method's in
 * qmm-compare, waits until no thread of this process but
 * the calling one is runnable, as the state letters in
 * /proc/self/task/<tid>/stat tell, for at most a second; its own workers then
 * spin between its untimed and timed calls, as between the calls of a program
 * that makes many. The wait polls without sleeping: on a 2-core KVM guest,
 * letting this thread sleep between polls while XNNPACK's workers spun down
 * (or any 30 ms sleep) left gemmlowp's two threads running one after the
 * other in the calls that followed (4.1 ms on 128x384x1536 instead of 2.1).
 * qmm-bench-peers found this; qmm-compare waits the same way between qmm and
 * OpenBLAS. */

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

void bench_wait_for_idle_workers(void)
{
    const double start = bench_now();
    while (other_threads_running() && bench_now() - start < MAX_WAIT_SECONDS)
        continue;
}
