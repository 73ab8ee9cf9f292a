/*
 * The AMX-INT8 kernel on the tile model, wherever this runs: the model's own
 * checks, then the kernel's source built against it (amx_on_model.c) in
 * place of the registry's code, through everything test_kernels_exact runs
 * on a kernel, then on 1, 2 and 4 threads with every task's tiles released
 * after each product, and a row-major A read in place where the driver's
 * rules say so (compute/loops.h) and only there; last, where qmm grants AMX,
 * the model against the instructions.
 */
#include <stdlib.h>

#include "amx_on_model.h"
#include "compute/gemm.h"
#include "dispatch/registry.h"
#include "support/kernel_suite.h"
#include "support/testlib.h"
#include "test_amx_model.h"
#include "tile_model.h"

static int supported_everywhere(void)
{
    return 1;
}

/* After a product: every thread that ran its tiles gave them back. */
static void check_released(const char *after)
{
    CHECK(tile_model_threads_configured() == 0, "after %s: %d threads still hold tiles", after,
          tile_model_threads_configured());
}

typedef struct product_case {
    size_t m, n, k;
    size_t a_pad;       /* lda = k + a_pad */
    test_layout c_layout;
    int in_place;       /* the driver reads A in place (compute/loops.h) */
} product_case;

/* In place: k a multiple of the A format's 64 and one k block (up to 3072
 * depths on a 48 KiB L1: compute/blocking.c), lda == k. The others just miss
 * it: lda = k + 3, several k blocks, k not a multiple of 64. */
static const product_case products[] = {
    {70, 45, 128, 0, LAYOUT_ROW, 1},
    {33, 40, 640, 0, LAYOUT_COL, 1},
    {96, 64, 1024, 0, LAYOUT_SPACED, 1},
    {31, 33, 192, 0, LAYOUT_REVERSED, 1},
    {70, 45, 128, 3, LAYOUT_ROW, 0},
    {33, 40, 640, 3, LAYOUT_COL, 0},
    {96, 64, 6144, 0, LAYOUT_ROW, 0},
    {200, 300, 1100, 0, LAYOUT_COL, 0},
};

/* Loads from A of the driver's full panels of 32 rows, each 64 depths into
 * tmm0 and tmm1 per B panel; a last partial panel is packed. */
static size_t in_place_loads(const product_case *p)
{
    return p->m / 32 * ((p->n + 31) / 32) * (p->k / 64) * 2;
}

static long product(const qmm_kernel *kern, const product_case *p, size_t threads)
{
    test_matrix a = test_matrix_new(p->m, p->k, 1, LAYOUT_ROW, p->a_pad);
    test_matrix b = test_matrix_new(p->k, p->n, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(p->m, p->n, 4, p->c_layout, 1);
    int32_t *ref = malloc(p->m * p->n * sizeof *ref);
    if (ref == NULL)
        abort();
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    if (kern->a_type == QMM_TYPE_U8)
        test_reference_a_u8(&a, &b, ref);
    else
        test_reference(&a, &b, ref);
    tile_model_watch(a.base, (const int8_t *)a.base + p->m * (size_t)a.rs);
    qmm_status st = qmm_product(kern, p->m, p->n, p->k, a.base, a.rs, a.cs, b.base, b.rs, b.cs,
                                c.base, c.rs, c.cs);
    const size_t loads = tile_model_watched_loads();
    char label[160];
    snprintf(label, sizeof label, "%s %zu threads m=%zu n=%zu k=%zu lda=%zu C:%s", kern->name,
             threads, p->m, p->n, p->k, (size_t)a.rs, test_layout_names[p->c_layout]);
    CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
    test_compare(label, &c, ref);
    check_released(label);
    const size_t want = p->in_place ? in_place_loads(p) : 0;
    CHECK(loads == want, "%s: %zu tile loads from A's own rows, not %zu", label, loads, want);
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
    return 3;
}

static long threads_and_in_place(const qmm_kernel *kern)
{
    static const size_t thread_counts[] = {1, 2, 4};
    long checks = 0;
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
        CHECK(qmm_set_num_threads(thread_counts[t]) == QMM_OK, "%zu threads refused",
              thread_counts[t]);
        for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
            checks += product(kern, &products[i], thread_counts[t]);
    }
    qmm_set_num_threads(0);
    return checks;
}

/* kernel's descriptor with the model's microkernels and job hooks in place
 * of its code, supported everywhere. */
static qmm_kernel on_the_model(const qmm_kernel *kernel, const char *name, qmm_ukernel_fn *run,
                               qmm_ukernel_rows_fn *run_rows,
                               qmm_ukernel_overlap_fn *run_overlap)
{
    qmm_kernel k = *kernel;
    k.name = name;
    k.is_supported_here = supported_everywhere;
    k.run = run;
    k.run_rows = run_rows;
    k.run_overlap = run_overlap;
    k.begin = model_amx_begin;
    k.end = model_amx_end;
    return k;
}

int main(void)
{
    long checks = model_self_test();
    checks += model_fault_tests();
    const qmm_kernel *real = qmm_registry_find("x86_64_mmm_i8i32_32x32_amx");
    CHECK(real != NULL, "the AMX kernel is not in the registry");
    if (real != NULL) {
        CHECK(real->u8_a != NULL, "the AMX kernel has no uint8-A twin");
        qmm_kernel on_model = on_the_model(real, "x86_64_mmm_i8i32_32x32_amx@model",
                                           model_amx_run, model_amx_run_rows,
                                           model_amx_run_overlap);
        qmm_kernel twin_on_model = on_the_model(real->u8_a != NULL ? real->u8_a : real,
                                                "x86_64_mmm_i8i32_32x32_amx+u8a@model",
                                                model_amx_u8a_run, model_amx_u8a_run_rows,
                                                model_amx_u8a_run_overlap);
        on_model.u8_a = &twin_on_model;
        test_seed(14);
        checks += kernel_suite_run(&on_model);
        check_released("the kernel suite");
        checks += threads_and_in_place(&on_model);
        /* The twin through the driver: A's bytes read as uint8, in place. */
        checks += threads_and_in_place(&twin_on_model);
    }
    checks += model_hardware_comparison();
    return test_finish("test_amx_model", checks);
}
