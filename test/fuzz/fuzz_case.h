/*
 * One case of the differential fuzzer: a call (or a plan's calls) into the
 * public API, drawn from the seed and the case's index alone, so that any case
 * can be made again, and described, without running the ones before it.
 */
#ifndef QMM_FUZZ_CASE_H
#define QMM_FUZZ_CASE_H

#include <stddef.h>
#include <stdint.h>

typedef enum fuzz_entry {
    ENTRY_ROW_MAJOR,      /* qmm_i8_i32 */
    ENTRY_STRIDED,        /* qmm_i8_i32_strided */
    ENTRY_PLAN,           /* qmm_plan_create(m, n, k), pack_a, run(n) */
    ENTRY_PLAN_SYMBOLIC,  /* qmm_plan_create(m, QMM_SYMBOLIC, k), pack_a, run(n), run(1) */
    ENTRY_COUNT
} fuzz_entry;

typedef enum fuzz_values {
    VALUES_RANDOM,        /* every int8 value */
    VALUES_MIN,           /* all -128: the largest products, the depths that wrap int32 */
    VALUES_ENDS,          /* -128 and 127 at random */
    VALUES_COUNT
} fuzz_values;

/* What makes a call invalid; the library must refuse it and leave C as it
 * was. FAULT_NONE: a valid call, whose result must be exact. */
typedef enum fuzz_fault {
    FAULT_NONE,
    FAULT_NULL_A,            /* A NULL, though m, k > 0 */
    FAULT_NULL_B,
    FAULT_NULL_C,
    FAULT_C_STRIDE_ZERO,     /* strided: a C stride is 0 */
    FAULT_C_COLLIDES,        /* strided: two elements of C share memory */
    FAULT_C_OVERLAPS_A,      /* C's bytes overlap A's */
    FAULT_C_OVERLAPS_B,
    FAULT_LEADING_DIM,       /* row-major: lda < k, ldb < n or ldc < n */
    FAULT_SIZE_OVER_MAX,     /* a size above PTRDIFF_MAX */
    FAULT_EXTENT_OVERFLOW,   /* strided: A's, B's or C's span passes PTRDIFF_MAX bytes */
    FAULT_RUN_UNPACKED,      /* plan: qmm_plan_run before qmm_plan_pack_a */
    FAULT_PACK_TWICE,        /* plan: a second qmm_plan_pack_a (the first stays) */
    FAULT_WRONG_N,           /* concrete plan: run with n - 1 */
    FAULT_NO_MEMORY,         /* plan: A too large to pack (QMM_ERR_NO_MEMORY) */
    FAULT_COUNT
} fuzz_fault;

/* An operand's strides in elements, element (i,j) at [i*rs + j*cs]. */
typedef struct fuzz_strides {
    ptrdiff_t rs, cs;
} fuzz_strides;

typedef struct fuzz_case {
    uint64_t seed;
    uint64_t index;
    fuzz_entry entry;
    fuzz_values values;
    fuzz_fault fault;
    unsigned fault_variant;   /* which operand, size or stride the fault hits (0..2) */
    size_t m, n, k;
    /* Row-major entries use rs as the leading dimension (cs == 1). */
    fuzz_strides a, b, c;
    /* The symbolic plan's n == 1 run writes C1 with this leading dimension. */
    size_t ldc1;
    int ab_share;             /* A and B are views of one buffer, overlapping */
    int null_empty;           /* empty operands passed as NULL (they may be) */
    uint64_t value_seed;      /* the operands' values and their places in memory */
    size_t threads;           /* qmm_set_num_threads for the calls, 1 to 4 */
} fuzz_case;

/* Case index of the sequence that seed starts. */
fuzz_case fuzz_case_make(uint64_t seed, uint64_t index);

/* The case as the call that reproduces it, one line. */
void fuzz_case_describe(const fuzz_case *fc, char *buf, size_t size);

#endif
