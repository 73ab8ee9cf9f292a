/*
 * Threads: the same bits for every thread count, kernel and entry point;
 * the thread count and where it comes from; an engine's own pool through
 * qmm_set_parallel_for; qmm_parallel_for, an engine's tasks on qmm's threads; calls from inside an OpenMP parallel region and from
 * many user threads at once. One mode per process (argv[1]), as the thread
 * count's default is read once.
 *
 * Products this small would run on one thread; the tests lower the size
 * under which qmm stays on one thread to a single multiply-add, so that
 * every shape below is split over the threads, giving some threads no tile,
 * some one, some many, and splitting the depth of thin, deep ones.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "compute/job.h"
#include "compute/gemm.h"
#include "compute/partition.h"
#include "compute/threads.h"
#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "support/test_pool.h"
#include "support/testlib.h"

static long checks;

/* Shapes in units of the kernel's tile: rows = mr*rt + ro, and so on. */
typedef struct shape {
    size_t rt, ro, ct, co, k;
    const char *what;
} shape;

static const shape shapes[] = {
    {0, 1, 0, 1, 50, "one partial tile"},
    {1, 0, 1, 0, 2500, "one tile, deep (depth split)"},
    {2, 1, 1, 3, 100, "a few tiles"},
    {5, 3, 7, 5, 300, "many tiles"},
    {0, 2, 0, 5, 131, "thin, k not a block multiple"},
    {20, 1, 0, 2000, 64, "B in several blocks"},
    {8, 3, 3, 0, 256, "A row-major, k a multiple of 64 (read in place)"},
};

static const shape tall = {0, 130, 0, 200, 1024, "B in several blocks, A in several sweeps"};

static size_t dim(size_t tile, size_t tiles, size_t extra)
{
    size_t d = tile * tiles + extra;
    return d == 0 ? 1 : d;
}

/* C = A.B on kern, for every thread count, each compared with the exact
 * reference. */
static void one_shot(const qmm_kernel *kern, const shape *s, test_layout la)
{
    size_t m = dim(kern->mr, s->rt, s->ro), n = dim(kern->nr, s->ct, s->co);
    test_matrix a = test_matrix_new(m, s->k, 1, la, 0);
    test_matrix b = test_matrix_new(s->k, n, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    int32_t *ref = malloc(m * n * sizeof *ref);
    test_reference(&a, &b, ref);
    for (size_t t = 1; t <= TEST_MAX_THREADS; t++) {
        test_matrix c = test_matrix_new(m, n, 4, LAYOUT_ROW, 1);
        qmm_set_num_threads(t);
        qmm_status st = qmm_product(kern, m, n, s->k, a.base, a.rs, a.cs, b.base, b.rs, b.cs,
                                    c.base, c.rs, c.cs);
        char what[200];
        snprintf(what, sizeof what, "%s %zux%zux%zu (%s, A %s) on %zu threads", kern->name, m,
                 n, s->k, s->what, test_layout_names[la], t);
        CHECK(st == QMM_OK, "%s: %s", what, qmm_status_str(st));
        if (st == QMM_OK)
            test_compare(what, &c, ref);
        CHECK(test_matrix_surroundings_intact(&c), "%s: wrote outside C", what);
        test_matrix_free(&c);
        checks++;
    }
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
}

/* A symbolic plan packed on each thread count, run with n > 1 and n == 1 on
 * each thread count. */
static void plans(size_t m, size_t k)
{
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    static const size_t ns[] = {1, 7, 300};
    for (size_t tp = 1; tp <= TEST_MAX_THREADS; tp++) {
        qmm_set_num_threads(tp);
        qmm_plan *plan;
        CHECK(qmm_plan_create(&plan, m, QMM_SYMBOLIC, k) == QMM_OK &&
                  qmm_plan_pack_a(plan, a.base, k) == QMM_OK,
              "plan %zux%zu packed on %zu threads", m, k, tp);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            test_matrix b = test_matrix_new(k, ns[i], 1, LAYOUT_ROW, 0);
            test_matrix_fill_random_i8(&b);
            int32_t *ref = malloc(m * ns[i] * sizeof *ref);
            test_reference(&a, &b, ref);
            for (size_t tr = 1; tr <= TEST_MAX_THREADS; tr++) {
                test_matrix c = test_matrix_new(m, ns[i], 4, LAYOUT_ROW, 0);
                qmm_set_num_threads(tr);
                qmm_status st = qmm_plan_run(plan, ns[i], b.base, ns[i], c.base, ns[i]);
                char what[200];
                snprintf(what, sizeof what, "plan %zux%zux%zu (%s) packed on %zu, run on %zu threads",
                         m, ns[i], k, qmm_plan_kernel_name(plan, ns[i]), tp, tr);
                CHECK(st == QMM_OK, "%s: %s", what, qmm_status_str(st));
                if (st == QMM_OK)
                    test_compare(what, &c, ref);
                test_matrix_free(&c);
                checks++;
            }
            free(ref);
            test_matrix_free(&b);
        }
        qmm_plan_destroy(plan);
    }
    test_matrix_free(&a);
}

/* Plans choose their kernels: each supported kernel is forced through
 * QMM_KERNEL in a child of its own (read once per process). */
static void plans_on_every_kernel(void)
{
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (!kern->is_supported_here() || !test_kernel_wanted(kern))
            continue;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("QMM_KERNEL", kern->name, 1);
            plans(3 * kern->mr + 1, 700);
            plans(2, 2100);
            exit(test_failures != 0);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                  WEXITSTATUS(status) == 0,
              "plans with QMM_KERNEL=%s failed", kern->name);
        checks++;
    }
}

static void identity(void)
{
    plans_on_every_kernel();
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (!kern->is_supported_here() || !test_kernel_wanted(kern))
            continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            one_shot(kern, &shapes[s], LAYOUT_ROW);
            one_shot(kern, &shapes[s], LAYOUT_COL);
        }
        /* Sweeps of a panel or so: rows, columns and depth cut as a very
         * large product's are. */
        qmm_job_set_sweep_bytes(1);
        one_shot(kern, &tall, LAYOUT_ROW);
        for (size_t s = 1; s < 4; s++)  /* deep, a few tiles, many tiles */
            one_shot(kern, &shapes[s], LAYOUT_ROW);
        qmm_job_set_sweep_bytes(0);
    }
}

/* ---- the thread count --------------------------------------------------- */

static size_t affinity_cpus(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
    return (size_t)CPU_COUNT(&set);
}

/* expect: the default count, or 0 for the affinity mask's. */
static void count(size_t expect)
{
    size_t want = expect != 0 ? expect : affinity_cpus();
    CHECK(qmm_get_num_threads() == want, "default thread count %zu, want %zu",
          qmm_get_num_threads(), want);
    CHECK(qmm_set_num_threads(3) == QMM_OK && qmm_get_num_threads() == 3, "set 3");
    CHECK(qmm_set_num_threads(QMM_MAX_THREADS + 1) == QMM_ERR_INVALID_ARG &&
              qmm_get_num_threads() == 3,
          "a count past QMM_MAX_THREADS was taken");
    CHECK(qmm_set_num_threads(QMM_MAX_THREADS) == QMM_OK &&
              qmm_get_num_threads() == QMM_MAX_THREADS,
          "set QMM_MAX_THREADS");
    CHECK(qmm_set_num_threads(0) == QMM_OK && qmm_get_num_threads() == want,
          "set 0 did not restore the default");
    checks++;
}

/* The affinity mask narrowed to one CPU before qmm first looks. */
static void count_affinity(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
    int first = 0;
    while (!CPU_ISSET(first, &set))
        first++;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity");
    count(1);
}

/* ---- an engine's pool ----------------------------------------------------- */

static void engine_pool(void)
{
    enum { POOL_WORKERS = 3 };
    static test_pool p;
    CHECK(test_pool_start(&p, POOL_WORKERS, 1, NULL), "pool threads");
    qmm_set_parallel_for(test_pool_parallel_for, &p);
    qmm_set_num_threads(POOL_WORKERS + 1);
    const qmm_kernel *kern;
    int transposed;
    CHECK(qmm_choose_for_call(200, 300, &kern, &transposed) == QMM_OK, "no kernel");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        one_shot(kern, &shapes[s], LAYOUT_ROW);
    plans(150, 500);
    CHECK(atomic_load(&p.calls) > 0 && atomic_load(&p.tasks_run) > atomic_load(&p.calls),
          "the engine's pool ran %zu tasks in %zu calls", atomic_load(&p.tasks_run),
          atomic_load(&p.calls));
    CHECK(atomic_load(&p.ran_on_worker), "no task ran on a worker of the pool");
    CHECK(qmm_threads_peak() == 0, "OpenMP threads ran while the engine's pool was set");
    qmm_set_parallel_for(NULL, NULL);
    test_pool_stop(&p);
    checks++;
}

/* ---- qmm_parallel_for: an engine's own tasks on qmm's threads ------------ */

enum { SPREAD_TASKS = 64 };

typedef struct spread {
    atomic_int ran[SPREAD_TASKS];
    pthread_t caller;
    atomic_int off_caller;
    int wait;  /* the caller's task waits (5 s at most) until another thread ran one */
} spread;

static void spread_task(void *context, size_t task)
{
    spread *s = context;
    atomic_fetch_add(&s->ran[task], 1);
    if (!pthread_equal(pthread_self(), s->caller)) {
        atomic_store(&s->off_caller, 1);
        return;
    }
    /* On a loaded machine the caller could take every task before another
     * thread wakes: it holds on to one until another thread has run one. */
    for (int ms = 0; s->wait && !atomic_load(&s->off_caller) && ms < 5000; ms++)
        usleep(1000);
    s->wait = 0;
}

/* Every task once, on more threads than the caller's when there are more. */
static void check_spread(size_t tasks, int expect_spread, const char *how)
{
    static spread s;
    for (size_t t = 0; t < SPREAD_TASKS; t++)
        atomic_store(&s.ran[t], 0);
    s.caller = pthread_self();
    atomic_store(&s.off_caller, 0);
    s.wait = expect_spread;
    qmm_parallel_for(tasks, spread_task, &s);
    int once = 1;
    for (size_t t = 0; t < SPREAD_TASKS; t++)
        once &= atomic_load(&s.ran[t]) == (t < tasks ? 1 : 0);
    CHECK(once, "qmm_parallel_for(%zu) %s: a task ran other than once", tasks, how);
    CHECK(!expect_spread || atomic_load(&s.off_caller),
          "qmm_parallel_for(%zu) %s: every task on the calling thread", tasks, how);
    checks += 2;
}

static void parallel_for(void)
{
    qmm_parallel_for(5, NULL, NULL);
    qmm_parallel_for(0, spread_task, NULL);
    qmm_set_num_threads(1);
    check_spread(SPREAD_TASKS, 0, "on one thread");
    qmm_set_num_threads(3);
#if defined(_OPENMP)
    check_spread(SPREAD_TASKS, 1, "through OpenMP");
#else
    check_spread(SPREAD_TASKS, 0, "without OpenMP");
#endif
    check_spread(1, 0, "of one task");
    test_pool p;
    CHECK(test_pool_start(&p, 2, 1, NULL), "pool threads");
    qmm_set_parallel_for(test_pool_parallel_for, &p);
    check_spread(SPREAD_TASKS, 1, "on an engine's pool");
    CHECK(atomic_load(&p.tasks_run) >= SPREAD_TASKS, "the engine's pool ran %zu tasks",
          atomic_load(&p.tasks_run));
    qmm_set_parallel_for(NULL, NULL);
    test_pool_stop(&p);
    qmm_set_num_threads(0);
    checks++;
}

/* ---- calls from many threads, and from a parallel region ------------------ */

enum { USER_THREADS = 6, CALLS_EACH = 4 };

/* One product checked on the calling thread; returns its mismatches. */
static size_t checked_product(size_t m, size_t n, size_t k, uint64_t seed)
{
    int8_t *a = malloc(m * k), *b = malloc(k * n);
    int32_t *c = malloc(m * n * sizeof *c);
    uint64_t x = seed;
    for (size_t i = 0; i < m * k; i++)
        a[i] = (int8_t)((x = x * 6364136223846793005u + 1442695040888963407u) >> 56);
    for (size_t i = 0; i < k * n; i++)
        b[i] = (int8_t)((x = x * 6364136223846793005u + 1442695040888963407u) >> 56);
    size_t wrong = qmm_i8_i32(m, n, k, a, k, b, n, c, n) != QMM_OK;
    for (size_t i = 0; i < m && !wrong; i += 7)
        for (size_t j = 0; j < n; j += 5) {
            uint32_t s = 0;
            for (size_t p = 0; p < k; p++)
                s += (uint32_t)((int32_t)a[i * k + p] * b[p * n + j]);
            wrong += c[i * n + j] != (int32_t)s;
        }
    free(a);
    free(b);
    free(c);
    return wrong;
}

static void *user_thread(void *arg)
{
    size_t *wrong = arg;
    for (int r = 0; r < CALLS_EACH; r++)
        *wrong += checked_product(96, 160, 300 + (size_t)r, (uint64_t)(uintptr_t)arg + r);
    return NULL;
}

/* Calls at once from USER_THREADS threads with a thread count of 2: qmm adds
 * at most one thread at a time to all of them together. */
static void many_user_threads(void)
{
    qmm_set_num_threads(2);
    pthread_t tid[USER_THREADS];
    size_t wrong[USER_THREADS] = {0};
    for (int t = 0; t < USER_THREADS; t++)
        CHECK(pthread_create(&tid[t], NULL, user_thread, &wrong[t]) == 0, "pthread_create");
    for (int t = 0; t < USER_THREADS; t++) {
        pthread_join(tid[t], NULL);
        CHECK(wrong[t] == 0, "user thread %d: %zu wrong results", t, wrong[t]);
    }
    CHECK(qmm_threads_peak() <= 1, "%zu threads ran qmm tasks for other threads' calls at once",
          qmm_threads_peak());
    checks++;
}

/* Calls from every thread of an OpenMP parallel region, nesting allowed by
 * the environment (OMP_MAX_ACTIVE_LEVELS, set by ctest): each runs on its
 * own thread, so qmm adds no thread. */
static void parallel_region(void)
{
#if defined(_OPENMP)
    qmm_set_num_threads(4);
    atomic_size_t wrong = 0;
    size_t before = qmm_threads_peak();
#pragma omp parallel num_threads(3)
    {
        size_t w = 0;
        for (int r = 0; r < CALLS_EACH; r++)
            w += checked_product(120, 130, 400, (uint64_t)omp_get_thread_num() * 10 + r);
        atomic_fetch_add(&wrong, w);
    }
    CHECK(atomic_load(&wrong) == 0, "%zu wrong results inside a parallel region",
          atomic_load(&wrong));
    CHECK(qmm_threads_peak() == before, "calls inside a parallel region added threads");
    checks++;
#endif
}

static void callers(void)
{
    parallel_region();
    many_user_threads();
}

static void count_default(void)
{
    count(0);
}

static void count_env(void)
{
    count(3);
}

static const test_mode modes[] = {
    {"identity", identity},
    {"count-default", count_default},
    {"count-env", count_env},
    {"count-affinity", count_affinity},
    {"pool", engine_pool},
    {"parallel-for", parallel_for},
    {"callers", callers},
};

int main(int argc, char **argv)
{
    test_seed(7);
    qmm_partition_set_small_product(1);
    return test_mode_main(argc, argv, "test_threads", modes, sizeof modes / sizeof modes[0],
                          &checks);
}
