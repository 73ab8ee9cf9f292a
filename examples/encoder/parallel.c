#include "parallel.h"

#include <pthread.h>

#include "encoder.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

/* libgomp is not built with ThreadSanitizer, which then cannot see that a
 * parallel region's end orders the workers' writes before the caller's reads:
 * the fork and join edges are stated here, as qmm's back end does. */
#if defined(__SANITIZE_THREAD__)
#define ENCODER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ENCODER_TSAN 1
#endif
#endif
#if defined(ENCODER_TSAN)
#include <sanitizer/tsan_interface.h>
#define HAPPENS_BEFORE(addr) __tsan_release(addr)
#define HAPPENS_AFTER(addr) __tsan_acquire(addr)
#else
#define HAPPENS_BEFORE(addr) ((void)(addr))
#define HAPPENS_AFTER(addr) ((void)(addr))
#endif

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static qmm_parallel_for_fn *pool_parallel_for;
static void *pool;

void encoder_set_parallel_for(qmm_parallel_for_fn *parallel_for, void *engine_pool)
{
    pthread_mutex_lock(&pool_lock);
    pool_parallel_for = parallel_for;
    pool = engine_pool;
    pthread_mutex_unlock(&pool_lock);
}

#if defined(_OPENMP)
static char fork_edge, join_edge;

static void openmp_run(size_t threads, size_t tasks, qmm_task_fn *task, void *context)
{
    HAPPENS_BEFORE(&fork_edge);
#pragma omp parallel num_threads((int)threads)
    {
        HAPPENS_AFTER(&fork_edge);
#pragma omp for schedule(static)
        for (size_t t = 0; t < tasks; t++)
            task(context, t);
        HAPPENS_BEFORE(&join_edge);
    }
    HAPPENS_AFTER(&join_edge);
}
#endif

void encoder_parallel_for(size_t threads, size_t tasks, qmm_task_fn *task, void *context)
{
    pthread_mutex_lock(&pool_lock);
    qmm_parallel_for_fn *parallel_for = pool_parallel_for;
    void *engine_pool = pool;
    pthread_mutex_unlock(&pool_lock);
    if (threads > tasks)
        threads = tasks;
    if (parallel_for != NULL && threads > 1) {
        parallel_for(engine_pool, tasks, task, context);
        return;
    }
#if defined(_OPENMP)
    if (threads > 1 && !omp_in_parallel()) {
        openmp_run(threads, tasks, task, context);
        return;
    }
#endif
    for (size_t t = 0; t < tasks; t++)
        task(context, t);
}

void encoder_task_range(size_t t, size_t tasks, size_t n, size_t *begin, size_t *end)
{
    *begin = n * t / tasks;
    *end = n * (t + 1) / tasks;
}
