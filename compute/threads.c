#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "threads.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../platform/log.h"

#if defined(QMM_HAVE_OPENMP)
#include <omp.h>
#endif

/* libgomp is not built with ThreadSanitizer, which then cannot see that the
 * end of a parallel region orders the workers' writes before the caller's
 * reads: the back end states its fork and join edges itself. */
#if defined(__SANITIZE_THREAD__)
#define QMM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define QMM_TSAN 1
#endif
#endif
#if defined(QMM_TSAN)
#include <sanitizer/tsan_interface.h>
#define HAPPENS_BEFORE(addr) __tsan_release(addr)
#define HAPPENS_AFTER(addr) __tsan_acquire(addr)
#else
#define HAPPENS_BEFORE(addr) ((void)(addr))
#define HAPPENS_AFTER(addr) ((void)(addr))
#endif

/* ---- the thread count --------------------------------------------------- */

static atomic_size_t chosen_threads;  /* qmm_set_num_threads; 0: the default */
static size_t default_threads;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

#if defined(__linux__)
/* CPUs in the affinity mask; the mask may be larger than a cpu_set_t. */
static size_t usable_cpus(void)
{
    for (int cpus = CPU_SETSIZE; cpus <= (1 << 20); cpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(cpus);
        if (set == NULL)
            return 1;
        size_t bytes = CPU_ALLOC_SIZE(cpus);
        int got = sched_getaffinity(0, bytes, set);
        int n = got == 0 ? CPU_COUNT_S(bytes, set) : 0;
        CPU_FREE(set);
        if (got == 0)
            return n > 0 ? (size_t)n : 1;
        if (errno != EINVAL)
            return 1;
    }
    return 1;
}
#else
/* macOS and iOS have no affinity mask to read: every CPU online may run us. */
static size_t usable_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}
#endif

/* QMM_NUM_THREADS as a whole number from 1 to QMM_MAX_THREADS, else 0. */
static size_t parse_thread_count(const char *v)
{
    size_t n = 0;
    if (*v == '\0')
        return 0;
    for (; *v != '\0'; v++) {
        if (*v < '0' || *v > '9')
            return 0;
        n = n * 10 + (size_t)(*v - '0');
        if (n > QMM_MAX_THREADS)
            return 0;
    }
    return n;
}

static void read_default_threads(void)
{
    const char *v = getenv("QMM_NUM_THREADS");
    default_threads = usable_cpus();
    if (v == NULL)
        return;
    size_t n = parse_thread_count(v);
    if (n == 0)
        qmm_log("QMM_NUM_THREADS=\"%s\" ignored: expected a whole number from 1 to %d; "
                "using the %zu CPUs this process may run on",
                v, QMM_MAX_THREADS, default_threads);
    else
        default_threads = n;
}

qmm_status qmm_set_num_threads(size_t n)
{
    if (n > QMM_MAX_THREADS) {
        qmm_log("invalid argument: qmm_set_num_threads(%zu), the most is %d", n,
                QMM_MAX_THREADS);
        return QMM_ERR_INVALID_ARG;
    }
    atomic_store(&chosen_threads, n);
    return QMM_OK;
}

size_t qmm_get_num_threads(void)
{
    size_t n = atomic_load(&chosen_threads);
    if (n != 0)
        return n;
    pthread_once(&default_once, read_default_threads);
    return default_threads;
}

/* ---- the engine's parallel-for ------------------------------------------ */

/* The function and its pool change together. */
static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static qmm_parallel_for_fn *engine_parallel_for;
static void *engine_pool;

void qmm_set_parallel_for(qmm_parallel_for_fn *parallel_for, void *pool)
{
    pthread_mutex_lock(&engine_lock);
    engine_parallel_for = parallel_for;
    engine_pool = parallel_for != NULL ? pool : NULL;
    pthread_mutex_unlock(&engine_lock);
}

/* ---- the OpenMP back end ------------------------------------------------ */

/* Threads of the OpenMP teams in flight, callers included, and the most
 * extra threads (not a call's own) that ran tasks at once; both stay 0
 * without OpenMP. */
static atomic_size_t budget_used;
static atomic_size_t extra_peak;

size_t qmm_threads_peak(void)
{
    return atomic_load(&extra_peak);
}

#if defined(QMM_HAVE_OPENMP)
/* Extra threads running tasks now, for extra_peak. */
static atomic_size_t extra_running;

/* Up to want threads of the budget of limit, at least the caller's one. */
static size_t borrow(size_t want, size_t limit)
{
    size_t used = atomic_load(&budget_used), take;
    do {
        size_t left = used < limit ? limit - used : 0;
        take = want < left ? want : left;
        if (take == 0)
            take = 1;
    } while (!atomic_compare_exchange_weak(&budget_used, &used, used + take));
    return take;
}

static void note_extra_thread(int delta)
{
    if (delta < 0) {
        atomic_fetch_sub(&extra_running, 1);
        return;
    }
    size_t now = atomic_fetch_add(&extra_running, 1) + 1;
    size_t peak = atomic_load(&extra_peak);
    while (now > peak && !atomic_compare_exchange_weak(&extra_peak, &peak, now))
        ;
}

/* The fork and join edges stated to ThreadSanitizer. Global, so that a
 * worker states its side before it reads anything the caller passed, the
 * region's own shared variables included (at worst this orders more than the
 * region does: it may hide a race between two calls, never invent one). */
static char fork_edge, join_edge;

static void openmp_run(size_t threads, size_t tasks, qmm_task_fn *task, void *context)
{
    HAPPENS_BEFORE(&fork_edge);
#pragma omp parallel num_threads((int)threads)
    {
        HAPPENS_AFTER(&fork_edge);
        const int extra = omp_get_thread_num() != 0;
        if (extra)
            note_extra_thread(+1);
#pragma omp for schedule(dynamic, 1)
        for (size_t t = 0; t < tasks; t++)
            task(context, t);
        if (extra)
            note_extra_thread(-1);
        HAPPENS_BEFORE(&join_edge);
    }
    HAPPENS_AFTER(&join_edge);
}
#endif

/* ---- teams -------------------------------------------------------------- */

qmm_team qmm_team_join(size_t want)
{
    qmm_team team = {.threads = 1};
    size_t limit = qmm_get_num_threads();
    if (want > limit)
        want = limit;
    if (want <= 1)
        return team;
    pthread_mutex_lock(&engine_lock);
    team.parallel_for = engine_parallel_for;
    team.pool = engine_pool;
    pthread_mutex_unlock(&engine_lock);
    if (team.parallel_for != NULL) {
        team.threads = want;
        return team;
    }
#if defined(QMM_HAVE_OPENMP)
    if (omp_in_parallel())
        return team;
    team.budgeted = borrow(want, limit);
    team.threads = team.budgeted;
#endif
    return team;
}

void qmm_team_shrink(qmm_team *team, size_t threads)
{
    if (threads < 1)
        threads = 1;
    if (threads >= team->threads)
        return;
    if (team->budgeted != 0) {
        atomic_fetch_sub(&budget_used, team->budgeted - threads);
        team->budgeted = threads;
    }
    team->threads = threads;
}

void qmm_team_leave(qmm_team *team)
{
    if (team->budgeted != 0)
        atomic_fetch_sub(&budget_used, team->budgeted);
    team->budgeted = 0;
}

void qmm_parallel_for(size_t tasks, qmm_task_fn *task, void *context)
{
    if (task == NULL || tasks == 0)
        return;
    qmm_team team = qmm_team_join(tasks);
    qmm_team_run(&team, tasks, task, context);
    qmm_team_leave(&team);
}

void qmm_team_run(const qmm_team *team, size_t tasks, qmm_task_fn *task, void *context)
{
    if (team->threads <= 1 || tasks <= 1) {
        for (size_t t = 0; t < tasks; t++)
            task(context, t);
        return;
    }
    if (team->parallel_for != NULL) {
        team->parallel_for(team->pool, tasks, task, context);
        return;
    }
#if defined(QMM_HAVE_OPENMP)
    openmp_run(team->threads < tasks ? team->threads : tasks, tasks, task, context);
#endif
}
