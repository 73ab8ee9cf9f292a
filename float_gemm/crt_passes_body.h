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

/* x rounded to an integer, ties to even, for |x| < 2^52: |x| + 2^52 has
 * units of 1, so the addition rounds, and the subtraction is exact; a form
 * the compiler vectorizes (rint is a call without SSE4.1). */
static inline double LOCAL(round_whole)(double x)
{
    return __builtin_copysign((__builtin_fabs(x) + 0x1p52) - 0x1p52, x);
}

enum { LOCAL(SCALED) = 256 };  /* elements scaled at once, on the stack */

/* v split as crt_moduli.h says, then y - p round(y / p) for each p: every
 * step exact, and the quotient y's nearest, so the symmetric residue. */
static void LOCAL(residues)(const void *x, int f64, const qmm_crt_scale *scale,
                            int per_element, size_t len, const qmm_crt_moduli *mod,
                            int8_t *restrict out, size_t plane)
{
    const double up = (double)((int64_t)1 << QMM_CRT_SPLIT), down = 1 / up;
    double h[LOCAL(SCALED)], l[LOCAL(SCALED)];
    for (size_t j0 = 0; j0 < len; j0 += LOCAL(SCALED)) {
        const size_t run = len - j0 < LOCAL(SCALED) ? len - j0 : LOCAL(SCALED);
        for (size_t jj = 0; jj < run; jj++) {
            const double e = f64 ? ((const double *)x)[j0 + jj] : ((const float *)x)[j0 + jj];
            const qmm_crt_scale s = scale[per_element ? j0 + jj : 0];
            const double v = LOCAL(round_whole)(e * s.f1 * s.f2);
            h[jj] = LOCAL(round_small)(v * down);
            l[jj] = v - h[jj] * up;
        }
        for (unsigned t = 0; t < mod->count; t++) {
            const double p = mod->p[t], inv = mod->inv_p[t], split = mod->split[t];
            int8_t *restrict o = out + t * plane + j0;
            for (size_t jj = 0; jj < run; jj++) {
                const double y = h[jj] * split + l[jj];
                o[jj] = (int8_t)(int32_t)(y - p * LOCAL(round_small)(y * inv));
            }
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
