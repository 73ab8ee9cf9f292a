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

/* Or, for float lanes, as v = d3 2^39 + d2 2^26 + d1 2^13 + d0 (|d3| <= 2^13,
 * the others <= 2^12): y = d3 c3 + d2 c2 + d1 c1 + d0, with c_i the symmetric
 * residue of 2^(QMM_CRT_DIGIT i) modulo p_t, is below 2^21, exact in float
 * at every step, and y / p_t errs by less than 2^-9, under the 1 / 510 that
 * parts it from a half-integer: its rounding is y's nearest quotient. */
enum { QMM_CRT_DIGIT = 13 };

typedef struct qmm_crt_moduli {
    unsigned count;
    int32_t p[QMM_CRT_MAX_MODULI];       /* odd, at most 255: residues fit int8 as |r| <= 127 */
    double inv_p[QMM_CRT_MAX_MODULI];    /* 1 / p, rounded */
    double split[QMM_CRT_MAX_MODULI];    /* the symmetric residue of 2^QMM_CRT_SPLIT modulo p */
    float digit[QMM_CRT_MAX_MODULI][3];  /* c_1, c_2, c_3 (above) */
    float p_f[QMM_CRT_MAX_MODULI], inv_p_f[QMM_CRT_MAX_MODULI];  /* p, 1 / p rounded */
    double f1[QMM_CRT_MAX_MODULI], f2[QMM_CRT_MAX_MODULI];
    double big_hi, big_lo;               /* P rounded to double, and P - big_hi rounded */
    int bits;                            /* floor(log2 P) */
} qmm_crt_moduli;

/* The first `count` moduli (1 <= count <= QMM_CRT_MAX_MODULI) and their
 * constants, made once per process. */
const qmm_crt_moduli *qmm_crt_moduli_of(unsigned count);

/* Modulus t of mod alone, with its residues' constants (count 1; no rebuild). */
qmm_crt_moduli qmm_crt_modulus(const qmm_crt_moduli *mod, unsigned t);

#endif
