/*
 * qmm: exact int8 GEMM with runtime kernel dispatch.
 *
 *     C[m x n] = A[m x k] . B[k x n]
 *
 * Inputs are int8, the result is int32, and every kernel on every CPU gives the
 * same bits: products and sums are computed in int32 with two's-complement
 * wrap-around (the exact sum modulo 2^32). Quantized products (qmm_gemm,
 * below) add uint8 inputs, zero points and output stages to float and
 * int8/uint8, with the same guarantee.
 *
 * Rules that every entry point follows:
 *  - Sizes and strides are counted in elements, not bytes.
 *  - An operand with no elements may be NULL: A when m == 0 or k == 0, B when
 *    k == 0 or n == 0, C when m == 0 or n == 0. Any other NULL operand is
 *    QMM_ERR_INVALID_ARG.
 *  - m == 0 or n == 0 does nothing and returns QMM_OK, whatever the pointers
 *    and strides (leading dimensions of qmm_i8_i32 are still checked).
 *    k == 0 writes zeros to C (qmm_gemm: the output stage of zero sums).
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
 *
 * Contents, in the order below:
 *   Status          qmm_status, qmm_status_str
 *   int8 products   qmm_i8_i32, qmm_i8_i32_strided
 *   Plans           qmm_plan_create, qmm_plan_pack_a, qmm_plan_run,
 *                   qmm_plan_kernel_name, qmm_plan_destroy, QMM_SYMBOLIC
 *   Quantized products
 *                   qmm_gemm_desc, qmm_gemm, qmm_gemm_kernel_name;
 *                   qmm_plan_create_gemm, qmm_plan_run_gemm (plans of them)
 *   Quantize and dequantize
 *                   qmm_quantize_symmetric_*, qmm_quantize_asymmetric_*,
 *                   qmm_quantize_*, qmm_dequantize_* (_f32, _f64)
 *   Float through int8
 *                   qmm_sgemm_i8, qmm_dgemm_i8, qmm_sgemm_crt, qmm_dgemm_crt
 *   Threads         qmm_set_num_threads, qmm_get_num_threads,
 *                   qmm_set_parallel_for, qmm_parallel_for
 *   Kernels and CPU qmm_kernel_count, qmm_kernel_at, qmm_cpu_feature_names
 *
 * Names, one scheme:
 *   - a product is named by what it computes: qmm_i8_i32 by its operand and
 *     result types, qmm_gemm by its descriptor, the float ones as BLAS names
 *     them (s single, d double: qmm_sgemm_, qmm_dgemm_) followed by their
 *     method (_i8: int8 quantization or slices, _crt: residues);
 *   - an object's calls are qmm_<object>_<verb> (qmm_plan_create,
 *     qmm_plan_run), a verb's descriptor form adds _gemm (qmm_plan_run_gemm
 *     takes a qmm_gemm_desc where qmm_plan_run takes pointers);
 *   - a conversion is qmm_<verb>[_<kind>]_<f32|f64>, the float type last;
 *   - settings are qmm_set_<x> and qmm_get_<x>;
 *   - an enumerator starts with its enum's name (QMM_TYPE_ for qmm_type,
 *     QMM_PER_ for qmm_per, QMM_ROUND_ for qmm_rounding, QMM_WEIGHTS_ for
 *     qmm_weights), statuses are QMM_OK and QMM_ERR_*;
 *   - one word per idea: "per matrix" is one value for the whole operand
 *     (ONNX's per tensor), "per row" and "per column" one per line (per
 *     channel), and a size known only when a plan runs is QMM_SYMBOLIC.
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
 * A plan is made for m and k and for n, which may be QMM_SYMBOLIC when the
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
#define QMM_SYMBOLIC ((size_t)-1)   /* a size known only when the plan runs */
typedef struct qmm_plan qmm_plan;

/* Choose kernels for C[m×n] = A[m×k]·B[k×n]; n may be QMM_SYMBOLIC.
 * *plan is set only on success. QMM_ERR_INVALID_ARG for a NULL plan pointer or
 * sizes over PTRDIFF_MAX; QMM_ERR_UNKNOWN_KERNEL or QMM_ERR_UNSUPPORTED when
 * QMM_KERNEL names a kernel that does not exist or cannot run here. */
QMM_API qmm_status qmm_plan_create(qmm_plan **plan, size_t m, size_t n, size_t k);

/* Name of the kernel that a run with this concrete n uses (NULL if n is not
 * valid for the plan). For a plan made with QMM_WEIGHTS_B, n is the run's m. */
QMM_API const char *qmm_plan_kernel_name(const qmm_plan *plan, size_t n);

/* Pack A (the weights) once; later runs reuse it. A second call on the same
 * plan is QMM_ERR_INVALID_ARG (make a new plan for new weights). */
QMM_API qmm_status qmm_plan_pack_a(qmm_plan *plan, const int8_t *a, size_t lda);

/* Run with the packed A. n must equal the plan's n unless the plan is symbolic;
 * n == 0 does nothing and returns QMM_OK on any packed plan.
 * QMM_ERR_INVALID_ARG before qmm_plan_pack_a, for an n the plan cannot run,
 * for B and C arguments that break the rules, or for a plan made by
 * qmm_plan_create_gemm whose weights are B or need a zero-point correction
 * (uint8 weights with a zero point other than 128, int8 ones with one other
 * than 0); qmm_plan_run_gemm runs those. */
QMM_API qmm_status qmm_plan_run(const qmm_plan *plan, size_t n, const int8_t *b, size_t ldb,
                                int32_t *c, size_t ldc);

/* Frees the plan and its packed A; NULL is allowed. */
QMM_API void qmm_plan_destroy(qmm_plan *plan);

/*
 * Quantized products: uint8 or int8 operands with zero points, and an output
 * stage that turns the exact sums into int32, float or int8/uint8 while each
 * tile of C is still in cache. One descriptor, filled with designated
 * initializers, describes the whole product:
 *
 *     qmm_gemm_desc d = {
 *         .m = m, .n = n, .k = k,
 *         .a = {.type = QMM_TYPE_U8, .data = x, .rs = k, .cs = 1,
 *               .zero_point = {.per = QMM_PER_MATRIX, .value = x_zp}},
 *         .b = {.type = QMM_TYPE_I8, .data = w, .rs = 1, .cs = k},
 *         .c = {.type = QMM_TYPE_U8, .data = y, .rs = n, .cs = 1,
 *               .requant = {.rounding = QMM_ROUND_FLOAT, .per = QMM_PER_MATRIX,
 *                           .scale = x_scale * w_scale / y_scale, .zero_point = y_zp}},
 *     };
 *     qmm_status st = qmm_gemm(&d);
 *
 * A field left out is zero, which means absent (no zero point, no bias, scale 1,
 * no clamp) or the first enumerator (int8 operands). Every parameter array is
 * read during the call only, and must not overlap C.
 *
 * The sums. With za(i) A's zero point (one value, or one per row of A) and
 * zb(j) B's (one value, or one per column of B):
 *
 *     acc(i,j) = sum_p (A(i,p) - za(i)) * (B(p,j) - zb(j))    ONNX MatMulInteger
 *
 * exact modulo 2^32 (int32 wrap-around), for int8 and uint8 operands alike
 * and every kernel, CPU and thread count. A zero point is subtracted, as in
 * ONNX, TFLite and oneDNN (gemmlowp's offsets are its negation).
 *
 * The output stage, by C's type, with bias(i,j) the optional int32 bias:
 *
 *   QMM_TYPE_I32   C = acc + bias                               (int32 wrap-around)
 *
 *   QMM_TYPE_F32   the dequantization, each step one float32 operation
 *                  rounded to nearest even (no fused multiply-add, no wider
 *                  intermediate), in this order:
 *                    y = (float)(acc + bias)       int32 wrap-around, then converted
 *                    y = y * scale                 PER_ROW_COL: (y * values[i]) * col_values[j]
 *                    y = y + float bias            when there is one
 *                    y = y < min ? min : y > max ? max : y    when clamp is set
 *                  so that C is the same bits everywhere.
 *
 *   QMM_TYPE_I8,   the requantization: x = acc + bias (int32 wrap-around), then
 *   QMM_TYPE_U8    the rounding rule named in requant.rounding turns x into an
 *                  integer y (below), and C = clamp(y + zero_point, min, max)
 *                  computed exactly (no wrap-around), min and max being the
 *                  type's range unless requant.clamp is set.
 *
 * Rounding rules (M the multiplier, s the shift, as TFLite's QuantizeMultiplier
 * gives them for a real multiplier M * 2^(s - 31)):
 *   QMM_ROUND_TFLITE  TFLite's reference MultiplyByQuantizedMultiplier and
 *                     gemmlowp's fixed point, bit for bit:
 *                     RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(
 *                         x * 2^max(s, 0), M), max(-s, 0)),
 *                     the product x * 2^max(s, 0) wrapping in int32; the first step
 *                     rounds half toward +infinity, the second half away from zero
 *                     (rounding twice: x = 1, M = 2^30, s = -1 is 0.25 but gives 1).
 *   QMM_ROUND_SINGLE  one rounding, half toward +infinity, in int64:
 *                     y = (x * M + 2^(30 - s)) >> (31 - s)   (ruy, TFLITE_SINGLE_ROUNDING).
 *   Both: 0 <= M <= INT32_MAX and -31 <= s <= 30, one pair or one per row or column.
 *   QMM_ROUND_FLOAT   ONNX QLinearMatMul's rule with the float scale S (for QLinearMatMul
 *                     S = a_scale * b_scale / y_scale): y = round((float)x * S),
 *                     one float32 multiply, rounded to the nearest integer with ties
 *                     to even; S finite and > 0, one value or one per row or column.
 *
 * Float results assume the default floating-point environment (round to
 * nearest even, no flush-to-zero) on every thread that runs the call: the
 * caller's, OpenMP's, or an engine's pool (qmm_set_parallel_for). The float scale and
 * bias may be any finite values; requant.per must be MATRIX, PER_ROW or
 * PER_COL. The fields of stages and rules other than the ones C's type and
 * requant.rounding select are not read.
 *
 * Arguments follow the rules at the top of this file (C's span counted in its
 * own element size). Besides: an unknown type, rounding or qmm_per value, a
 * NULL values array of a per-row or per-column parameter, a zero point outside
 * its type's range (operands: int8 or uint8; the requantization: the output
 * type's), a multiplier, shift or scale outside the ranges above, a NaN or
 * infinite float scale or bias, a NaN clamp bound, or min > max, is
 * QMM_ERR_INVALID_ARG, said under QMM_VERBOSE=1, with C untouched.
 */
typedef enum qmm_type {
    QMM_TYPE_I8 = 0,   /* int8_t */
    QMM_TYPE_U8 = 1,   /* uint8_t */
    QMM_TYPE_I32 = 2,  /* int32_t: outputs only */
    QMM_TYPE_F32 = 3,  /* float: outputs only */
} qmm_type;

/* How many values a parameter has. Rows and columns are C's (m rows, n
 * columns); A's zero points may be per row, B's per column. */
typedef enum qmm_per {
    QMM_PER_NONE = 0,     /* absent */
    QMM_PER_MATRIX = 1,   /* one value: .value */
    QMM_PER_ROW = 2,      /* one per row: .values[i], m of them */
    QMM_PER_COL = 3,      /* one per column: .values[j], n of them */
    QMM_PER_ROW_COL = 4,  /* the float scale only: .values[i] (m) times .col_values[j] (n) */
} qmm_per;

typedef struct qmm_i32_param {
    qmm_per per;
    int32_t value;
    const int32_t *values;
} qmm_i32_param;

typedef struct qmm_f32_param {
    qmm_per per;
    float value;
    const float *values;
    const float *col_values;  /* QMM_PER_ROW_COL */
} qmm_f32_param;

/* An input: element (i, j) at ((const T *)data)[i*rs + j*cs], T int8_t or uint8_t. */
typedef struct qmm_operand {
    qmm_type type;              /* QMM_TYPE_I8 or QMM_TYPE_U8 */
    const void *data;
    ptrdiff_t rs, cs;
    qmm_i32_param zero_point;   /* NONE, MATRIX, PER_ROW (A) or PER_COL (B) */
} qmm_operand;

typedef enum qmm_rounding {
    QMM_ROUND_UNSET = 0,        /* not a rule: int8 and uint8 outputs must name one */
    QMM_ROUND_TFLITE = 1,
    QMM_ROUND_SINGLE = 2,
    QMM_ROUND_FLOAT = 3,
} qmm_rounding;

/* The float stage (QMM_TYPE_F32). */
typedef struct qmm_dequant {
    qmm_f32_param scale;        /* NONE (1), MATRIX, PER_ROW, PER_COL, PER_ROW_COL */
    qmm_f32_param bias;         /* NONE (0), MATRIX, PER_ROW, PER_COL */
    int clamp;                  /* nonzero: clamp to [min, max] */
    float min, max;
} qmm_dequant;

/* The int8 / uint8 stage (QMM_TYPE_I8, QMM_TYPE_U8). */
typedef struct qmm_requant {
    qmm_rounding rounding;
    qmm_per per;                       /* MATRIX, PER_ROW or PER_COL: of the multiplier or scale */
    int32_t multiplier, shift;         /* TFLITE, SINGLE, per matrix */
    const int32_t *multipliers, *shifts;  /* TFLITE, SINGLE, per row or column */
    float scale;                       /* FLOAT, per matrix */
    const float *scales;               /* FLOAT, per row or column */
    int32_t zero_point;                /* the output's, in its type's range */
    int clamp;                         /* nonzero: clamp to [min, max] (in the type's range) */
    int32_t min, max;
} qmm_requant;

/* The output: element (i, j) at ((T *)data)[i*rs + j*cs], T of `type`. */
typedef struct qmm_output {
    qmm_type type;
    void *data;
    ptrdiff_t rs, cs;
    qmm_i32_param bias;         /* int32 added to acc: NONE, MATRIX, PER_ROW or PER_COL */
    qmm_dequant dequant;        /* read for QMM_TYPE_F32 only */
    qmm_requant requant;        /* read for QMM_TYPE_I8 and QMM_TYPE_U8 only */
} qmm_output;

/* C[m x n] = stage(A[m x k] . B[k x n]). */
typedef struct qmm_gemm_desc {
    size_t m, n, k;
    qmm_operand a, b;
    qmm_output c;
} qmm_gemm_desc;

/* The product d describes, one-shot. d NULL is QMM_ERR_INVALID_ARG; m == 0
 * or n == 0 does nothing and returns QMM_OK whatever the rest of d. */
QMM_API qmm_status qmm_gemm(const qmm_gemm_desc *d);

/* The name of the kernel qmm_gemm(d) runs on this CPU (a uint8-A twin's name
 * ends in "+u8a", kernels/kernel.h), as qmm_kernel_info names it; reads d's
 * sizes and operand types only. NULL when d is NULL, m or n is 0, or no
 * kernel can be chosen (QMM_KERNEL naming one that does not exist or cannot
 * run here). */
QMM_API const char *qmm_gemm_kernel_name(const qmm_gemm_desc *d);

/* Which operand of a plan's products is fixed (the weights), packed once. */
typedef enum qmm_weights {
    QMM_WEIGHTS_A = 0,  /* C = W . X: W is A (m x k); n may be QMM_SYMBOLIC */
    QMM_WEIGHTS_B = 1,  /* C = X . W: W is B (k x n), for example a PyTorch or ONNX
                           weight stored [out x in] row-major, which is B with
                           rs = 1, cs = in; m (tokens) may be QMM_SYMBOLIC */
} qmm_weights;

/* A plan for d's products with d's weights operand (d->a or d->b, by
 * `weights`: data, strides, type, zero point) packed now, with its line sums,
 * on the threads of the thread count. d's sizes are fixed but for the
 * activation's free dimension (n for QMM_WEIGHTS_A, m for QMM_WEIGHTS_B),
 * which may be QMM_SYMBOLIC. The other operand and the output are not read.
 * Runs with one row of activations (m == 1 under QMM_WEIGHTS_B, n == 1 under
 * QMM_WEIGHTS_A) go to a matrix-vector kernel. *plan is set only on success. */
QMM_API qmm_status qmm_plan_create_gemm(qmm_plan **plan, const qmm_gemm_desc *d,
                                        qmm_weights weights);

/* Runs a plan on d: d's sizes equal the plan's (its symbolic one any
 * value; the free one may also be 0, which does nothing), d's other operand
 * and output as in qmm_gemm; d's weights operand is not read (the plan's is
 * used). A NULL or unpacked plan, or a NULL d, is QMM_ERR_INVALID_ARG. Plans made by qmm_plan_create and
 * qmm_plan_pack_a are QMM_WEIGHTS_A plans with int8 weights and no zero point.
 * Like qmm_plan_run, it only reads the plan. */
QMM_API qmm_status qmm_plan_run_gemm(const qmm_plan *plan, const qmm_gemm_desc *d);

/*
 * From float to int8 and back: the INT8 recipe in library calls.
 *
 * Quantize float or double matrices, multiply the int8 values exactly, and
 * dequantize the int32 sums with scale_a * scale_b: qmm_gemm's float stage
 * does the last step (scale QMM_PER_ROW_COL with A's row scales and B's
 * column scales), and qmm_sgemm_i8 / qmm_dgemm_i8 make the whole recipe one
 * call. Matrices here are row-major: element (i, j) of X at x[i*ldx + j],
 * ldx >= cols (the same for Q). A scale set has one value (QMM_PER_MATRIX),
 * one per row (QMM_PER_ROW: rows values) or one per column (QMM_PER_COL:
 * cols values); "a line" below is the matrix, a row or a column accordingly.
 *
 * Every step is one operation of the float type (float for the _f32 calls,
 * double for the _f64 ones) rounded to nearest even, so the bits are the same
 * on every CPU, kernel and thread count; round() below rounds half to even.
 * With rows == 0 or cols == 0 nothing is read or written and the call returns
 * QMM_OK. Otherwise a NULL pointer, a leading dimension below cols, a qmm_per
 * or type outside the ones named, an output overlapping an input or another
 * output, or (quantization) a NaN or infinite element of X is
 * QMM_ERR_INVALID_ARG, said under QMM_VERBOSE=1, with nothing written.
 */

/* Symmetric int8: per line, scale = max |x| / 127 and
 *     q = round(x / scale) clamped to [-127, 127],
 * so that x ~= q * scale within half a step. A line whose scale is 0 (all
 * zeros, or so close to zero that max |x| / 127 underflows) gets scale 0 and
 * q = 0. */
QMM_API qmm_status qmm_quantize_symmetric_f32(size_t rows, size_t cols, const float *x,
                                              size_t ldx, qmm_per per, int8_t *q, size_t ldq,
                                              float *scales);
QMM_API qmm_status qmm_quantize_symmetric_f64(size_t rows, size_t cols, const double *x,
                                              size_t ldx, qmm_per per, int8_t *q, size_t ldq,
                                              double *scales);

/* Asymmetric, as ONNX's DynamicQuantizeLinear: type QMM_TYPE_U8 ([qmin, qmax]
 * = [0, 255], q is uint8_t) or QMM_TYPE_I8 ([-128, 127], int8_t). Per line,
 * with lo = min(0, min x) and hi = max(0, max x), so that 0.0 is inside the
 * range:
 *     scale      = (hi - lo) / (qmax - qmin)
 *     zero_point = round(clamp(qmin - lo / scale, qmin, qmax))
 *     q          = clamp(round(x / scale) + zero_point, qmin, qmax)
 * so that x == 0.0 gives q == zero_point exactly. A line whose scale is 0
 * gets scale 0, zero point qmin and q = qmin. hi - lo beyond the float type's
 * largest finite value is QMM_ERR_INVALID_ARG. */
QMM_API qmm_status qmm_quantize_asymmetric_f32(size_t rows, size_t cols, const float *x,
                                               size_t ldx, qmm_per per, qmm_type type,
                                               void *q, size_t ldq, float *scales,
                                               int32_t *zero_points);
QMM_API qmm_status qmm_quantize_asymmetric_f64(size_t rows, size_t cols, const double *x,
                                               size_t ldx, qmm_per per, qmm_type type,
                                               void *q, size_t ldq, double *scales,
                                               int32_t *zero_points);

/* The matching dequantization: x = (q - zero_point) * scale, the difference
 * exact and the product one operation. zero_points NULL means 0 (symmetric).
 * A NaN, infinite or negative scale, or a zero point outside the type's
 * range, is QMM_ERR_INVALID_ARG. */
QMM_API qmm_status qmm_dequantize_f32(size_t rows, size_t cols, qmm_type type, const void *q,
                                      size_t ldq, qmm_per per, const float *scales,
                                      const int32_t *zero_points, float *x, size_t ldx);
QMM_API qmm_status qmm_dequantize_f64(size_t rows, size_t cols, qmm_type type, const void *q,
                                      size_t ldq, qmm_per per, const double *scales,
                                      const int32_t *zero_points, double *x, size_t ldx);

/* Quantization with given parameters, as ONNX's QuantizeLinear (static
 * quantization: scales and zero points from calibration, or from the
 * calls above): per line,
 *     q = clamp(round(x / scale) + zero_point, qmin, qmax)
 * with the type's range ([0, 255] for QMM_TYPE_U8, [-128, 127] for
 * QMM_TYPE_I8), the quotient one operation and round() half to even;
 * zero_points NULL means 0. A scale that is not finite and > 0, a zero point
 * outside the type's range, or a NaN or infinite element of X is
 * QMM_ERR_INVALID_ARG. */
QMM_API qmm_status qmm_quantize_f32(size_t rows, size_t cols, const float *x, size_t ldx,
                                    qmm_per per, const float *scales,
                                    const int32_t *zero_points, qmm_type type, void *q,
                                    size_t ldq);
QMM_API qmm_status qmm_quantize_f64(size_t rows, size_t cols, const double *x, size_t ldx,
                                    qmm_per per, const double *scales,
                                    const int32_t *zero_points, qmm_type type, void *q,
                                    size_t ldq);

/*
 * Float and double GEMM through int8. Each call takes row-major operands
 * with leading dimensions (lda >= k, ldb >= n, ldc >= n), overwrites C,
 * follows the rules at the top of this file (C overlapping A or B, NULL
 * operands, sizes; m == 0 or n == 0 returns QMM_OK whatever the other
 * arguments) and rejects a NaN or infinite element of A or B, a `per` other
 * than the two named, or a slice or modulus count out of range with
 * QMM_ERR_INVALID_ARG, C untouched. They run on the thread count's threads
 * and give the same bits on every kernel, CPU and thread count.
 * docs/float_gemm.md defines each result operation by operation (the
 * slices' digits, the Chinese-remainder rebuild and its constants); the
 * comments here say what the calls promise.
 *
 * The int32 sums stay exact: a product of values of magnitude at most 127
 * deeper than QMM_EXACT_DEPTH (floor((2^31 - 1) / 127^2)) is computed in
 * depth chunks of at most that many terms, whose int32 sums are added in
 * int64. So S below is the exact integer for every k.
 */
#define QMM_EXACT_DEPTH 133143

/* C ~= A.B through int8: per = QMM_PER_ROW_COL quantizes A per row and B per
 * column (a scale per row of A times one per column of B, as qmm_per's
 * ROW_COL says), QMM_PER_MATRIX both with one scale each; one int8 GEMM with
 * exact int32 sums; dequantized.
 *
 * Precisely: qa, sa = qmm_quantize_symmetric_f32(A, QMM_PER_ROW or QMM_PER_MATRIX),
 * qb, sb = the same of B, QMM_PER_COL or QMM_PER_MATRIX; S(i,j) = sum_p qa(i,p) qb(p,j)
 * exactly; C(i,j) = ((float)S(i,j) * sa(i)) * sb(j), each step one float operation.
 * (float)S * sa overflows only for rows of A beyond about 1e29. */
QMM_API qmm_status qmm_sgemm_i8(size_t m, size_t n, size_t k,
                                const float *a, size_t lda, const float *b, size_t ldb,
                                float *c, size_t ldc, qmm_per per);

/* The same for double (per as qmm_sgemm_i8's), with `slices` (1 to
 * QMM_MAX_SLICES) int8 slices per operand: each value is split exactly into
 * digits of 7 bits under a power-of-two scale of its row (A) or column (B),
 * or of the whole matrix; the slice products whose indices sum to at most
 * slices + 1 are computed as exact int8 GEMMs (slices (slices + 1) / 2 times
 * the multiply-adds of one) and summed in double; slices == 1 is one int8
 * GEMM (docs/float_gemm.md: the Ozaki scheme I).
 * The error falls by about 2^7 per slice until double's own rounding: for
 * well-scaled data (values of one line within a few powers of two of each
 * other), QMM_FP64_SLICES slices match a native double GEMM; a line whose
 * values span 2^(7d) needs about d more. */
#define QMM_FP64_SLICES 8
#define QMM_MAX_SLICES 16
QMM_API qmm_status qmm_dgemm_i8(size_t m, size_t n, size_t k,
                                const double *a, size_t lda, const double *b, size_t ldb,
                                double *c, size_t ldc, qmm_per per, unsigned slices);

/* The same product by the Chinese remainder theorem (the Ozaki scheme II,
 * docs/float_gemm.md): A's rows and B's columns scaled to integers by powers
 * of two, one exact int8 GEMM per modulus, `moduli` of them (1 to
 * QMM_CRT_MAX_MODULI), where the slices need s(s+1)/2; each modulus adds
 * about 8 bits to the product's range, 4 to each operand's (the error falls
 * about 16x per modulus) until double's own. A count too small for the depth
 * (1 modulus serves up to k = 8, 2 up to k = 2048, 3 up to k = 2^19) is
 * QMM_ERR_INVALID_ARG; one larger than double can use is lowered (more add
 * time, not accuracy). On well-scaled data (the values of a line within a
 * few powers of two of each other) QMM_CRT_FP64_MODULI moduli match a native
 * double GEMM up to k = 2^18; a line spanning many orders of magnitude loses
 * its small values' low bits, as qmm_dgemm_i8's digits do.
 * Besides A, B and C it holds B's int8 residues for every modulus, packed
 * for the kernel (about N k n bytes for N moduli), and those of a block of
 * A's rows and of their products (N (k + n) bytes a row, a few MiB); for
 * n = 1, or deeper than QMM_EXACT_DEPTH, every residue at once
 * (N (m k + k n + m n) bytes), and there the int64 sums (12 m n bytes). */
#define QMM_CRT_FP64_MODULI 16
#define QMM_CRT_MAX_MODULI 16
QMM_API qmm_status qmm_dgemm_crt(size_t m, size_t n, size_t k,
                                 const double *a, size_t lda, const double *b, size_t ldb,
                                 double *c, size_t ldc, unsigned moduli);

/* The same for float: A and B read exactly into double, C the double
 * result rounded to float; QMM_CRT_FP32_MODULI moduli give each line 24 bits
 * or more (a native float GEMM's accuracy on well-scaled data) up to
 * k = 2^13. */
#define QMM_CRT_FP32_MODULI 8
QMM_API qmm_status qmm_sgemm_crt(size_t m, size_t n, size_t k,
                                 const float *a, size_t lda, const float *b, size_t ldb,
                                 float *c, size_t ldc, unsigned moduli);

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
 * CPUs this process may run on (its affinity mask on Linux and Android, the
 * CPUs online elsewhere), both read at the first
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
 * of parallel_for (a very large product makes several calls, one after the
 * other) and calls it only from the thread that called qmm, never from one of
 * its tasks, so set the thread count to the pool's size. A pool that cannot
 * take work from inside its own tasks must not be handed qmm calls made from
 * its tasks. Tasks never fail, and a task waits for another only while that
 * one is running (packing data both read), never for one that has not
 * started: the pool may run them in any order, on any number of threads, one
 * included. */
QMM_API void qmm_set_parallel_for(qmm_parallel_for_fn *parallel_for, void *pool);

/* Runs task(context, t) for every t in [0, tasks) on qmm's threads and
 * returns when all have finished: on up to qmm_get_num_threads() threads
 * (the caller's included), through the engine's parallel-for when one is set,
 * else OpenMP, else on the calling thread alone (all of them on it when
 * called from inside an OpenMP parallel region, fewer threads while other
 * calls hold part of the count). For an engine's own steps
 * between qmm's products (the float parts of a model), so that they and qmm
 * share one set of threads. tasks == 0 or task NULL does nothing. */
QMM_API void qmm_parallel_for(size_t tasks, qmm_task_fn *task, void *context);

/*
 * Kernels and CPU features.
 *
 * Each call runs kernels this CPU supports, chosen at run time from the CPU
 * features in effect. The environment variable QMM_DISABLE=<feature,...>
 * (neon, dotprod, i8mm, sve, svei8mm, sme, avx2, fma, avx512vnni, amx; any
 * case; unknown names are ignored, with a message under QMM_VERBOSE=1) treats
 * features as absent, and QMM_DOTPROD_DISABLE=1 is QMM_DISABLE=dotprod,sve
 * (every dot-product kernel off: the SMLAL-class fallback). The int8 kernels
 * form tiers, avx2 < avx512vnni < amx, neon < dotprod < i8mm < sme and
 * neon < sve < svei8mm (svei8mm also needs i8mm), and a tier is in effect
 * only when the ones below it are: disabling a feature disables every tier
 * above it (QMM_DISABLE=avx2 leaves the portable kernels on x86,
 * QMM_DISABLE=dotprod takes i8mm, svei8mm and sme too), and a CPU that
 * reports a tier without the one below it does not get it. The SVE and SME
 * kernels' tiles grow with the vector length (qmm_kernel_info gives the
 * tile at this CPU's). fma is in no tier. QMM_KERNEL=<name>
 * forces one kernel for every call (qmm_plan_create). Each is read once, at
 * the first call that needs it; QMM_VERBOSE=1 says which features are in
 * effect and why the others are not.
 */

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

/* The CPU features in effect (detected, less those QMM_DISABLE takes and
 * those whose tier below is not in effect, less those the OS refuses), by
 * the names QMM_DISABLE takes, comma-separated in tier order: for instance
 * "avx2,fma,avx512vnni,amx", or "" when none. The string stays valid for the
 * life of the process. */
QMM_API const char *qmm_cpu_feature_names(void);

#ifdef __cplusplus
}
#endif

#endif /* QMM_QMM_H */
