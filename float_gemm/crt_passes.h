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

typedef struct qmm_crt_passes {
    /* The symmetric residue of each v[jj] (an integer, |v| < 2^52) modulo
     * each p_t, to out[t * plane + jj]. */
    void (*residues)(const double *v, size_t len, const qmm_crt_moduli *mod, int8_t *out,
                     size_t plane);
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
