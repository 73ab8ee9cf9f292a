/* Quiet between libraries: qmm's OpenMP threads and OpenBLAS's own keep
 * spinning for a while after a call, in case another comes (libgomp for some
 * milliseconds, OpenBLAS, yielding, for about 100 ms). With as many threads
 * as cores, the next library's call would find a core taken and run at half
 * speed or worse. qmm-bench-peers found this, and waits the same way. */
#ifndef QMM_COMPARE_WORKERS_H
#define QMM_COMPARE_WORKERS_H

/* Returns when no thread of this process but the calling one is runnable,
 * as /proc/self/task/<tid>/stat tells, or after a second. Polls without
 * sleeping: a sleeping caller on a small machine let the spinning workers
 * go on longer. */
void compare_wait_for_idle_workers(void);

#endif
