/*
 * The passes of float_gemm/crt_passes.h, for the ISA of the file that
 * includes it (the compiler vectorizes the loops over a run for its flags).
 * Define QMM_CRT_PASSES_TABLE, the instance's name, first. Every file that
 * includes it is built with -ffp-contract=off.
 */
#include "crt_passes.h"

#define CRT_FN_(table, name) table##_##name
#define CRT_FN(table, name) CRT_FN_(table, name)
#define LOCAL(name) CRT_FN(QMM_CRT_PASSES_TABLE, name)

/* x rounded to an integer, ties to even, for |x| < 2^51. */
static inline double LOCAL(round_small)(double x)
{
    return (x + 0x1.8p52) - 0x1.8p52;
}

/* v - p round(v / p) is exact (both integers below 2^53) and within p of
 * the symmetric residue (the quotient's error is far below 1/2). */
static void LOCAL(residues)(const double *restrict v, size_t len, const qmm_crt_moduli *mod,
                            int8_t *restrict out, size_t plane)
{
    for (unsigned t = 0; t < mod->count; t++) {
        const double p = mod->p[t], inv = mod->inv_p[t], half = (p - 1) / 2;
        int8_t *restrict o = out + t * plane;
        for (size_t jj = 0; jj < len; jj++) {
            double r = v[jj] - p * LOCAL(round_small)(v[jj] * inv);
            r -= r > half ? p : 0;
            r += r < -half ? p : 0;
            o[jj] = (int8_t)(int32_t)r;
        }
    }
}

enum { LOCAL(RUN) = 64 };  /* columns rebuilt at once, their sums on the stack */

static void LOCAL(rebuild)(const int8_t *res, size_t plane, size_t len,
                           const qmm_crt_moduli *mod, double *restrict x)
{
    double t1[LOCAL(RUN)], t2[LOCAL(RUN)];
    for (size_t j0 = 0; j0 < len; j0 += LOCAL(RUN)) {
        const size_t run = len - j0 < LOCAL(RUN) ? len - j0 : LOCAL(RUN);
        for (size_t jj = 0; jj < run; jj++)
            t1[jj] = t2[jj] = 0;
        /* sum_t c_t f1_t exactly, sum_t c_t f2_t rounded in t's order. */
        for (unsigned t = 0; t < mod->count; t++) {
            const int8_t *restrict c = res + t * plane + j0;
            const double f1 = mod->f1[t], f2 = mod->f2[t];
            for (size_t jj = 0; jj < run; jj++) {
                const double ct = c[jj];
                t1[jj] = t1[jj] + ct * f1;
                t2[jj] = t2[jj] + ct * f2;
            }
        }
        const double hi = mod->big_hi, lo = mod->big_lo;
        for (size_t jj = 0; jj < run; jj++) {
            double v = (t1[jj] - LOCAL(round_small)(t1[jj])) + t2[jj];
            v = v - LOCAL(round_small)(v);
            x[j0 + jj] = v * hi + v * lo;
        }
    }
}

const qmm_crt_passes QMM_CRT_PASSES_TABLE = {LOCAL(residues), LOCAL(rebuild)};

#undef LOCAL
#undef CRT_FN
#undef CRT_FN_
