#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_generic
#include "epilogue_tile.h"

#include "../platform/cpu.h"

/* Instances by preference; the last needs nothing. */
static const struct {
    unsigned features;
    qmm_epilogue_fn *tile;
} instances[] = {
#if defined(__x86_64__)
    {QMM_CPU_AVX2, qmm_epilogue_tile_avx2},
#endif
    {0, qmm_epilogue_tile_generic},
};

qmm_epilogue_fn *qmm_epilogue_pick(void)
{
    size_t i = 0;
    while (!qmm_cpu_has(instances[i].features))
        i++;
    return instances[i].tile;
}

int qmm_epilogue_is_plain(const qmm_epilogue *e)
{
    return e->type == QMM_TYPE_I32 && e->row_add == NULL && e->col_add == NULL && e->terms == 0;
}
