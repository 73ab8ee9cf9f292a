#include "bulk.h"

#include "../platform/cpu.h"

typedef struct bulk_packer {
    enum qmm_pack_id format;  /* interleaved: qmm_pack_bulk finishes the depths left as a sub-panel */
    unsigned r;               /* lines per panel */
    unsigned multiples;       /* 1: also any multiple of r lines */
    unsigned adjacent_lines;  /* 1: source lines adjacent (line stride 1); 0: depths */
    unsigned depth_step;
    unsigned features;        /* CPU features it needs (platform/cpu.h) */
    qmm_pack_bulk_fn *pack;
} bulk_packer;

static const bulk_packer packers[] = {
#if defined(__x86_64__)
    {QMM_PACK_I16_K2, 16, 0, 1, 2, QMM_CPU_AVX2, qmm_pack_i16_k2_lines16_avx2},
    {QMM_PACK_I16_K2, 6, 0, 0, 16, QMM_CPU_AVX2, qmm_pack_i16_k2_rows6_avx2},
    {QMM_PACK_I8_K4_SUMS, 32, 0, 1, 4, QMM_CPU_AVX2, qmm_pack_i8_k4_lines32_avx2},
    {QMM_PACK_I8_K4, 32, 0, 1, 4, QMM_CPU_AVX2, qmm_pack_i8_k4_lines32_avx2},
#endif
#if defined(__aarch64__)
    {QMM_PACK_I8_K4, 8, 1, 1, 4, QMM_CPU_NEON, qmm_pack_i8_k4_lines8_neon},
    {QMM_PACK_I8_K8, 8, 1, 1, 8, QMM_CPU_NEON, qmm_pack_i8_k8_lines8_neon},
    {QMM_PACK_I8_K4, 4, 1, 0, 16, QMM_CPU_NEON, qmm_pack_i8_k4_rows4_neon},
    {QMM_PACK_I8_K8, 2, 1, 0, 16, QMM_CPU_NEON, qmm_pack_i8_k8_rows2_neon},
#endif
    {QMM_PACK_COUNT, 0, 0, 0, 1, 0, NULL},  /* keeps the table non-empty; never matches */
};

typedef struct sums_routine {
    enum qmm_pack_id format;
    unsigned r;
    unsigned features;
    qmm_pack_sums_fn *sums;
} sums_routine;

/* By preference: the first whose format, width and features match. */
static const sums_routine sums_routines[] = {
#if defined(__x86_64__)
    {QMM_PACK_I8_K4_SUMS, 32, QMM_CPU_AVX512VNNI, qmm_pack_i8_k4_sums32_avx512vnni},
    {QMM_PACK_I8_K4, 32, QMM_CPU_AVX512VNNI, qmm_pack_i8_k4_sums32_avx512vnni},
    {QMM_PACK_I8_K4_SUMS, 32, QMM_CPU_AVX2, qmm_pack_i8_k4_sums32_avx2},
    {QMM_PACK_I8_K4, 32, QMM_CPU_AVX2, qmm_pack_i8_k4_sums32_avx2},
#endif
    {QMM_PACK_COUNT, 0, 0, NULL},  /* keeps the table non-empty; never matches */
};

qmm_pack_sums_fn *qmm_pack_bulk_sums(const qmm_pack_format *f, unsigned r)
{
    for (size_t i = 0; i < sizeof sums_routines / sizeof sums_routines[0]; i++) {
        const sums_routine *s = &sums_routines[i];
        if (s->sums != NULL && f == &qmm_pack_formats[s->format] && r == s->r &&
            qmm_cpu_has(s->features))
            return s->sums;
    }
    return NULL;
}

static const bulk_packer *find(const qmm_pack_format *f, unsigned r, ptrdiff_t ls,
                               ptrdiff_t ds)
{
    for (size_t i = 0; i < sizeof packers / sizeof packers[0]; i++) {
        const bulk_packer *b = &packers[i];
        if (b->pack != NULL && f == &qmm_pack_formats[b->format] &&
            (b->multiples ? r % b->r == 0 : r == b->r) &&
            (b->adjacent_lines ? ls == 1 : ds == 1) && qmm_cpu_has(b->features))
            return b;
    }
    return NULL;
}

size_t qmm_pack_bulk(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                     ptrdiff_t ls, ptrdiff_t ds, size_t lines, size_t k, unsigned char *dst,
                     size_t panel_bytes)
{
    const bulk_packer *b = find(f, r, ls, ds);
    if (b == NULL)
        return 0;
    const size_t panels = lines / r, depths = k / b->depth_step * b->depth_step;
    if (panels == 0 || depths == 0)
        return 0;
    b->pack(src, b->adjacent_lines ? ds : ls, r, panels, depths, dst, panel_bytes);
    /* The depths left and the padding: in an interleaved layout the depths
     * from a multiple of kr on are a panel of their own, at the offset of
     * their first depth block, which the portable packer writes. */
    if (depths < kp)
        for (size_t j = 0; j < panels; j++)
            f->pack(r, kp - depths, src + (ptrdiff_t)(j * r) * ls + (ptrdiff_t)depths * ds, ls,
                    ds, r, k - depths, dst + j * panel_bytes + depths * r * f->elem_bytes);
    return panels * r;
}
