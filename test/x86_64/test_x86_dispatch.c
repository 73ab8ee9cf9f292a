/*
 * x86_64 dispatch and exactness, small enough to run under qemu-x86_64 in
 * seconds (test_kernels_exact takes minutes there). The x86 kernels come in
 * tiers: portable, avx2 (AVX2), avx512vnni (AVX-512 F/BW/VL/VNNI), amx
 * (AMX-TILE/AMX-INT8, granted by the OS), each in effect only when the one
 * below it is. The amx tier has no GEMV kernel: its GEMV role stays on the
 * VNNI tier's.
 *
 *   test_x86_dispatch auto        the highest tier that this CPU has, with every
 *                                 tier below it, none of them named by
 *                                 QMM_DISABLE, is chosen (AMX only where the
 *                                 OS granted it: test_amx_permission's part)
 *   test_x86_dispatch avx2        the CPU must have AVX2 in effect and not
 *                                 AVX-512 VNNI (QEMU's -cpu max): the AVX2 tier
 *   test_x86_dispatch portable    AVX2 not in effect: the portable tier
 *   test_x86_dispatch forced <k>  QMM_KERNEL=<k> (set by the caller) names a
 *                                 kernel that cannot run here: every entry point
 *                                 refuses it with QMM_ERR_UNSUPPORTED, C untouched
 *
 * "Chosen" means: every kernel of a tier above is unsupported, every kernel of
 * the expected tier and below is supported, and each role (matrix, GEMV) runs
 * the highest of those tiers that has a kernel of that role (a one-shot
 * single row, m == 1 < n, runs on a matrix kernel with partial rows when one
 * is supported, else transposed, on a GEMV kernel).
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
#include "platform/cpu.h"
#include "compute/loops.h"
#include "compute/gemm.h"
#include "compute/plan.h"
#include "dispatch/registry.h"
#include "support/kernel_tile.h"
#include "support/testlib.h"

static long checks;

/* The tiers, lowest first, by the isa their kernels declare. */
static const char *const tiers[] = {"generic", "avx2", "avx512vnni", "amx"};
enum { TIERS = sizeof tiers / sizeof tiers[0] };

static int tier_of(const qmm_kernel *k)
{
    for (int t = 0; t < TIERS; t++)
        if (strcmp(k->isa, tiers[t]) == 0)
            return t;
    CHECK(0, "%s: isa %s is in no x86 tier", k->name, k->isa);
    return -1;
}

/* The highest tier up to `top` with a kernel of the role (nr == 1 or not),
 * that has partial rows if `rows`; -1 if none has. */
static int role_tier(int top, int gemv, int rows)
{
    int best = -1;
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        int t = tier_of(k);
        if ((k->nr == 1) == gemv && (!rows || k->run_rows != NULL) && t <= top && t > best)
            best = t;
    }
    return best;
}

/* ---- which kernels ------------------------------------------------------ */

static void expect_selection(int top)
{
    size_t per_tier[TIERS] = {0};
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        int t = tier_of(k), want = t <= top;
        if (t < 0)
            continue;
        per_tier[t]++;
        CHECK((k->is_supported_here() != 0) == want, "%s: supported_here %d, expected %d",
              k->name, k->is_supported_here() != 0, want);
        CHECK(qmm_kernel_at(i)->supported_here == want, "%s: qmm_kernel_at says %d", k->name,
              qmm_kernel_at(i)->supported_here);
        checks += 2;
    }
    for (int t = 0; t < TIERS; t++)
        CHECK(per_tier[t] >= 1, "no %s kernel compiled in", tiers[t]);
    const int matrix_tier = role_tier(top, 0, 0), gemv_tier = role_tier(top, 1, 0);
    const int rows_tier = role_tier(top, 0, 1);
    const int single_row_tier = rows_tier >= 0 ? rows_tier : gemv_tier;

    /* What the one-shot calls and the plans run, matrix and GEMV roles, and
     * a single row, 1 x n. */
    static const size_t shapes[][2] = {{64, 64}, {1000, 1000}, {64, 1}, {1, 64}, {100, 30}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const qmm_kernel *k = NULL;
        size_t m = shapes[s][0], n = shapes[s][1];
        int transposed;
        CHECK(qmm_choose_for_call(m, n, &k, &transposed) == QMM_OK && k != NULL, "no kernel for m=%zu n=%zu",
              m, n);
        int want = n == 1 ? gemv_tier : m == 1 ? single_row_tier : matrix_tier;
        if (k != NULL)
            CHECK(tier_of(k) == want, "m=%zu n=%zu runs %s (isa %s), expected isa %s", m, n,
                  k->name, k->isa, tiers[want]);
        checks++;
    }
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, 50, QMM_SYMBOLIC, 70) == QMM_OK, "symbolic plan");
    if (plan != NULL) {
        const qmm_kernel *matrix = qmm_plan_kernel(plan, 8), *gemv = qmm_plan_kernel(plan, 1);
        CHECK(matrix != NULL && tier_of(matrix) == matrix_tier && matrix->nr > 1,
              "symbolic plan, n > 1: %s", matrix ? matrix->name : "none");
        CHECK(gemv != NULL && tier_of(gemv) == gemv_tier && gemv->nr == 1,
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
    qmm_status st = qmm_plan_create(&plan, 8, QMM_SYMBOLIC, 8);
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
    const unsigned hw = qmm_cpu_detect_hardware();
    int top; /* the tier expected */
    if (strcmp(mode, "auto") == 0) {
        /* The tiers' features, lowest first, stated here apart from the
         * library's table: the first one missing or disabled ends the climb. */
        static const unsigned tier_features[TIERS] = {0, QMM_CPU_AVX2, QMM_CPU_AVX512VNNI,
                                                      QMM_CPU_AMX};
        unsigned off = 0;
        char unknown[32];
        const char *disable = getenv("QMM_DISABLE");
        if (disable != NULL)
            qmm_cpu_parse_feature_list(disable, &off, unknown, sizeof unknown);
        top = 0;
        while (top + 1 < TIERS && (hw & ~off & tier_features[top + 1]) != 0)
            top++;
        if (top == 3 && !qmm_cpu_has(QMM_CPU_AMX)) {
            printf("AMX not granted by the OS: expecting the tier below\n");
            top = 2;
        }
    } else if (strcmp(mode, "avx2") == 0) {
        CHECK(qmm_cpu_has(QMM_CPU_AVX2) && !qmm_cpu_has(QMM_CPU_AVX512VNNI),
              "expected AVX2 in effect and AVX-512 VNNI not");
        top = 1;
    } else if (strcmp(mode, "portable") == 0) {
        CHECK(!qmm_cpu_has(QMM_CPU_AVX2), "AVX2 is in effect");
        top = 0;
    } else {
        fprintf(stderr, "usage: test_x86_dispatch auto|avx2|portable|forced <kernel>\n");
        return 2;
    }
    printf("mode %s: hardware AVX2 %d, AVX-512 VNNI %d, AMX %d; expecting the %s tier\n", mode,
           (hw & QMM_CPU_AVX2) != 0, (hw & QMM_CPU_AVX512VNNI) != 0, (hw & QMM_CPU_AMX) != 0,
           tiers[top]);
    checks++;
    expect_selection(top);
    exactness();
    return test_finish("test_x86_dispatch", checks);
}
