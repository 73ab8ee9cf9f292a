/*
 * qmm: exact int8 GEMM with runtime kernel dispatch.
 *
 *     C[m x n] = A[m x k] . B[k x n]
 *
 * Inputs are int8, the result is int32, and every kernel on every CPU gives the
 * same bits: products and sums are computed in int32 with two's-complement
 * wrap-around (the exact sum modulo 2^32).
 *
 * Rules that every entry point follows:
 *  - Sizes and strides are counted in elements, not bytes.
 *  - An operand with no elements may be NULL: A when m == 0 or k == 0, B when
 *    k == 0 or n == 0, C when m == 0 or n == 0. Any other NULL operand is
 *    QMM_ERR_INVALID_ARG.
 *  - m == 0 or n == 0 does nothing and returns QMM_OK, whatever the pointers
 *    and strides (leading dimensions of qmm_i8_i32 are still checked).
 *    k == 0 writes zeros to C.
 *  - m, n and k must each be at most PTRDIFF_MAX (the rule above comes first:
 *    an empty product is QMM_OK whatever k), and the span of memory an
 *    operand covers (from its lowest to its highest element, in bytes) must be
 *    at most PTRDIFF_MAX bytes and must not wrap around the address space;
 *    otherwise QMM_ERR_INVALID_ARG.
 *  - C must not overlap A or B: the byte ranges spanned by C and by each input
 *    must be disjoint, or the call returns QMM_ERR_INVALID_ARG and leaves C
 *    untouched. A and B may overlap each other.
 *  - C's elements must be distinct: both C strides are non-zero, and unless
 *    m == 1 or n == 1 one dimension nests inside the other
 *    (|rsc| >= n*|csc| or |csc| >= m*|rsc|); else QMM_ERR_INVALID_ARG. Strides of A and B may be any value, including
 *    zero (a broadcast operand) and negative (a reversed operand).
 *  - When a call fails, C is not written.
 *  - The library never writes to stdout. With the environment variable
 *    QMM_VERBOSE=1 it explains its choices and errors on stderr.
 *
 * Every function here is thread-safe.
 */
#ifndef QMM_QMM_H
#define QMM_QMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shared library exports these names and nothing else. */
#if defined(__GNUC__)
#define QMM_API __attribute__((visibility("default")))
#else
#define QMM_API
#endif

typedef enum qmm_status {
    QMM_OK = 0,
    QMM_ERR_INVALID_ARG,     /* NULL pointer, bad leading dimension/stride, size overflow, aliasing */
    QMM_ERR_NO_MEMORY,
    QMM_ERR_UNSUPPORTED,     /* e.g. a kernel that this CPU cannot run was requested */
    QMM_ERR_UNKNOWN_KERNEL   /* a kernel name that does not exist */
} qmm_status;

/* A short English description of s; never NULL ("unknown status" for values
 * outside the enum). */
QMM_API const char *qmm_status_str(qmm_status s);

/* C[m×n] = A[m×k] · B[k×n]; int8 inputs, int32 result, exact with int32 wrap-around.
 * Row-major; lda >= k, ldb >= n, ldc >= n, counted in elements. C is overwritten.
 * k == 0 writes zeros; m == 0 or n == 0 does nothing and returns QMM_OK.
 * A leading dimension that breaks its rule is QMM_ERR_INVALID_ARG, whatever the
 * sizes. */
QMM_API qmm_status qmm_i8_i32(size_t m, size_t n, size_t k,
                      const int8_t *a, size_t lda,
                      const int8_t *b, size_t ldb,
                      int32_t *c, size_t ldc);

/* The same with general strides in elements (BLIS-style): element (i,j) of A is
 * a[i*rsa + j*csa]. Covers row-major, column-major and transposed operands.
 * Likewise B(p,j) = b[p*rsb + j*csb] and C(i,j) = c[i*rsc + j*csc]. */
QMM_API qmm_status qmm_i8_i32_strided(size_t m, size_t n, size_t k,
                              const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                              const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                              int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

/*
 * Plans: choose kernels once, pack A (the weights) once, run many times.
 *
 * A plan is made for m and k and for n, which may be QMM_N_SYMBOLIC when the
 * number of columns of B is only known at run time. A plan with concrete n
 * runs only that n; a symbolic plan runs any n >= 1, on a matrix kernel
 * (nr > 1) for n > 1 and on a matrix-vector kernel (nr == 1) for n == 1, with A
 * packed for both when they read different formats.
 *
 * qmm_i8_i32 is a one-shot plan. After qmm_plan_pack_a a plan is immutable:
 * qmm_plan_run may be called from several threads at once on one plan.
 * Arguments follow the rules at the top of this file: qmm_plan_pack_a checks
 * A's (lda >= k), qmm_plan_run checks B's and C's (ldb >= n, ldc >= n, C not
 * overlapping B).
 */
#define QMM_N_SYMBOLIC ((size_t)-1)   /* n unknown when the plan is made */
typedef struct qmm_plan qmm_plan;

/* Choose kernels for C[m×n] = A[m×k]·B[k×n]; n may be QMM_N_SYMBOLIC.
 * *plan is set only on success. QMM_ERR_INVALID_ARG for a NULL plan pointer or
 * sizes over PTRDIFF_MAX; QMM_ERR_UNKNOWN_KERNEL or QMM_ERR_UNSUPPORTED when
 * QMM_KERNEL names a kernel that does not exist or cannot run here. */
QMM_API qmm_status qmm_plan_create(qmm_plan **plan, size_t m, size_t n, size_t k);

/* Name of the kernel that a run with this concrete n uses (NULL if n is not valid for the plan). */
QMM_API const char *qmm_plan_kernel_name(const qmm_plan *plan, size_t n);

/* Pack A (the weights) once; later runs reuse it. A second call on the same
 * plan is QMM_ERR_INVALID_ARG (make a new plan for new weights). */
QMM_API qmm_status qmm_plan_pack_a(qmm_plan *plan, const int8_t *a, size_t lda);

/* Run with the packed A. n must equal the plan's n unless the plan is symbolic;
 * n == 0 does nothing and returns QMM_OK on any packed plan.
 * QMM_ERR_INVALID_ARG before qmm_plan_pack_a, for an n the plan cannot run,
 * or for B and C arguments that break the rules. */
QMM_API qmm_status qmm_plan_run(const qmm_plan *plan, size_t n, const int8_t *b, size_t ldb,
                                int32_t *c, size_t ldc);

/* Frees the plan and its packed A; NULL is allowed. */
QMM_API void qmm_plan_destroy(qmm_plan *plan);

/*
 * Threads.
 *
 * A product large enough to gain from it is split into tasks over blocks of
 * C (or, for a thin and very deep product, over ranges of depth) that run on
 * several threads; smaller ones run on the calling thread alone. The result is
 * the same bits for every thread count. qmm_plan_pack_a and qmm_plan_run are
 * threaded the same way.
 *
 * The thread count is what qmm_set_num_threads() last set; before any such
 * call, or after qmm_set_num_threads(0), it is the environment variable
 * QMM_NUM_THREADS (a whole number from 1 to QMM_MAX_THREADS; anything else is
 * ignored, with a message under QMM_VERBOSE=1) when set, else the number of
 * CPUs this process may run on (its affinity mask), both read at the first
 * call that needs them. More threads than CPUs is allowed.
 *
 * The default back end is OpenMP. A call made inside an OpenMP parallel
 * region runs on its calling thread alone, and calls made from many threads at
 * once share the thread count among them rather than each taking it all.
 */
#define QMM_MAX_THREADS 1024

/* Sets the thread count for the calls that follow, from any thread; 0 restores
 * the default above. QMM_ERR_INVALID_ARG above QMM_MAX_THREADS. */
QMM_API qmm_status qmm_set_num_threads(size_t n);

/* The thread count in effect (>= 1). */
QMM_API size_t qmm_get_num_threads(void);

/* A task: qmm's work number `task` of a parallel-for, with its context. */
typedef void qmm_task_fn(void *context, size_t task);

/* An engine's parallel-for: runs task(context, t) for every t in [0, tasks),
 * on as many threads as it likes (the calling thread included), and returns
 * when all have finished. Its shape is XNNPACK's pthreadpool_parallelize_1d's,
 * so that a pthreadpool, a TBB arena or an engine's own pool can serve it;
 * pool is the pointer given to qmm_set_parallel_for. */
typedef void qmm_parallel_for_fn(void *pool, size_t tasks, qmm_task_fn *task, void *context);

/* Runs qmm's tasks through the engine's parallel_for from now on (NULL
 * restores OpenMP). qmm asks for at most qmm_get_num_threads() tasks per call
 * and calls parallel_for only from the thread that called qmm, never from one
 * of its tasks, so set the thread count to the pool's size. A pool that cannot
 * take work from inside its own tasks must not be handed qmm calls made from
 * its tasks. Tasks never fail and never block on each other. */
QMM_API void qmm_set_parallel_for(qmm_parallel_for_fn *parallel_for, void *pool);

/* Every kernel compiled into this build, supported here or not. */
typedef struct qmm_kernel_info {
    const char *name;       /* unique, e.g. "generic_mmm_i8i32_3x4" */
    const char *isa;        /* e.g. "generic", "neon", "neon+dotprod", "avx2" */
    unsigned mr, nr;        /* tile: mr rows of A by nr columns of B */
    int supported_here;     /* nonzero if this CPU (and the environment overrides) allow it */
} qmm_kernel_info;

/* Number of kernels compiled into this build (at least one: the portable ones
 * are always present). */
QMM_API size_t qmm_kernel_count(void);

/* Kernel i, in registry order; NULL when i >= qmm_kernel_count(). The pointer
 * stays valid for the life of the process. */
QMM_API const qmm_kernel_info *qmm_kernel_at(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* QMM_QMM_H */
