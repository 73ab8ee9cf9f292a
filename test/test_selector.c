/*
 * The selector on synthetic candidate tables: fake descriptors that are never
 * run, each with a fixed answer to is_supported_here(). Every table is tried
 * in every order, because table order must never decide. The tract PR #2277
 * failure (equal tile area 64 for a 64x1 GEMV and an 8x8 matrix kernel, and
 * the GEMV chosen for every matrix product) is the first case. A fake reads
 * A in a K-inner int8 format (in place on one-shot calls) unless it says
 * otherwise.
 */
#include <string.h>

#include "dispatch/select.h"
#include "support/testlib.h"

static int yes(void) { return 1; }
static int no(void) { return 0; }
static int sdot_flag;
static int sdot_here(void) { return sdot_flag; }

#define FAKE_PACKING(nm, m_, n_, rank_, sup, a_fmt)                                        \
    {.name = nm, .isa = "fake", .mr = m_, .nr = n_, .rank = rank_, .is_supported_here = sup, \
     .a_format = &qmm_pack_formats[a_fmt]}
#define FAKE(nm, m_, n_, rank_, sup) FAKE_PACKING(nm, m_, n_, rank_, sup, QMM_PACK_I8_KIN16)

static const qmm_kernel gemv64 = FAKE("gemv_64x1", 64, 1, 10, yes);
static const qmm_kernel smlal8 = FAKE("smlal_8x8", 8, 8, 20, yes);
static const qmm_kernel sdot8 = FAKE("sdot_8x8", 8, 8, 30, sdot_here);
static const qmm_kernel best_unsupported = FAKE("best_16x16", 16, 16, 99, no);
static const qmm_kernel gemv_unsupported = FAKE("gemv_fast_64x1", 64, 1, 99, no);
static const qmm_kernel small4 = FAKE("small_4x4", 4, 4, 10, yes);
static const qmm_kernel fast8 = FAKE("fast_8x8", 8, 8, 30, yes);
static const qmm_kernel gemv_k1 = FAKE_PACKING("gemv_k1_64x1", 64, 1, 14, yes, QMM_PACK_I8_K1);
static const qmm_kernel gemv_in_place = FAKE("gemv_in_place_4x1", 4, 1, 10, yes);
static const qmm_kernel gemv_k4 = FAKE_PACKING("gemv_k4_32x1", 32, 1, 104, yes, QMM_PACK_I8_K4);
static const qmm_kernel gemv_k4_wide = FAKE_PACKING("gemv_k4_64x1", 64, 1, 208, yes, QMM_PACK_I8_K4);
static const qmm_kernel gemv_fast_in_place = FAKE("gemv_fast_in_place_8x1", 8, 1, 60, yes);
static void rows_never_run(unsigned rows, size_t kp, const void *a, const void *b, int32_t *c,
                           ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)rows, (void)kp, (void)a, (void)b, (void)c, (void)rsc, (void)csc;
}
static const qmm_kernel fast8_rows = {.name = "fast_rows_8x8", .isa = "fake", .mr = 8, .nr = 8,
                                      .rank = 30, .is_supported_here = yes,
                                      .a_format = &qmm_pack_formats[QMM_PACK_I8_KIN16],
                                      .run_rows = rows_never_run};

static long checks;

/* Calls fn with every permutation of the table (Heap's algorithm). */
static void each_order(const qmm_kernel **t, size_t count, size_t len,
                       void (*fn)(const qmm_kernel **, size_t))
{
    if (len <= 1) {
        fn(t, count);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        each_order(t, count, len - 1, fn);
        size_t j = len % 2 ? 0 : i;
        const qmm_kernel *tmp = t[j];
        t[j] = t[len - 1];
        t[len - 1] = tmp;
    }
}

static void expect_for(const qmm_kernel **t, size_t count, size_t m, size_t n, int one_shot,
                       const char *want)
{
    const qmm_kernel *got = qmm_select(t, count, m, n, one_shot);
    const char *name = got ? got->name : "(none)";
    char order[256] = "";
    for (size_t i = 0; i < count; i++) {
        strncat(order, t[i]->name, sizeof order - strlen(order) - 2);
        strncat(order, " ", sizeof order - strlen(order) - 1);
    }
    CHECK(strcmp(name, want) == 0, "%s m=%zu n=%zu table [%s]: chose %s, want %s",
          one_shot ? "one-shot" : "plan", m, n == QMM_SYMBOLIC ? (size_t)0 : n, order, name,
          want);
    checks++;
}

static void expect(const qmm_kernel **t, size_t count, size_t m, size_t n, const char *want)
{
    expect_for(t, count, m, n, 0, want);
}

static void gemv_vs_matrix(const qmm_kernel **t, size_t count)
{
    static const size_t ns[] = {2, 7, 128};
    for (size_t i = 0; i < 3; i++)
        expect(t, count, 256, ns[i], "smlal_8x8");
    expect(t, count, 256, 1, "gemv_64x1");
    expect(t, count, 256, QMM_SYMBOLIC, "smlal_8x8");
}

static void sdot_if_supported(const qmm_kernel **t, size_t count)
{
    sdot_flag = 0;
    expect(t, count, 256, 64, "smlal_8x8");
    expect(t, count, 256, QMM_SYMBOLIC, "smlal_8x8");
    expect(t, count, 256, 1, "gemv_64x1");
    sdot_flag = 1;
    expect(t, count, 256, 64, "sdot_8x8");
    expect(t, count, 256, QMM_SYMBOLIC, "sdot_8x8");
    expect(t, count, 256, 1, "gemv_64x1");
}

static void unsupported_never(const qmm_kernel **t, size_t count)
{
    static const size_t ns[] = {1, 2, 8, 16, 1000, QMM_SYMBOLIC};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        const qmm_kernel *got = qmm_select(t, count, 256, ns[i], 0);
        CHECK(got != NULL && got->is_supported_here(), "n=%zu: chose %s", ns[i],
              got ? got->name : "(none)");
        checks++;
    }
}

static void only_gemv(const qmm_kernel **t, size_t count)
{
    expect(t, count, 100, 50, "gemv_64x1");
    expect(t, count, 100, QMM_SYMBOLIC, "gemv_64x1");
}

static void padding(const qmm_kernel **t, size_t count)
{
    /* 3 x 3: an 8x8 tile is 9/64 useful (20 * 9/64 = 2.8), a 4x4 one 9/16
     * (10 * 9/16 = 5.6). */
    expect(t, count, 3, 3, "small_4x4");
    /* Symbolic n, m = 3: both expect 7.5 (20 * 3/8, 10 * 3/4); rank decides. */
    expect(t, count, 3, QMM_SYMBOLIC, "smlal_8x8");
    /* Large shapes: the tiles fit, rank decides. */
    expect(t, count, 300, 300, "smlal_8x8");
    expect(t, count, 300, QMM_SYMBOLIC, "smlal_8x8");
}

static void padding_paid_for(const qmm_kernel **t, size_t count)
{
    /* n = 2: a kernel 3x faster still wins with a quarter of its tile useful
     * (30 * 2/8 = 7.5 against 10 * 2/4 = 5)... */
    expect(t, count, 64, 2, "fast_8x8");
    /* ...but not with 1/16 of it (30 * 4/64 = 1.9 against 10 * 4/16 = 2.5). */
    expect(t, count, 2, 2, "small_4x4");
}

static void partial_rows_pay_no_padding(const qmm_kernel **t, size_t count)
{
    /* 2 x 2: without partial rows fast_8x8 lost (above); with them only n is
     * padded (30 * 2/8 = 7.5 against 10 * 2/4 * 2/4 = 2.5). */
    expect(t, count, 2, 2, "fast_rows_8x8");
    expect(t, count, 2, QMM_SYMBOLIC, "fast_rows_8x8");
}

/* A one-shot matrix-vector product packs A for one use, at about the cost of
 * the MACs: a kernel whose A format is a transpose (K1: packer rank 9, K4: 21,
 * dispatch/select.c) pays for it there, one reading A in place does not; a
 * plan packs A once and rank alone counts. */
static void slow_packing_loses_once(const qmm_kernel **t, size_t count)
{
    /* 1 / (1/14 + 1/9) = 5.5 against 10. */
    expect_for(t, count, 1024, 1, 0, "gemv_k1_64x1");
    expect_for(t, count, 1024, 1, 1, "gemv_in_place_4x1");
}

static void fast_in_place_beats_packed(const qmm_kernel **t, size_t count)
{
    /* 1 / (1/104 + 1/21) = 17.5 against 60. */
    expect_for(t, count, 1024, 1, 0, "gemv_k4_32x1");
    expect_for(t, count, 1024, 1, 1, "gemv_fast_in_place_8x1");
}

static void packing_paid_for(const qmm_kernel **t, size_t count)
{
    /* 1 / (1/208 + 1/21) = 19.1 against 10 (the portable GEMV on A64FX). */
    expect_for(t, count, 1024, 1, 1, "gemv_k4_64x1");
    /* n > 1 reuses packed A: only n == 1 pays. */
    expect_for(t, count, 1024, 64, 1, "fast_8x8");
}

int main(void)
{
    const qmm_kernel *t1[] = {&gemv64, &smlal8};
    each_order(t1, 2, 2, gemv_vs_matrix);
    const qmm_kernel *t2[] = {&gemv64, &smlal8, &sdot8};
    each_order(t2, 3, 3, sdot_if_supported);
    const qmm_kernel *t3[] = {&gemv64, &smlal8, &best_unsupported, &gemv_unsupported};
    each_order(t3, 4, 4, unsupported_never);
    const qmm_kernel *t4[] = {&gemv64, &best_unsupported};
    each_order(t4, 2, 2, only_gemv);
    const qmm_kernel *t5[] = {&smlal8, &small4, &gemv64};
    each_order(t5, 3, 3, padding);
    const qmm_kernel *t7[] = {&fast8, &small4, &gemv64};
    each_order(t7, 3, 3, padding_paid_for);
    const qmm_kernel *t8[] = {&fast8_rows, &small4, &gemv64};
    each_order(t8, 3, 3, partial_rows_pay_no_padding);
    const qmm_kernel *t9[] = {&gemv_k1, &gemv_in_place, &smlal8};
    each_order(t9, 3, 3, slow_packing_loses_once);
    const qmm_kernel *t10[] = {&gemv_k4, &gemv_fast_in_place, &gemv_in_place};
    each_order(t10, 3, 3, fast_in_place_beats_packed);
    const qmm_kernel *t11[] = {&gemv_k4_wide, &gemv_in_place, &gemv_k1, &fast8};
    each_order(t11, 4, 4, packing_paid_for);
    const qmm_kernel *t6[] = {&best_unsupported, &gemv_unsupported};
    CHECK(qmm_select(t6, 2, 8, 8, 0) == NULL, "a table with nothing supported chose a kernel");
    checks++;
    return test_finish("test_selector", checks);
}
