/*
 * Quantization and dequantization of row-major float or double matrices:
 * the work behind the public qmm_quantize_* and qmm_dequantize_* calls,
 * after their argument checks, for them and for the float GEMMs.
 */
#ifndef QMM_QUANTIZE_H
#define QMM_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

typedef struct qmm_quant_job {
    int is_f64;                /* x and scales are double, else float */
    const void *x;
    size_t ldx, rows, cols;    /* rows, cols >= 1 */
    qmm_per per;               /* QMM_PER_MATRIX, QMM_PER_ROW or QMM_PER_COL */
    int asymmetric;            /* qmm.h's asymmetric parameters, else symmetric */
    qmm_type type;             /* QMM_TYPE_I8 or QMM_TYPE_U8: asymmetric or given */
    unsigned char *q;
    size_t ldq;
    void *scales;              /* one per line, written; unused when given */
    int32_t *zero_points;      /* one per line, written; NULL: not wanted */
    /* Given parameters (qmm_quantize_f32 / _f64) instead of computed ones:
     * one scale per line, finite and > 0, and one zero point per line in the
     * type's range (NULL: 0); q then in the type's whole range. */
    int given;
    const void *given_scales;
    const int32_t *given_zero_points;
} qmm_quant_job;

/* Lines in a parameter set: 1, rows or cols. */
size_t qmm_quant_lines(qmm_per per, size_t rows, size_t cols);

/* Quantizes as include/qmm/qmm.h defines, on the thread count's threads.
 * QMM_ERR_INVALID_ARG (said under QMM_VERBOSE) when a value is NaN or
 * infinite or an asymmetric range overflows, QMM_ERR_NO_MEMORY; q, scales
 * and zero points are written only on success. Given parameters are not
 * checked here. */
qmm_status qmm_quantize_run(const qmm_quant_job *job);

/* The extrema pass alone: per line, the largest magnitude (maxabs[line],
 * of the float type); QMM_ERR_INVALID_ARG when a value is not finite. */
qmm_status qmm_quantize_max_abs(int is_f64, const void *x, size_t ldx, size_t rows, size_t cols,
                                qmm_per per, void *maxabs);

/* Scales finite and > 0 (>= 0 with zero_scale_ok), zero points (NULL:
 * none) in the type's range; else QMM_ERR_INVALID_ARG, said under
 * QMM_VERBOSE. */
qmm_status qmm_quant_check_params(int is_f64, const void *scales, const int32_t *zp,
                                  size_t lines, qmm_type type, int zero_scale_ok);

/* The public calls' argument rules: per and type among those allowed. */
int qmm_quant_per_ok(qmm_per per);
int qmm_quant_type_ok(qmm_type type);

/* A row-major array of a call, and whether the call writes it: an output
 * may overlap none of the others. */
typedef struct qmm_array_arg {
    const char *name;
    const void *p;
    size_t rows, cols, ld, elem;
    int is_output;
} qmm_array_arg;

enum { QMM_ARRAY_ARGS_MAX = 4 };

/* QMM_OK when every array follows qmm_check_matrix and no output overlaps
 * another array; else QMM_ERR_INVALID_ARG, said under QMM_VERBOSE. */
qmm_status qmm_quant_check_arrays(const qmm_array_arg *arr, size_t count);

#endif
