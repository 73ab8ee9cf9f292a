#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_generic
#include "epilogue_tile.h"

#include "../platform/cpu.h"

/* Instances by preference (QMM_CPU_PICK); the last needs nothing. */
static const struct {
    unsigned features;
    qmm_epilogue_fn *tile;
} instances[] = {
#if defined(__x86_64__)
    {QMM_CPU_AVX512VNNI, qmm_epilogue_tile_avx512},
    {QMM_CPU_AVX2, qmm_epilogue_tile_avx2},
#endif
#if defined(__aarch64__)
    {QMM_CPU_NEON, qmm_epilogue_tile_neon},
#endif
    {0, qmm_epilogue_tile_generic},
};

qmm_epilogue_fn *qmm_epilogue_pick(void)
{
    return QMM_CPU_PICK(instances)->tile;
}

static qmm_along swapped(qmm_along a)
{
    return a == QMM_ALONG_ROWS ? QMM_ALONG_COLS : a == QMM_ALONG_COLS ? QMM_ALONG_ROWS : a;
}

void qmm_epilogue_pair_twin(qmm_epilogue *e, qmm_epilogue *t)
{
    e->twin = NULL;
    if (e->rs != 1 || e->cs == 1)
        return;
    *t = *e;
    t->rs = e->cs;
    t->cs = e->rs;
    t->row_add = e->col_add;
    t->col_add = e->row_add;
    for (unsigned k = 0; k < e->terms; k++)
        for (int f = 0; f < 2; f++)
            t->term[k][f].along = swapped(e->term[k][f].along);
    qmm_fvec *fv[] = {&t->scale[0], &t->scale[1], &t->fbias, &t->qscale};
    for (size_t v = 0; v < sizeof fv / sizeof fv[0]; v++)
        fv[v]->along = swapped(fv[v]->along);
    t->multiplier.along = swapped(e->multiplier.along);
    t->shift.along = swapped(e->shift.along);
    e->twin = t;
}

int qmm_epilogue_is_plain(const qmm_epilogue *e)
{
    return e->type == QMM_TYPE_I32 && e->row_add == NULL && e->col_add == NULL && e->terms == 0;
}
