/*
 * The tile seam: the one place where a finished tile's int32 result leaves a
 * kernel for C (or for a buffer of sums standing in for C), and where the
 * output stage (output/epilogue.h) is applied, tile by tile, once the sums
 * of a tile are complete: after the last k block, or after the partial sums
 * of a depth split are added.
 */
#ifndef QMM_TILE_H
#define QMM_TILE_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "../output/epilogue.h"

/* Where sums go: element (i, j) at c[i*rs + j*cs]. */
typedef struct qmm_c_view {
    int32_t *c;
    ptrdiff_t rs, cs;
} qmm_c_view;

typedef enum qmm_tile_mode {
    QMM_TILE_STORE,  /* the first k block: overwrite */
    QMM_TILE_ADD,    /* a later k block, or another part's partial sums: add (wrapping) */
} qmm_tile_mode;

/* A task's tiles whose stage waits for the next tile: each one's sums in
 * one of two scratch tiles, the other holding the tile before, finished
 * while the kernel's multiply-adds for this one are in flight (on a kernel
 * with run_overlap, kernels/kernel.h), or after them. */
typedef struct qmm_pending_tile {
    const qmm_c_view *to;
    const qmm_epilogue *finish;
    size_t i, j, mv, nv;
    unsigned nr;        /* its sums' row stride in the slot */
    qmm_tile_mode mode;
} qmm_pending_tile;

typedef struct qmm_tile_pipe {
    int32_t slot[2][QMM_MAX_TILE];
    unsigned next;   /* the slot the next tile's sums go to */
    int pending;     /* the other slot holds `tile`, to finish */
    qmm_pending_tile tile;
} qmm_tile_pipe;

/* An empty pipe, for a task's first tile. */
void qmm_tile_pipe_init(qmm_tile_pipe *pipe);

/* Finishes the tile still pending, if any: at the end of a task, before its
 * kernel's end hook. */
void qmm_tile_pipe_flush(qmm_tile_pipe *pipe);

/* Runs kern on one tile (A panel ap, B panel bp, padded depth kp) and puts
 * its valid mv x nv corner at (i, j): with finish NULL, as sums into the
 * view `to` (stored or added); else, the sums completed (added to those in
 * `to` under QMM_TILE_ADD), through finish's stage into C. A full tile of
 * plain sums goes straight from the kernel to its destination, the valid
 * rows of a partial one through run_rows when the kernel has it; a tile of
 * all mr rows with a stage through the pipe when there is one (finished
 * with the next tile, or by qmm_tile_pipe_flush); any other through a
 * scratch tile. */
void qmm_tile_compute(const qmm_kernel *kern, size_t kp, const void *ap, const void *bp,
                      const qmm_c_view *to, const qmm_epilogue *finish, size_t i, size_t j,
                      size_t mv, size_t nv, qmm_tile_mode mode, qmm_tile_pipe *pipe);

/* Puts an mv x nv block of sums (element (i, j) at from[i*from_rs + j];
 * zeros when from is NULL) at (i, j), as qmm_tile_compute puts a tile. */
void qmm_tile_put(const qmm_c_view *to, const qmm_epilogue *finish, size_t i, size_t j,
                  size_t mv, size_t nv, const int32_t *from, size_t from_rs,
                  qmm_tile_mode mode);

#endif
