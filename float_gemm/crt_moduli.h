/*
 * The moduli of the Chinese-remainder GEMMs (float_gemm/crt.c) and the
 * constants that rebuild a product from its residues.
 *
 * With P = p_1 ... p_N (pairwise coprime), M_t = P / p_t and y_t the inverse
 * of M_t modulo p_t, an integer X with |X| < P/2 whose residues are c_t is
 *     X = P * frac(sum_t c_t * y_t / p_t),
 * frac(v) = v - round(v) in [-1/2, 1/2], because sum_t c_t M_t y_t is X
 * modulo P (M_t y_t is 1 modulo p_t and 0 modulo every other modulus), and
 * M_t y_t / P = y_t / p_t. Each y_t / p_t is kept as f1 + f2: f1 on the grid
 * of 2^-40 (so that c * f1 for |c| <= 128, and the sum of up to 20 of
 * them, are exact in double, and so is its fractional part), f2 the rest,
 * below 2^-41, rounded to double. The constants are those qmm.h defines for
 * qmm_dgemm_crt.
 */
#ifndef QMM_CRT_MODULI_H
#define QMM_CRT_MODULI_H

#include <stdint.h>

#include "qmm/qmm.h"

/* An integer v below 2^52 in magnitude is reduced as v = h 2^QMM_CRT_SPLIT + l
 * (|l| <= 2^25): y = h split_t + l is congruent to v modulo p_t and below
 * 2^33, so that y / p_t, rounded, is exactly y's nearest quotient. */
enum { QMM_CRT_SPLIT = 26 };

typedef struct qmm_crt_moduli {
    unsigned count;
    int32_t p[QMM_CRT_MAX_MODULI];       /* odd, at most 255: residues fit int8 as |r| <= 127 */
    double inv_p[QMM_CRT_MAX_MODULI];    /* 1 / p, rounded */
    double split[QMM_CRT_MAX_MODULI];    /* the symmetric residue of 2^QMM_CRT_SPLIT modulo p */
    double f1[QMM_CRT_MAX_MODULI], f2[QMM_CRT_MAX_MODULI];
    double big_hi, big_lo;               /* P rounded to double, and P - big_hi rounded */
    int bits;                            /* floor(log2 P) */
} qmm_crt_moduli;

/* The first `count` moduli (1 <= count <= QMM_CRT_MAX_MODULI) and their
 * constants, made once per process. */
const qmm_crt_moduli *qmm_crt_moduli_of(unsigned count);

#endif
