#include "fuzz_case.h"

#include <stdio.h>

#include "support/testlib.h"

/* Each fault as passed, per variant; a fault with one form names it once. */
static const char *const fault_texts[FAULT_COUNT][3] = {
    [FAULT_NULL_A] = {"A NULL"},
    [FAULT_NULL_B] = {"B NULL"},
    [FAULT_NULL_C] = {"C NULL"},
    [FAULT_C_STRIDE_ZERO] = {"rsc = 0", "csc = 0", "csc = 0"},
    [FAULT_C_COLLIDES] = {"rsc = csc = 1 (elements of C collide)"},
    [FAULT_C_OVERLAPS_A] = {"C overlaps A"},
    [FAULT_C_OVERLAPS_B] = {"C overlaps B"},
    [FAULT_LEADING_DIM] = {"lda = k - 1", "ldb = n - 1", "ldc = n - 1"},
    [FAULT_SIZE_OVER_MAX] = {"m = PTRDIFF_MAX + 1", "n = PTRDIFF_MAX + 2", "k = PTRDIFF_MAX + 3"},
    [FAULT_EXTENT_OVERFLOW] = {"rsa = PTRDIFF_MAX", "rsb = PTRDIFF_MIN",
                               "rsc = PTRDIFF_MAX / 4 + 1"},
    [FAULT_RUN_UNPACKED] = {"qmm_plan_run before qmm_plan_pack_a"},
    [FAULT_PACK_TWICE] = {"qmm_plan_pack_a twice, the second with other values"},
    [FAULT_WRONG_N] = {"qmm_plan_run with n - 1"},
    [FAULT_NO_MEMORY] = {"m = 2^24, k = 2^36, lda = k: A too large to pack"},
};

static const char *fault_text(fuzz_fault f, unsigned variant)
{
    const char *text = fault_texts[f][variant];
    return text != NULL ? text : fault_texts[f][0];
}

static const char *const entry_names[ENTRY_COUNT] = {
    [ENTRY_ROW_MAJOR] = "qmm_i8_i32",
    [ENTRY_STRIDED] = "qmm_i8_i32_strided",
    [ENTRY_PLAN] = "plan",
    [ENTRY_PLAN_SYMBOLIC] = "plan(n symbolic)",
};

static const char *const value_names[VALUES_COUNT] = {
    [VALUES_RANDOM] = "random",
    [VALUES_MIN] = "all -128",
    [VALUES_ENDS] = "-128 and 127",
};

/* ---- drawing ------------------------------------------------------------ */

static size_t between(size_t lo, size_t hi)
{
    return lo + test_rand_below(hi - lo + 1);
}

static int one_in(size_t n)
{
    return test_rand_below(n) == 0;
}

/* An index into weights[] (count entries), each drawn in proportion. */
static size_t weighted(const unsigned *weights, size_t count)
{
    unsigned total = 0;
    for (size_t i = 0; i < count; i++)
        total += weights[i];
    size_t x = test_rand_below(total);
    for (size_t i = 0; i < count; i++) {
        if (x < weights[i])
            return i;
        x -= weights[i];
    }
    return count - 1;
}

#define PICK(array) ((array)[test_rand_below(sizeof(array) / sizeof((array)[0]))])

/* Tiles and depth steps of the kernels, and primes: sizes on and around
 * them cross every edge case of the driver and the packers. */
static const size_t tile_sizes[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64};
static const size_t primes[] = {2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,
                                41,  43,  47,  53,  59,  61,  67,  71,  73,  79,  83,  89,
                                97,  101, 127, 131, 251, 257, 509, 521, 1021, 1031};

static size_t near_tile(void)
{
    return PICK(tile_sizes) * between(1, 4) + between(0, 2) - 1;
}

static size_t prime(void)
{
    return PICK(primes);
}

/* Shapes, each kept to a few million multiply-adds (the rare wrapping
 * depths to tens of millions) so that the reference stays cheap. */
enum shape_kind {
    SHAPE_SMALL,   /* each size 0..17 */
    SHAPE_TILE,    /* multiples of tiles, +-1 */
    SHAPE_PRIME,
    SHAPE_MEDIUM,  /* each 1..120 */
    SHAPE_WIDE,    /* n up to 3000: several B blocks of narrow panels */
    SHAPE_DEEP,    /* k up to 6000: several B blocks of deep panels */
    SHAPE_TALL,    /* m up to 1500: several A blocks */
    SHAPE_WRAP,    /* k past 2^31 / 16384: sums of -128 * -128 wrap int32 */
    SHAPE_KINDS
};
static const unsigned shape_weights[SHAPE_KINDS] = {28, 20, 18, 12, 6, 6, 6, 2};

enum { MAX_MACS = 4000000 };

static void draw_shape(fuzz_case *fc)
{
    switch ((enum shape_kind)weighted(shape_weights, SHAPE_KINDS)) {
    case SHAPE_SMALL:
        fc->m = between(0, 17), fc->n = between(0, 17), fc->k = between(0, 17);
        break;
    case SHAPE_TILE:
        fc->m = near_tile(), fc->n = near_tile(), fc->k = near_tile();
        break;
    case SHAPE_PRIME:
        fc->m = prime(), fc->n = prime(), fc->k = prime();
        break;
    case SHAPE_MEDIUM:
        fc->m = between(1, 120), fc->n = between(1, 120), fc->k = between(1, 120);
        break;
    case SHAPE_WIDE:
        fc->m = between(1, 8), fc->n = between(200, 3000), fc->k = between(1, 200);
        break;
    case SHAPE_DEEP:
        fc->m = between(1, 24), fc->n = between(1, 24), fc->k = between(500, 6000);
        break;
    case SHAPE_TALL:
        fc->m = between(300, 1500), fc->n = between(1, 8), fc->k = between(1, 200);
        break;
    case SHAPE_WRAP:
    default: {
        /* Partial and full tiles of every kernel (6x16, 12x32, 8x8, ...). */
        static const size_t wrap_m[] = {1, 2, 5, 6, 8, 12, 13};
        static const size_t wrap_n[] = {1, 3, 8, 16, 17, 32, 33};
        fc->m = PICK(wrap_m), fc->n = PICK(wrap_n), fc->k = between(131073, 140000);
        fc->values = one_in(3) ? VALUES_ENDS : VALUES_MIN;
        return;
    }
    }
    if (fc->m * fc->n * fc->k > MAX_MACS)
        fc->k = MAX_MACS / (fc->m * fc->n) + 1;
    static const unsigned value_weights[VALUES_COUNT] = {80, 10, 10};
    fc->values = (fuzz_values)weighted(value_weights, VALUES_COUNT);
}

/* Strides of a rows x cols operand: one dimension inner (unit step or
 * spaced), the other outer past it, padded or not; an input may broadcast
 * (stride 0) along either dimension; any stride may be reversed (negative). */
static fuzz_strides draw_strides(size_t rows, size_t cols, int input)
{
    static const ptrdiff_t inner_steps[] = {1, 1, 1, 1, 2, 3};
    ptrdiff_t step = PICK(inner_steps);
    ptrdiff_t pad = one_in(2) ? 0 : (ptrdiff_t)between(1, 3);
    size_t r = rows ? rows : 1, c = cols ? cols : 1;
    fuzz_strides s;
    if (one_in(2))
        s = (fuzz_strides){.rs = (ptrdiff_t)c * step + pad, .cs = step};   /* row-major */
    else
        s = (fuzz_strides){.rs = step, .cs = (ptrdiff_t)r * step + pad};   /* column-major */
    if (input && one_in(10)) {
        int which = (int)test_rand_below(3);
        if (which != 1)
            s.rs = 0;
        if (which != 0)
            s.cs = 0;
    }
    if (one_in(4))
        s.rs = -s.rs;
    if (one_in(4))
        s.cs = -s.cs;
    return s;
}

/* Row-major: a leading dimension of cols, padded or not. */
static fuzz_strides draw_leading(size_t cols)
{
    return (fuzz_strides){.rs = (ptrdiff_t)(cols + (one_in(2) ? 0 : between(1, 5))), .cs = 1};
}

/* The faults that apply to an entry. */
static const fuzz_fault call_faults[] = {FAULT_NULL_A, FAULT_NULL_B, FAULT_NULL_C,
                                         FAULT_C_OVERLAPS_A, FAULT_C_OVERLAPS_B,
                                         FAULT_LEADING_DIM, FAULT_SIZE_OVER_MAX};
static const fuzz_fault strided_faults[] = {FAULT_NULL_A, FAULT_NULL_B, FAULT_NULL_C,
                                            FAULT_C_STRIDE_ZERO, FAULT_C_COLLIDES,
                                            FAULT_C_OVERLAPS_A, FAULT_C_OVERLAPS_B,
                                            FAULT_SIZE_OVER_MAX, FAULT_EXTENT_OVERFLOW};
static const fuzz_fault plan_faults[] = {FAULT_NULL_A, FAULT_NULL_B, FAULT_NULL_C,
                                         FAULT_C_OVERLAPS_B, FAULT_LEADING_DIM,
                                         FAULT_SIZE_OVER_MAX, FAULT_RUN_UNPACKED,
                                         FAULT_PACK_TWICE, FAULT_NO_MEMORY, FAULT_WRONG_N};

static fuzz_fault draw_fault(fuzz_entry entry)
{
    switch (entry) {
    case ENTRY_ROW_MAJOR:
        return PICK(call_faults);
    case ENTRY_STRIDED:
        return PICK(strided_faults);
    case ENTRY_PLAN:
        return PICK(plan_faults);
    case ENTRY_PLAN_SYMBOLIC:
    default: {
        /* A symbolic plan runs any n: no wrong one. */
        fuzz_fault f = PICK(plan_faults);
        return f == FAULT_WRONG_N ? FAULT_PACK_TWICE : f;
    }
    }
}

/* splitmix64: each case's generator state from the seed and its index alone. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

fuzz_case fuzz_case_make(uint64_t seed, uint64_t index)
{
    fuzz_case fc = {.seed = seed, .index = index};
    test_seed(mix(mix(seed) ^ index));
    static const unsigned entry_weights[ENTRY_COUNT] = {25, 40, 15, 20};
    fc.entry = (fuzz_entry)weighted(entry_weights, ENTRY_COUNT);
    draw_shape(&fc);
    fc.fault = one_in(8) ? draw_fault(fc.entry) : FAULT_NONE;
    if (fc.fault != FAULT_NONE) {
        /* Every size at least 1, or an empty product would be valid
         * whatever the fault; 2 where the fault is in a stride or n - 1. */
        size_t least = fc.fault == FAULT_C_COLLIDES || fc.fault == FAULT_EXTENT_OVERFLOW ||
                               fc.fault == FAULT_WRONG_N
                           ? 2
                           : 1;
        fc.m = fc.m < least ? least : fc.m;
        fc.n = fc.n < least ? least : fc.n;
        fc.k = fc.k < least ? least : fc.k;
        fc.fault_variant = (unsigned)test_rand_below(3);
    }
    if (fc.entry == ENTRY_STRIDED) {
        fc.a = draw_strides(fc.m, fc.k, 1);
        fc.b = draw_strides(fc.k, fc.n, 1);
        fc.c = draw_strides(fc.m, fc.n, 0);
    } else {
        fc.a = draw_leading(fc.k);
        /* A symbolic plan also runs n == 1 on B's first column. */
        fc.b = draw_leading(fc.entry == ENTRY_PLAN_SYMBOLIC && fc.n == 0 ? 1 : fc.n);
        fc.c = draw_leading(fc.n);
        fc.ldc1 = (size_t)draw_leading(1).rs;
    }
    int c_overlap = fc.fault == FAULT_C_OVERLAPS_A || fc.fault == FAULT_C_OVERLAPS_B;
    fc.ab_share = !c_overlap && one_in(8);
    fc.null_empty = one_in(2);
    fc.value_seed = test_rand();
    fc.threads = 1 + test_rand_below(4);
    return fc;
}

/* ---- describing --------------------------------------------------------- */

void fuzz_case_describe(const fuzz_case *fc, char *buf, size_t size)
{
    char ops[160];
    if (fc->entry == ENTRY_STRIDED)
        snprintf(ops, sizeof ops, "A{rs=%td cs=%td} B{rs=%td cs=%td} C{rs=%td cs=%td}",
                 fc->a.rs, fc->a.cs, fc->b.rs, fc->b.cs, fc->c.rs, fc->c.cs);
    else
        snprintf(ops, sizeof ops, "lda=%td ldb=%td ldc=%td", fc->a.rs, fc->b.rs, fc->c.rs);
    char ldc1[32] = "";
    if (fc->entry == ENTRY_PLAN_SYMBOLIC)
        snprintf(ldc1, sizeof ldc1, " (n=1 run: ldc=%zu)", fc->ldc1);
    snprintf(buf, size,
             "case %llu of seed %llu: %s m=%zu n=%zu k=%zu %s%s, values %s, %zu thread%s%s%s%s%s",
             (unsigned long long)fc->index, (unsigned long long)fc->seed,
             entry_names[fc->entry], fc->m, fc->n, fc->k, ops, ldc1, value_names[fc->values],
             fc->threads, fc->threads == 1 ? "" : "s",
             fc->ab_share ? ", A and B overlap" : "",
             fc->null_empty ? ", empty operands NULL" : "",
             fc->fault != FAULT_NONE ? ", invalid: " : "",
             fc->fault != FAULT_NONE ? fault_text(fc->fault, fc->fault_variant) : "");
}
