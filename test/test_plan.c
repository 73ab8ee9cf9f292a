/*
 * Plans through the public API: concrete and symbolic n, the kernel each run
 * uses, exact results for every role, A packed once and reused, one plan run
 * from several threads at once, and every misuse with its status.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/registry.h"
#include "support/testlib.h"

static long checks;

/* Runs plan for n on fresh random B and checks C against the reference for a. */
static void run_and_check(qmm_plan *plan, const test_matrix *a, size_t n, const char *label)
{
    test_matrix b = test_matrix_new(a->cols, n, 1, LAYOUT_ROW, 1);
    test_matrix c = test_matrix_new(a->rows, n, 4, LAYOUT_ROW, 2);
    test_matrix_fill_random_i8(&b);
    int32_t *ref = malloc((a->rows * n + 1) * sizeof *ref);
    test_reference(a, &b, ref);
    qmm_status st = qmm_plan_run(plan, n, b.base, (size_t)b.rs, c.base, (size_t)c.rs);
    char what[160];
    snprintf(what, sizeof what, "%s n=%zu (%s)", label, n, qmm_plan_kernel_name(plan, n));
    CHECK(st == QMM_OK, "%s: %s", what, qmm_status_str(st));
    if (st == QMM_OK)
        test_compare(what, &c, ref);
    checks++;
    free(ref);
    test_matrix_free(&b);
    test_matrix_free(&c);
}

static int is_gemv(const char *name)
{
    const qmm_kernel *k = name ? qmm_registry_find(name) : NULL;
    return k != NULL && k->nr == 1;
}

static int is_matrix(const char *name)
{
    const qmm_kernel *k = name ? qmm_registry_find(name) : NULL;
    return k != NULL && k->nr > 1;
}

static void concrete(size_t m, size_t n, size_t k)
{
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 3);
    test_matrix_fill_random_i8(&a);
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, m, n, k) == QMM_OK && plan != NULL, "create %zux%zux%zu", m,
          n, k);
    CHECK(n == 1 ? is_gemv(qmm_plan_kernel_name(plan, n)) : is_matrix(qmm_plan_kernel_name(plan, n)),
          "n=%zu runs %s", n, qmm_plan_kernel_name(plan, n));
    CHECK(qmm_plan_kernel_name(plan, n + 1) == NULL, "a concrete plan names a kernel for n+1");
    CHECK(qmm_plan_kernel_name(plan, 0) == NULL, "a plan names a kernel for n=0");
    int8_t b[4] = {0};
    int32_t c[4];
    CHECK(qmm_plan_run(plan, n, b, n, c, n) == QMM_ERR_INVALID_ARG, "run before pack");
    CHECK(qmm_plan_pack_a(plan, a.base, (size_t)a.rs) == QMM_OK, "pack");
    CHECK(qmm_plan_pack_a(plan, a.base, (size_t)a.rs) == QMM_ERR_INVALID_ARG, "second pack");
    run_and_check(plan, &a, n, "concrete");
    run_and_check(plan, &a, n, "concrete again");
    test_matrix b2 = test_matrix_new(k, n + 1, 1, LAYOUT_ROW, 0);
    test_matrix c2 = test_matrix_new(m, n + 1, 4, LAYOUT_ROW, 0);
    CHECK(qmm_plan_run(plan, n + 1, b2.base, n + 1, c2.base, n + 1) == QMM_ERR_INVALID_ARG,
          "a concrete plan ran another n");
    CHECK(test_matrix_surroundings_intact(&c2), "a refused run wrote C");
    test_matrix_free(&b2);
    test_matrix_free(&c2);
    qmm_plan_destroy(plan);
    test_matrix_free(&a);
    checks++;
}

static void symbolic(size_t m, size_t k)
{
    static const size_t ns[] = {1, 2, 3, 7, 8, 17, 64, 1, 129};
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    qmm_plan *plan;
    CHECK(qmm_plan_create(&plan, m, QMM_SYMBOLIC, k) == QMM_OK, "create symbolic");
    CHECK(is_gemv(qmm_plan_kernel_name(plan, 1)), "symbolic n=1 runs %s",
          qmm_plan_kernel_name(plan, 1));
    CHECK(is_matrix(qmm_plan_kernel_name(plan, 2)) && is_matrix(qmm_plan_kernel_name(plan, 1000)),
          "symbolic n>1 runs %s", qmm_plan_kernel_name(plan, 2));
    CHECK(qmm_plan_kernel_name(plan, 0) == NULL &&
              qmm_plan_kernel_name(plan, QMM_SYMBOLIC) == NULL,
          "symbolic plan names a kernel for n=0 or n=symbolic");
    CHECK(qmm_plan_pack_a(plan, a.base, (size_t)a.rs) == QMM_OK, "pack symbolic");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        run_and_check(plan, &a, ns[i], "symbolic");
    qmm_plan_destroy(plan);
    test_matrix_free(&a);
    checks++;
}

/* ---- one plan, several threads ---------------------------------------- */
typedef struct worker {
    qmm_plan *plan;
    const test_matrix *a;
    size_t n;
    test_matrix b, c;
    int32_t *ref;
    qmm_status st[8];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < 8; r++)
        w->st[r] = qmm_plan_run(w->plan, w->n, w->b.base, (size_t)w->b.rs, w->c.base,
                                (size_t)w->c.rs);
    return NULL;
}

static void threads(void)
{
    enum { THREADS = 4 };
    const size_t m = 70, k = 90;
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    qmm_plan *plan;
    CHECK(qmm_plan_create(&plan, m, QMM_SYMBOLIC, k) == QMM_OK &&
              qmm_plan_pack_a(plan, a.base, k) == QMM_OK,
          "threads: plan");
    worker w[THREADS];
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker){.plan = plan, .a = &a, .n = t == 0 ? 1 : 13 * (size_t)t};
        w[t].b = test_matrix_new(k, w[t].n, 1, LAYOUT_ROW, 0);
        w[t].c = test_matrix_new(m, w[t].n, 4, LAYOUT_ROW, 0);
        test_matrix_fill_random_i8(&w[t].b);
        w[t].ref = malloc(m * w[t].n * sizeof *w[t].ref);
        test_reference(&a, &w[t].b, w[t].ref);
    }
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&tid[t], NULL, work, &w[t]) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tid[t], NULL);
        for (int r = 0; r < 8; r++)
            CHECK(w[t].st[r] == QMM_OK, "thread %d run %d: %s", t, r, qmm_status_str(w[t].st[r]));
        test_compare("threads", &w[t].c, w[t].ref);
        free(w[t].ref);
        test_matrix_free(&w[t].b);
        test_matrix_free(&w[t].c);
        checks++;
    }
    qmm_plan_destroy(plan);
    test_matrix_free(&a);
}

static void misuse(void)
{
    qmm_plan *plan = (qmm_plan *)&checks;  /* must stay untouched on failure */
    int8_t a[16] = {1}, b[16] = {2};
    int32_t c[16];
    CHECK(qmm_plan_create(NULL, 4, 4, 4) == QMM_ERR_INVALID_ARG, "NULL plan pointer");
    CHECK(qmm_plan_create(&plan, SIZE_MAX, 4, 4) == QMM_ERR_INVALID_ARG, "m too large");
    CHECK(qmm_plan_create(&plan, 4, (size_t)PTRDIFF_MAX + 1, 4) == QMM_ERR_INVALID_ARG,
          "n too large");
    CHECK(qmm_plan_create(&plan, 4, 4, (size_t)1 << 62) == QMM_ERR_INVALID_ARG,
          "packed size overflow");
    CHECK(plan == (qmm_plan *)&checks, "a failed create wrote *plan");

    CHECK(qmm_plan_create(&plan, 4, QMM_SYMBOLIC, 4) == QMM_OK, "create");
    CHECK(qmm_plan_pack_a(plan, a, 3) == QMM_ERR_INVALID_ARG, "lda < k");
    CHECK(qmm_plan_pack_a(plan, NULL, 4) == QMM_ERR_INVALID_ARG, "NULL A");
    CHECK(qmm_plan_pack_a(NULL, a, 4) == QMM_ERR_INVALID_ARG, "NULL plan to pack");
    CHECK(qmm_plan_pack_a(plan, a, 4) == QMM_OK, "pack after refusals");
    CHECK(qmm_plan_run(plan, 4, b, 3, c, 4) == QMM_ERR_INVALID_ARG, "ldb < n");
    CHECK(qmm_plan_run(plan, 4, b, 4, c, 3) == QMM_ERR_INVALID_ARG, "ldc < n");
    CHECK(qmm_plan_run(plan, 4, NULL, 4, c, 4) == QMM_ERR_INVALID_ARG, "NULL B");
    CHECK(qmm_plan_run(plan, 4, b, 4, NULL, 4) == QMM_ERR_INVALID_ARG, "NULL C");
    CHECK(qmm_plan_run(plan, 2, (int8_t *)c, 2, c, 2) == QMM_ERR_INVALID_ARG, "C over B");
    CHECK(qmm_plan_run(NULL, 4, b, 4, c, 4) == QMM_ERR_INVALID_ARG, "NULL plan to run");
    CHECK(qmm_plan_run(plan, 0, NULL, 0, NULL, 0) == QMM_OK, "n == 0 does nothing");
    CHECK(qmm_plan_kernel_name(NULL, 4) == NULL, "name from a NULL plan");
    qmm_plan_destroy(plan);
    qmm_plan_destroy(NULL);

    /* Empty plans. */
    CHECK(qmm_plan_create(&plan, 0, 4, 4) == QMM_OK && qmm_plan_pack_a(plan, NULL, 4) == QMM_OK &&
              qmm_plan_run(plan, 4, b, 4, NULL, 4) == QMM_OK,
          "m == 0 plan");
    qmm_plan_destroy(plan);
    for (int i = 0; i < 16; i++)
        c[i] = 99;
    CHECK(qmm_plan_create(&plan, 3, QMM_SYMBOLIC, 0) == QMM_OK &&
              qmm_plan_pack_a(plan, NULL, 0) == QMM_OK &&
              qmm_plan_run(plan, 5, NULL, 5, c, 5) == QMM_OK,
          "k == 0 plan");
    for (int i = 0; i < 15; i++)
        CHECK(c[i] == 0, "k == 0 plan: C[%d] = %d", i, (int)c[i]);
    CHECK(c[15] == 99, "k == 0 plan wrote past C");
    qmm_plan_destroy(plan);
    checks++;
}

int main(void)
{
    test_seed(42);
    static const size_t shapes[][3] = {{1, 1, 1}, {1, 5, 3}, {17, 1, 33}, {64, 1, 64},
                                       {33, 9, 65}, {128, 384, 384}, {100, 2, 7},
                                       {13, 100, 4096}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        concrete(shapes[i][0], shapes[i][1], shapes[i][2]);
    symbolic(1, 1);
    symbolic(37, 45);
    symbolic(256, 384);
    threads();
    misuse();
    return test_finish("test_plan", checks);
}
