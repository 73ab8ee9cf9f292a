/* The encoder's float parts on qmm's threads: OpenMP, as qmm's own default
 * back end, or the engine's pool given to encoder_set_parallel_for (the one
 * given to qmm_set_parallel_for, so that both share one set of threads). */
#ifndef QMM_ENCODER_PARALLEL_H
#define QMM_ENCODER_PARALLEL_H

#include <stddef.h>

#include <qmm/qmm.h>

/* Runs task(context, t) for t in [0, tasks) on up to `threads` threads and
 * returns when all are done. */
void encoder_parallel_for(size_t threads, size_t tasks, qmm_task_fn *task, void *context);

/* Task t of `tasks` over n items: [*begin, *end), contiguous and balanced. */
void encoder_task_range(size_t t, size_t tasks, size_t n, size_t *begin, size_t *end);

#endif
