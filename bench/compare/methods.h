/*
 * The methods compared, and each one prepared on a case's operands: what
 * its end-to-end call and its kernel-only calls run.
 *
 *   OpenBLAS cblas_dgemm   the FP64 reference, timed like the others
 *   OpenBLAS cblas_sgemm   on the float copies
 *   qmm_sgemm_i8           on the float copies, per tensor and per channel;
 *                          kernel only: qmm_gemm from int8 operands quantized
 *                          beforehand by qmm_quantize_symmetric_f32 (A per row
 *                          and B per column, or each per matrix) to the exact
 *                          int32 sums (QMM_TYPE_I32, no output stage)
 *   qmm_sgemm_crt          on the float copies, with each --moduli count
 *   qmm_dgemm_i8           per channel, with 1 .. --slices slices; kernel
 *                          only: the s int8 products its header describes
 *                          (m x n of depths k, 2k, .. s*k, A's rows s*k apart,
 *                          B contiguous) by qmm_i8_i32 on int8 data in
 *                          [-127, 127] of the same shapes: the same products,
 *                          not the same numbers
 *   qmm_dgemm_crt          with each --moduli count; kernel only (and for
 *                          qmm_sgemm_crt): one int8 product m x n x k per
 *                          modulus, each on its own block of A and of B (as
 *                          the residues are), by qmm_i8_i32 on int8 data in
 *                          [-127, 127], the same products, not the same
 *                          numbers; a count of moduli too few for the depth
 *                          is refused by qmm, and its row skipped
 */
#ifndef QMM_COMPARE_METHODS_H
#define QMM_COMPARE_METHODS_H

#include <stddef.h>
#include <stdint.h>

#include "../shapes.h"
#include "accuracy.h"
#include "data.h"
#include "qmm/qmm.h"

typedef enum compare_method_kind {
    COMPARE_BLAS_DGEMM,
    COMPARE_BLAS_SGEMM,
    COMPARE_QMM_SGEMM_I8,
    COMPARE_QMM_DGEMM_I8,
    COMPARE_QMM_SGEMM_CRT,
    COMPARE_QMM_DGEMM_CRT,
} compare_method_kind;

typedef struct compare_method {
    compare_method_kind kind;
    qmm_per granularity;  /* the qmm methods' (the CRT ones scale per channel) */
    unsigned slices;              /* qmm_dgemm_i8's */
    unsigned moduli;              /* qmm_sgemm_crt's and qmm_dgemm_crt's */
} compare_method;

/* The two BLAS rows, qmm_sgemm_i8's two granularities, qmm_dgemm_i8's
 * slice counts and the two CRT functions' counts of moduli. */
#define COMPARE_MAX_METHODS (4 + QMM_MAX_SLICES + 2 * QMM_CRT_MAX_MODULI)

/* The methods of a run with qmm_dgemm_i8 up to max_slices and the CRT
 * functions with each of moduli[0..moduli_count), in table order, the
 * reference first: how many were written to out. */
size_t compare_list_methods(unsigned max_slices, const unsigned *moduli, size_t moduli_count,
                            compare_method *out);

/* "qmm_dgemm_i8 per channel, 3 slices", "qmm_dgemm_crt, 16 moduli": the
 * table's name. */
void compare_method_label(const compare_method *m, char *text, size_t size);

/* The CSV's: the function ("cblas_dgemm", "qmm_sgemm_i8", ...) and the
 * granularity ("tensor", "channel", "" for BLAS). */
const char *compare_method_function(const compare_method *m);
const char *compare_method_granularity(const compare_method *m);

/* Nonzero for the methods with a kernel-only time (the qmm ones). */
int compare_method_has_kernel(const compare_method *m);

/* qmm_dgemm_i8's slices or the CRT functions' moduli, what the plot labels
 * their points with; 0 for the others. */
unsigned compare_method_count(const compare_method *m);

/* The deepest product m takes: for a CRT function, what its count of moduli
 * holds as qmm.h gives it (a deeper one is refused); SIZE_MAX otherwise. */
size_t compare_method_deepest(const compare_method *m);

/* The int8 multiply-adds' operations (2 each) that the kernel-only calls of
 * m do on shape s: 2mnk for qmm_sgemm_i8, s(s+1)/2 times that for
 * qmm_dgemm_i8 with s slices, N times that for a CRT function with N
 * moduli; 0 for BLAS. */
double compare_kernel_ops(const compare_method *m, bench_shape s);

/* One case's methods, ready to run: their outputs, and the int8 operands of
 * their kernel-only calls. */
typedef struct compare_contenders compare_contenders;

/* Prepares methods[0..count) on o, which must outlive the result. NULL when
 * something does not fit in memory or a quantization fails (said on
 * stderr). */
compare_contenders *compare_prepare(const compare_operands *o, const compare_method *methods,
                                    size_t count);
void compare_release(compare_contenders *c);

/* Method i's end-to-end call: the one call from float or double operands
 * to float or double C. */
qmm_status compare_run_end_to_end(compare_contenders *c, size_t i);

/* Method i's int8 GEMMs alone (compare_method_has_kernel). */
qmm_status compare_run_kernel(compare_contenders *c, size_t i);

/* Method i's C from its latest end-to-end call, against ref (m x n). */
compare_error compare_measure_error(const compare_contenders *c, size_t i, const double *ref);

#endif
