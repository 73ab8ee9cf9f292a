#include "crt_moduli.h"

#include <math.h>
#include <pthread.h>

/* Pairwise coprime, odd (so that every residue has a representative in
 * [-127, 127] and the int8 products keep QMM_EXACT_DEPTH), largest first:
 * 255 = 3·5·17, 253 = 11·23, 247 = 13·19, 217 = 7·31, the others prime. */
static const int32_t moduli[QMM_CRT_MAX_MODULI] = {
    255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193, 191,
};

/* x^-1 modulo p, for x coprime to p. */
static int32_t inverse_mod(int32_t x, int32_t p)
{
    for (int32_t y = 1; y < p; y++)
        if (x * y % p == 1)
            return y;
    return 0;
}

/* x modulo p (odd), in [-(p - 1) / 2, (p - 1) / 2], for x >= 0. */
static int32_t symmetric(int64_t x, int32_t p)
{
    const int32_t r = (int32_t)(x % p);
    return r > p / 2 ? r - p : r;
}

enum { GRID = 40 };  /* f1 is a multiple of 2^-GRID */

static void moduli_init(unsigned count, qmm_crt_moduli *out)
{
    out->count = count;
    unsigned __int128 big = 1;
    for (unsigned t = 0; t < count; t++) {
        const int32_t p = moduli[t];
        int32_t m_mod_p = 1;
        for (unsigned u = 0; u < count; u++)
            if (u != t)
                m_mod_p = m_mod_p * (moduli[u] % p) % p;
        const int64_t y = inverse_mod(m_mod_p, p);
        /* y / p = f1 + f2: f1 = round(y 2^40 / p) 2^-40, exactly (p is odd:
         * no ties); f2 from the exact integer remainder, one rounding. */
        const int64_t scaled = y << GRID, whole = (scaled + p / 2) / p;
        out->p[t] = p;
        out->inv_p[t] = 1.0 / p;
        out->split[t] = symmetric((int64_t)1 << QMM_CRT_SPLIT, p);
        for (int i = 0; i < 3; i++)
            out->digit[t][i] = (float)symmetric((int64_t)1 << (QMM_CRT_DIGIT * (i + 1)), p);
        out->p_f[t] = (float)p;
        out->inv_p_f[t] = 1.0f / (float)p;
        out->f1[t] = ldexp((double)whole, -GRID);
        out->f2[t] = ldexp((double)(scaled - whole * p) / p, -GRID);
        big *= (unsigned)p;
    }
    /* P < 2^126 for 16 moduli: exact in 128 bits, each conversion one rounding. */
    out->big_hi = (double)big;
    out->big_lo = (double)((__int128)big - (__int128)out->big_hi);
    out->bits = 0;
    while (out->bits < 127 && big >> (out->bits + 1) != 0)
        out->bits++;
}

static qmm_crt_moduli sets[QMM_CRT_MAX_MODULI];
static pthread_once_t sets_once = PTHREAD_ONCE_INIT;

static void sets_init(void)
{
    for (unsigned count = 1; count <= QMM_CRT_MAX_MODULI; count++)
        moduli_init(count, &sets[count - 1]);
}

const qmm_crt_moduli *qmm_crt_moduli_of(unsigned count)
{
    pthread_once(&sets_once, sets_init);
    return &sets[count - 1];
}

qmm_crt_moduli qmm_crt_modulus(const qmm_crt_moduli *mod, unsigned t)
{
    qmm_crt_moduli one = {.count = 1,
                          .p = {mod->p[t]},
                          .inv_p = {mod->inv_p[t]},
                          .split = {mod->split[t]},
                          .digit = {{mod->digit[t][0], mod->digit[t][1], mod->digit[t][2]}},
                          .p_f = {mod->p_f[t]},
                          .inv_p_f = {mod->inv_p_f[t]}};
    return one;
}
