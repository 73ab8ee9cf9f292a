/*
 * The per-modulus passes of the Chinese-remainder GEMMs (float_gemm/crt.c)
 * on a run of one line, as a template (crt_passes_body.h) compiled once per
 * ISA: the same double operations in every instance, so the same bits.
 */
#ifndef QMM_CRT_PASSES_H
#define QMM_CRT_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include "crt_moduli.h"

/* A power of two 2^s as two normal factors (float_gemm/crt.c): x f1 f2 is
 * x 2^s, exact where it matters. */
typedef struct qmm_crt_scale {
    double f1, f2;
} qmm_crt_scale;

typedef struct qmm_crt_passes {
    /* For the len elements x[jj] of a run of a line (doubles when f64, else
     * floats): v = x[jj] s.f1 s.f2 rounded to an integer, ties to even, with
     * s = scale[jj] when per_element, else scale[0] (|v| <= 2^52); then v's
     * symmetric residue modulo each p_t, to out[t * plane + jj]. */
    void (*residues)(const void *x, int f64, const qmm_crt_scale *scale, int per_element,
                     size_t len, const qmm_crt_moduli *mod, int8_t *out, size_t plane);
    /* X / P's fractional part v from the residues c_t = res[t * plane + jj]
     * (qmm.h's t1, t2, v), and x[jj] = v P_hi + v P_lo. */
    void (*rebuild)(const int8_t *res, size_t plane, size_t len, const qmm_crt_moduli *mod,
                    double *x);
} qmm_crt_passes;

/* The instance for this CPU. */
const qmm_crt_passes *qmm_crt_passes_pick(void);

extern const qmm_crt_passes qmm_crt_passes_generic;
#if defined(__x86_64__)
extern const qmm_crt_passes qmm_crt_passes_avx2, qmm_crt_passes_avx512;
#endif

#endif
