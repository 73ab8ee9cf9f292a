/*
 * The work a product does on T threads against one thread, counted, not
 * timed (compute/work.h): bytes packed, tiles computed, partial sums added.
 *
 * counts: for T up to 64, on 1024^3, 4096^3 and the MiniLM shapes, on every
 * matrix kernel this CPU runs. Each product runs through an engine pool of
 * this test's own that runs its tasks one after the other on the calling
 * thread: the split is T threads', and so are its counts (a panel is packed
 * once whoever packs it), on one core. The kernels are clones that compute
 * nothing: the packing, the split and the walk over the tiles are the
 * library's, and the other tests check what the kernels compute.
 *
 * concurrent: the same counts on OpenMP's threads, racing for the panels,
 * with the real kernels and exact results (registered where OpenMP is).
 */
#include <stdlib.h>
#include <string.h>

#include "compute/gemm.h"
#include "compute/partition.h"
#include "compute/work.h"
#include "dispatch/registry.h"
#include "support/testlib.h"

static long checks;

/* The bound: packing at most 1.15x the one-thread figure. */
#define PACKED_MOST 1.15

typedef struct shape {
    size_t m, k, n;
} shape;

static const shape shapes[] = {
    {1024, 1024, 1024}, {4096, 4096, 4096}, {128, 384, 384}, {128, 384, 1536}, {128, 1536, 384},
};

static const size_t thread_counts[] = {1, 2, 4, 8, 16, 32, 64};

static void serial_for(void *pool, size_t tasks, qmm_task_fn *task, void *context)
{
    (void)pool;
    for (size_t t = 0; t < tasks; t++)
        task(context, t);
}

static void compute_nothing(size_t kp, const void *a, const void *b, int32_t *c, ptrdiff_t rsc,
                            ptrdiff_t csc)
{
    (void)kp, (void)a, (void)b, (void)c, (void)rsc, (void)csc;
}

static void compute_no_rows(unsigned rows, size_t kp, const void *a, const void *b, int32_t *c,
                            ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)rows;
    compute_nothing(kp, a, b, c, rsc, csc);
}

static uint64_t packed(const qmm_work *w)
{
    return w->packed_a + w->packed_b;
}

/* One product of shape s on kern, its work on the calling thread. */
static qmm_work product(const qmm_kernel *kern, shape s, const int8_t *a, const int8_t *b,
                        int32_t *c)
{
    qmm_status st = qmm_product(kern, s.m, s.n, s.k, a, (ptrdiff_t)s.k, 1, b, (ptrdiff_t)s.n, 1,
                                c, (ptrdiff_t)s.n, 1);
    CHECK(st == QMM_OK, "%s %zux%zux%zu: %s", kern->name, s.m, s.k, s.n, qmm_status_str(st));
    return qmm_work_last();
}

static void counts_of(const qmm_kernel *real, shape s, const int8_t *a, const int8_t *b,
                      int32_t *c)
{
    qmm_kernel clone = *real;
    clone.run = compute_nothing;
    clone.run_rows = real->run_rows != NULL ? compute_no_rows : NULL;
    clone.begin = clone.end = NULL;
    clone.run_overlap = NULL;
    qmm_work one = {0}, half = {0};
    for (size_t i = 0; i < sizeof thread_counts / sizeof thread_counts[0]; i++) {
        const size_t t = thread_counts[i];
        qmm_set_num_threads(t);
        const qmm_work w = product(&clone, s, a, b, c);
        if (t == 1)
            one = half = w;
        printf("%-34s %4zux%4zux%4zu on %2zu: %2zu threads, %3zu tasks, %6.2f MiB packed, "
               "%8llu tiles, %6.1f KiB added\n",
               real->name, s.m, s.k, s.n, t, w.threads, w.tasks, (double)packed(&w) / (1 << 20),
               (unsigned long long)w.tiles, (double)w.reduced / 1024);
        CHECK((double)packed(&w) <= PACKED_MOST * (double)packed(&one),
              "%s %zux%zux%zu on %zu threads: %llu bytes packed, %.3fx one thread's", real->name,
              s.m, s.k, s.n, t, (unsigned long long)packed(&w),
              (double)packed(&w) / (double)packed(&one));
        /* One thread repacks A for each block of B, where threads that share
         * A pack it once: the packing may fall as threads are added, never
         * grow. */
        CHECK((double)packed(&w) <= PACKED_MOST * (double)packed(&half),
              "%s %zux%zux%zu on %zu threads: %llu bytes packed, %.3fx half as many threads'",
              real->name, s.m, s.k, s.n, t, (unsigned long long)packed(&w),
              (double)packed(&w) / (double)packed(&half));
        half = w;
        CHECK(w.tiles == one.tiles, "%s %zux%zux%zu on %zu threads: %llu tiles, one thread %llu",
              real->name, s.m, s.k, s.n, t, (unsigned long long)w.tiles,
              (unsigned long long)one.tiles);
        /* The large products use every thread: the counts above are T's. */
        if (s.m * s.n * s.k >= (size_t)1 << 30)
            CHECK(w.threads == t && w.tasks >= t * 3 / 4,
                  "%s %zux%zux%zu on %zu threads: a team of %zu, %zu tasks", real->name, s.m,
                  s.k, s.n, t, w.threads, w.tasks);
        checks++;
    }
}

static void counts(void)
{
    const shape *largest = &shapes[1];
    int8_t *a = calloc(largest->m * largest->k, 1), *b = calloc(largest->k * largest->n, 1);
    int32_t *c = malloc(largest->m * largest->n * sizeof *c);
    CHECK(a != NULL && b != NULL && c != NULL, "out of memory");
    if (a == NULL || b == NULL || c == NULL)
        return;
    qmm_set_parallel_for(serial_for, NULL);
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (kern->nr == 1 || !kern->is_supported_here())
            continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            counts_of(kern, shapes[s], a, b, c);
    }
    qmm_set_parallel_for(NULL, NULL);
    free(a);
    free(b);
    free(c);
}

/* Real threads racing for the panels pack each once: the counts of a serial
 * run of the same split, and the exact result. */
static void concurrent(void)
{
    /* Every product on every thread, however small, as in test_threads. */
    qmm_partition_set_small_product(1);
    static const shape racing[] = {{200, 300, 250}, {37, 2500, 45}, {500, 64, 700}};
    for (size_t s = 0; s < sizeof racing / sizeof racing[0]; s++) {
        const shape sh = racing[s];
        test_matrix a = test_matrix_new(sh.m, sh.k, 1, LAYOUT_ROW, 0);
        test_matrix b = test_matrix_new(sh.k, sh.n, 1, LAYOUT_ROW, 0);
        test_matrix c = test_matrix_new(sh.m, sh.n, 4, LAYOUT_ROW, 0);
        test_matrix_fill_random_i8(&a);
        test_matrix_fill_random_i8(&b);
        int32_t *ref = malloc(sh.m * sh.n * sizeof *ref);
        test_reference(&a, &b, ref);
        for (size_t i = 0; i < qmm_registry_count(); i++) {
            const qmm_kernel *kern = qmm_registry_at(i);
            if (kern->nr == 1 || !kern->is_supported_here())
                continue;
            for (size_t t = 2; t <= TEST_MAX_THREADS; t++) {
                qmm_set_num_threads(t);
                qmm_set_parallel_for(serial_for, NULL);
                const qmm_work serial = product(kern, sh, a.base, b.base, c.base);
                qmm_set_parallel_for(NULL, NULL);
                const qmm_work raced = product(kern, sh, a.base, b.base, c.base);
                char what[160];
                snprintf(what, sizeof what, "%s %zux%zux%zu on %zu threads", kern->name, sh.m,
                         sh.k, sh.n, t);
                test_compare(what, &c, ref);
                CHECK(packed(&raced) == packed(&serial) && raced.tiles == serial.tiles &&
                          raced.reduced == serial.reduced && raced.tasks == serial.tasks,
                      "%s: %llu bytes packed, %llu tiles, %llu added, %zu tasks; run in turn "
                      "%llu, %llu, %llu, %zu",
                      what, (unsigned long long)packed(&raced), (unsigned long long)raced.tiles,
                      (unsigned long long)raced.reduced, raced.tasks,
                      (unsigned long long)packed(&serial), (unsigned long long)serial.tiles,
                      (unsigned long long)serial.reduced, serial.tasks);
                checks++;
            }
        }
        free(ref);
        test_matrix_free(&a);
        test_matrix_free(&b);
        test_matrix_free(&c);
    }
}

static const test_mode modes[] = {
    {"counts", counts},
    {"concurrent", concurrent},
};

int main(int argc, char **argv)
{
    test_seed(23);
    return test_mode_main(argc, argv, "test_work", modes, sizeof modes / sizeof modes[0], &checks);
}
