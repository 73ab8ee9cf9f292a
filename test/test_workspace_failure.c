/*
 * Memory that cannot be had: pool threads that refuse every allocation do
 * not matter, as tasks allocate nothing (the call's buffer, taken on the
 * calling thread, holds the panels they share), and the call succeeds, exact;
 * refused on the calling thread, the call fails with QMM_ERR_NO_MEMORY before
 * any task writes, C untouched.
 *
 * This program defines aligned_alloc, which the library's workspaces use,
 * and refuses it on the threads that ask: the calls of a statically linked
 * library bind to the program's definition. Not built with sanitizers, whose
 * run-times define it too.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "compute/partition.h"
#include "support/test_pool.h"
#include "support/testlib.h"

static _Thread_local int refuse_here;
static atomic_size_t refused;

void *aligned_alloc(size_t align, size_t size)
{
    if (refuse_here) {
        atomic_fetch_add(&refused, 1);
        return NULL;
    }
    void *p;
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static void refuse_on_this_thread(void)
{
    refuse_here = 1;
}

static long checks;

/* refuse_caller: the calling thread is refused too, during the call. */
static void product(size_t m, size_t n, size_t k, int refuse_caller, qmm_status want)
{
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(k, n, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(m, n, 4, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    test_matrix_fill_i32(&c, 0x5EED);
    int32_t *ref = malloc(m * n * sizeof *ref);
    test_reference(&a, &b, ref);
    size_t before = atomic_load(&refused);
    refuse_here = refuse_caller;
    qmm_status st = qmm_i8_i32(m, n, k, a.base, k, b.base, n, c.base, n);
    refuse_here = 0;
    CHECK(st == want, "%zux%zux%zu: %s, want %s", m, n, k, qmm_status_str(st),
          qmm_status_str(want));
    /* Refusals come from the caller alone: a task asked for nothing. */
    CHECK((atomic_load(&refused) > before) == refuse_caller,
          "%zux%zux%zu: %zu allocations refused, the caller %s", m, n, k,
          atomic_load(&refused) - before, refuse_caller ? "refusing" : "not refusing");
    if (want == QMM_OK) {
        test_compare("tasks on threads that can allocate nothing", &c, ref);
    } else {
        size_t touched = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                touched += test_i32_at(&c, i, j) != 0x5EED;
        CHECK(touched == 0, "%zux%zux%zu: a failed call wrote %zu elements of C", m, n, k,
              touched);
    }
    checks++;
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
}

int main(void)
{
    /* Two workers that refuse every allocation; the caller only waits, so
     * that they, not the caller, run the tasks. */
    enum { WORKERS = 2 };
    static test_pool p;
    test_seed(11);
    CHECK(test_pool_start(&p, WORKERS, 0, refuse_on_this_thread), "pool threads");
    qmm_set_parallel_for(test_pool_parallel_for, &p);
    qmm_set_num_threads(WORKERS + 1);
    qmm_partition_set_small_product(1);

    product(200, 300, 500, 0, QMM_OK);
    /* More panels than the caller's buffer holds from the first call. */
    product(200, 300, 1000, 1, QMM_ERR_NO_MEMORY);

    qmm_set_parallel_for(NULL, NULL);
    test_pool_stop(&p);
    return test_finish("test_workspace_failure", checks);
}
