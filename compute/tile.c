#include "tile.h"

void qmm_tile_put(const qmm_c_view *to, size_t i, size_t j, size_t mv, size_t nv,
                  const int32_t *from, size_t from_rs, qmm_tile_mode mode)
{
    int32_t *c = to->c + ((ptrdiff_t)i * to->rs + (ptrdiff_t)j * to->cs);
    for (size_t ii = 0; ii < mv; ii++) {
        int32_t *row = c + (ptrdiff_t)ii * to->rs;
        for (size_t jj = 0; jj < nv; jj++) {
            uint32_t v = from != NULL ? (uint32_t)from[ii * from_rs + jj] : 0;
            if (mode == QMM_TILE_ADD)
                v += (uint32_t)row[(ptrdiff_t)jj * to->cs];
            row[(ptrdiff_t)jj * to->cs] = (int32_t)v;
        }
    }
}

void qmm_tile_compute(const qmm_kernel *kern, size_t kp, const void *ap, const void *bp,
                      const qmm_c_view *to, size_t i, size_t j, size_t mv, size_t nv,
                      qmm_tile_mode mode)
{
    const unsigned mr = kern->mr, nr = kern->nr;
    if (mode == QMM_TILE_STORE && nv == nr) {
        int32_t *c = to->c + ((ptrdiff_t)i * to->rs + (ptrdiff_t)j * to->cs);
        if (mv == mr) {
            kern->run(kp, ap, bp, c, to->rs, to->cs);
            return;
        }
        if (kern->run_rows != NULL) {
            kern->run_rows((unsigned)mv, kp, ap, bp, c, to->rs, to->cs);
            return;
        }
    }
    int32_t scratch[QMM_MAX_TILE];
    if (mv < mr && kern->run_rows != NULL)
        kern->run_rows((unsigned)mv, kp, ap, bp, scratch, (ptrdiff_t)nr, 1);
    else
        kern->run(kp, ap, bp, scratch, (ptrdiff_t)nr, 1);
    qmm_tile_put(to, i, j, mv, nv, scratch, nr, mode);
}
