/* Quiet between libraries, for the tools that time qmm against others in one
 * process (qmm-bench-peers, qmm-compare): a library's worker threads go on
 * spinning for a while after its call, in case another comes, and with as
 * many threads as cores the next library's call would find a core taken and
 * run at half speed or worse (workers.c tells how long and what it cost). */
#ifndef QMM_BENCH_WORKERS_H
#define QMM_BENCH_WORKERS_H

/* Returns when no thread of this process but the calling one is runnable,
 * as /proc/self/task/<tid>/stat tells, or after a second. Polls without
 * sleeping (workers.c tells why). */
void bench_wait_for_idle_workers(void);

#endif
