/*
 * x86_64 dispatch and exactness, small enough to run under qemu-x86_64 in
 * seconds (test_kernels_exact takes minutes there):
 *
 *   test_x86_dispatch auto        AVX2 kernels supported and chosen iff this CPU
 *                                 has AVX2 and QMM_DISABLE leaves it
 *   test_x86_dispatch avx2        the CPU must have AVX2: AVX2 kernels chosen
 *   test_x86_dispatch portable    AVX2 kernels unsupported, the portable ones chosen
 *   test_x86_dispatch forced <k>  QMM_KERNEL=<k> (set by the caller) names a
 *                                 kernel that cannot run here: every entry point
 *                                 refuses it with QMM_ERR_UNSUPPORTED, C untouched
 *
 * The first three then check bit-exactness: each supported kernel's microkernel
 * on single tiles (full, partial, both C orders; partial rows where it has
 * them), and a set of edge shapes
 * through the public calls (the selected kernels) and through each supported
 * kernel forced. A kernel chosen on a CPU without its instructions would die
 * here with SIGILL, which ctest reports as a failure.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/choose.h"
#include "dispatch/cpu.h"
#include "dispatch/driver.h"
#include "dispatch/plan.h"
#include "dispatch/registry.h"
#include "support/kernel_tile.h"
#include "support/testlib.h"

static long checks;

static int is_avx2(const qmm_kernel *k)
{
    return strcmp(k->isa, "avx2") == 0;
}

/* ---- which kernels ------------------------------------------------------ */

static void expect_selection(int avx2)
{
    size_t avx2_kernels = 0;
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        if (!is_avx2(k))
            continue;
        avx2_kernels++;
        CHECK((k->is_supported_here() != 0) == avx2, "%s: supported_here %d, expected %d",
              k->name, k->is_supported_here() != 0, avx2);
        CHECK(qmm_kernel_at(i)->supported_here == avx2, "%s: qmm_kernel_at says %d", k->name,
              qmm_kernel_at(i)->supported_here);
        checks += 2;
    }
    CHECK(avx2_kernels >= 2, "only %zu AVX2 kernels compiled in", avx2_kernels);

    /* What the one-shot calls and the plans run, matrix and GEMV roles. */
    static const size_t shapes[][2] = {{64, 64}, {1000, 1000}, {64, 1}, {1, 64}, {100, 30}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const qmm_kernel *k = NULL;
        CHECK(qmm_choose_for_call(shapes[s][0], shapes[s][1], &k) == QMM_OK && k != NULL,
              "no kernel for m=%zu n=%zu", shapes[s][0], shapes[s][1]);
        if (k != NULL)
            CHECK(is_avx2(k) == avx2, "m=%zu n=%zu runs %s (isa %s)", shapes[s][0],
                  shapes[s][1], k->name, k->isa);
        checks++;
    }
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, 50, QMM_N_SYMBOLIC, 70) == QMM_OK, "symbolic plan");
    if (plan != NULL) {
        const qmm_kernel *matrix = qmm_plan_kernel(plan, 8), *gemv = qmm_plan_kernel(plan, 1);
        CHECK(matrix != NULL && is_avx2(matrix) == avx2 && matrix->nr > 1,
              "symbolic plan, n > 1: %s", matrix ? matrix->name : "none");
        CHECK(gemv != NULL && is_avx2(gemv) == avx2 && gemv->nr == 1,
              "symbolic plan, n == 1: %s", gemv ? gemv->name : "none");
        printf("chosen: matrix %s, GEMV %s\n", matrix ? matrix->name : "none",
               gemv ? gemv->name : "none");
        qmm_plan_destroy(plan);
        checks += 2;
    }
}

/* ---- exactness ---------------------------------------------------------- */

/* m, n, k of the products checked whole: edges of every tile size, depths
 * around the pair, quad and 16 multiples, GEMV and single-row shapes. */
static const size_t products[][3] = {
    {1, 1, 1},   {1, 1, 3},  {6, 16, 2},   {7, 17, 9},   {5, 3, 31},  {13, 33, 17},
    {12, 32, 8}, {33, 65, 64}, {64, 1, 300}, {1, 64, 300}, {17, 1, 4},  {9, 1, 33},
    {30, 47, 1}, {100, 2, 129},
};

static qmm_status product(const qmm_kernel *forced, size_t m, size_t n, size_t k,
                          const test_matrix *a, const test_matrix *b, test_matrix *c)
{
    if (forced != NULL)
        return qmm_product(forced, m, n, k, a->base, a->rs, a->cs, b->base, b->rs, b->cs,
                           c->base, c->rs, c->cs);
    if (c->cs == 1)
        return qmm_i8_i32(m, n, k, a->base, (size_t)a->rs, b->base, (size_t)b->rs, c->base,
                          (size_t)c->rs);
    return qmm_i8_i32_strided(m, n, k, a->base, a->rs, a->cs, b->base, b->rs, b->cs, c->base,
                              c->rs, c->cs);
}

static void products_through(const qmm_kernel *forced)
{
    const char *label = forced != NULL ? forced->name : "selected";
    for (size_t s = 0; s < sizeof products / sizeof products[0]; s++)
        for (int colmajor = 0; colmajor < 2; colmajor++) {
            size_t m = products[s][0], n = products[s][1], k = products[s][2];
            test_layout cl = colmajor ? LAYOUT_COL : LAYOUT_ROW;
            test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 3);
            test_matrix b = test_matrix_new(k, n, 1, colmajor ? LAYOUT_COL : LAYOUT_ROW, 1);
            test_matrix c = test_matrix_new(m, n, 4, cl, 2);
            test_matrix_fill_random_i8(&a);
            test_matrix_fill_random_i8(&b);
            int32_t *ref = malloc(m * n * sizeof *ref);
            if (ref == NULL)
                abort();
            test_reference(&a, &b, ref);
            char text[96];
            snprintf(text, sizeof text, "%s m=%zu n=%zu k=%zu %s", label, m, n, k,
                     colmajor ? "col-major" : "row-major");
            qmm_status st = product(forced, m, n, k, &a, &b, &c);
            CHECK(st == QMM_OK, "%s: %s", text, qmm_status_str(st));
            if (st == QMM_OK)
                test_compare(text, &c, ref);
            CHECK(test_matrix_surroundings_intact(&c), "%s: wrote outside C", text);
            checks += 2;
            free(ref);
            test_matrix_free(&a);
            test_matrix_free(&b);
            test_matrix_free(&c);
        }
}

static void exactness(void)
{
    static const size_t depths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 33, 64};
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        if (!k->is_supported_here())
            continue;
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
            checks += test_kernel_tile(k, depths[d], k->mr, k->nr, LAYOUT_ROW, FILL_RANDOM);
            checks += test_kernel_tile(k, depths[d], k->mr, k->nr, LAYOUT_COL, FILL_MIN_MIN);
            checks += test_kernel_tile(k, depths[d], (k->mr + 1) / 2, (k->nr + 1) / 2,
                                       d % 2 ? LAYOUT_REVERSED : LAYOUT_SPACED, FILL_RANDOM);
            for (unsigned rows = 1; k->run_rows != NULL && rows < k->mr; rows++)
                checks += test_kernel_rows(k, depths[d], rows, k->mr, k->nr,
                                           d % 2 ? LAYOUT_COL : LAYOUT_ROW, FILL_RANDOM);
        }
        products_through(k);
    }
    products_through(NULL);
}

/* ---- a forced kernel that cannot run ------------------------------------ */

static void forced_unsupported(const char *name)
{
    const qmm_kernel *k = qmm_registry_find(name);
    CHECK(k != NULL, "no kernel %s", name);
    const char *env = getenv("QMM_KERNEL");
    CHECK(env != NULL && strcmp(env, name) == 0, "QMM_KERNEL must be %s", name);
    if (k == NULL || env == NULL)
        return;
    CHECK(!k->is_supported_here(), "%s is supported here: nothing to refuse", name);
    int8_t a[64] = {1}, b[64] = {1};
    int32_t c[64];
    for (int i = 0; i < 64; i++)
        c[i] = 7;
    static const size_t shapes[][3] = {{8, 8, 8}, {8, 1, 8}, {1, 8, 8}};
    for (size_t s = 0; s < 3; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], kk = shapes[s][2];
        qmm_status st = qmm_i8_i32(m, n, kk, a, kk, b, n, c, n);
        CHECK(st == QMM_ERR_UNSUPPORTED, "one-shot %zux%zux%zu: %s", m, kk, n,
              qmm_status_str(st));
        st = qmm_i8_i32_strided(m, n, kk, a, (ptrdiff_t)kk, 1, b, (ptrdiff_t)n, 1, c, 1,
                                (ptrdiff_t)m);
        CHECK(st == QMM_ERR_UNSUPPORTED, "strided %zux%zux%zu: %s", m, kk, n,
              qmm_status_str(st));
        checks += 2;
    }
    for (int i = 0; i < 64; i++)
        CHECK(c[i] == 7, "a refused call wrote C[%d]", i);
    qmm_plan *plan = NULL;
    qmm_status st = qmm_plan_create(&plan, 8, QMM_N_SYMBOLIC, 8);
    CHECK(st == QMM_ERR_UNSUPPORTED && plan == NULL, "plan: %s", qmm_status_str(st));
    checks += 2;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "auto";
    test_seed(0x78383621);
    if (strcmp(mode, "forced") == 0 && argc > 2) {
        forced_unsupported(argv[2]);
        return test_finish("test_x86_dispatch forced", checks);
    }
    int hw = (qmm_cpu_detect_hardware() & QMM_CPU_AVX2) != 0;
    int avx2;
    if (strcmp(mode, "auto") == 0) {
        avx2 = qmm_cpu_has(QMM_CPU_AVX2);
    } else if (strcmp(mode, "avx2") == 0) {
        CHECK(hw, "this CPU does not report AVX2");
        avx2 = 1;
    } else if (strcmp(mode, "portable") == 0) {
        CHECK(!qmm_cpu_has(QMM_CPU_AVX2), "AVX2 is in effect");
        avx2 = 0;
    } else {
        fprintf(stderr, "usage: test_x86_dispatch auto|avx2|portable|forced <kernel>\n");
        return 2;
    }
    printf("mode %s: hardware AVX2 %d, expecting AVX2 kernels %s\n", mode, hw,
           avx2 ? "chosen" : "unsupported");
    checks++;
    expect_selection(avx2);
    exactness();
    return test_finish("test_x86_dispatch", checks);
}
