/*
 * An operand's panels, packed once per product and shared by the tasks that
 * read them (BLIS packs a block of B together with the threads that share
 * it; here without a barrier, so that any engine's pool can run the tasks).
 *
 * Each panel of each k block has a state: free, being packed, packed. A task
 * about to read panels [p0, p1) of a k block claims the free ones (runs of
 * them, one packing call a run) and packs them, starting its turn's share of
 * the way along so that the tasks that share the panels start on different
 * ones; it then reads its panels in the same order, waiting for each one
 * only if another task is still packing it. A claim is only ever held by a
 * task that is running and packing, never waiting, so a wait always ends:
 * the tasks may run in any order, on any number of threads, one included.
 * Whoever packs a panel, it is packed exactly once, so the bytes packed do
 * not depend on the threads. Panels that one task alone reads are an
 * instance of its own, in its region, pointed at block after block.
 *
 * The panels of k block kb lie back to back, from the first panel the buffer
 * holds (p0) on: panel p of block kb at (kb - kb0) * count * bytes[0] +
 * (p - p0) * bytes[kind of kb], the layout of a plan's packed A (kb0 = p0 = 0,
 * count = every panel), which is an instance whose panels are all packed.
 */
#ifndef QMM_PANELS_H
#define QMM_PANELS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "blocking.h"

enum { QMM_PANEL_FREE, QMM_PANEL_PACKING, QMM_PANEL_PACKED };

/* Which of `groups` tasks sharing a run of blocks or panels a task is: it
 * starts on them group/groups of the way along. */
typedef struct qmm_turn {
    size_t group, groups;
} qmm_turn;

/* Index s of count things taken in turn: the (s + count*group/groups)th,
 * wrapping. */
static inline size_t qmm_turn_at(qmm_turn turn, size_t count, size_t s)
{
    return (s + count * turn.group / turn.groups) % count;
}

typedef struct qmm_panels {
    const qmm_pack_format *format;
    unsigned r;                 /* lines per panel: mr for A, nr for B */
    const int8_t *src;          /* line i, depth p at src[i*ls + p*ds] */
    ptrdiff_t ls, ds;
    size_t lines;               /* the operand's lines: m for A, n for B */
    const size_t *bytes;        /* one panel's bytes by kind of k block (blocking.h) */
    unsigned char *data;
    atomic_uchar *state;        /* per k block, then panel; NULL: every panel packed */
    size_t kb0, p0, count;      /* the first k block and panel held, panels per k block */
    size_t run;                 /* the most panels a task claims at once (qmm_panels_run) */
    /* Or NULL: each line's sum over the depths packed, times sums_factor,
     * added to sums[line] (wrapping) as its panels are packed, so that the
     * operand's line sums (or a multiple of them added to something) cost
     * no pass of their own: whole once every k block's panel of the line is
     * packed. */
    atomic_uint *sums;
    uint32_t sums_factor;
} qmm_panels;

/* Panels per claim for blocks of `block` panels of r lines read by `threads`
 * tasks: a block's share of one task, so that a task alone packs a block in
 * one call and the tasks that share it pack their parts side by side, but at
 * least a cache line of a row-major source's row (adjacent lines, as B's
 * columns are), so that no two tasks split one line between them. */
size_t qmm_panels_run(unsigned r, size_t block, size_t threads);

/* Points x at panels [p0, p0 + count) of k blocks [kb0, kb1), none packed
 * yet; x->state has room for them. */
void qmm_panels_reset(qmm_panels *x, size_t kb0, size_t kb1, size_t p0, size_t count);

/* Panel p of k block kb, packed or not. */
static inline const unsigned char *qmm_panels_at(const qmm_panels *x, const qmm_blocking *blk,
                                                 size_t kb, size_t p)
{
    return x->data + (kb - x->kb0) * x->count * x->bytes[0] +
           (p - x->p0) * x->bytes[qmm_block_kind(blk, kb)];
}

/* Bytes of the panels [p0, p0 + count) of k blocks [kb0, kb1); 0 on overflow. */
size_t qmm_panels_bytes(const size_t bytes[2], const qmm_blocking *blk, size_t kb0, size_t kb1,
                        size_t count);

/* Packs panels [p0, p0 + count) of k block kb from x's source to where
 * qmm_panels_at puts them, and returns the bytes written. */
size_t qmm_panels_pack(const qmm_panels *x, const qmm_blocking *blk, size_t kb, size_t p0,
                       size_t count);

/* Packs the panels of [p0, p1) of k block kb that this task can claim, in
 * its turn's order, and returns the bytes it packed: others may still be
 * packing theirs (qmm_panels_wait). */
size_t qmm_panels_claim(const qmm_panels *x, const qmm_blocking *blk, size_t kb, size_t p0,
                        size_t p1, qmm_turn turn);

/* Waits for a panel that another task is packing: it is running, so not for
 * long. */
void qmm_panels_wait_packing(const atomic_uchar *state);

/* Returns once panel p of k block kb is packed. */
static inline void qmm_panels_wait(const qmm_panels *x, size_t kb, size_t p)
{
    if (x->state == NULL)
        return;
    const atomic_uchar *s = &x->state[(kb - x->kb0) * x->count + (p - x->p0)];
    if (atomic_load_explicit(s, memory_order_acquire) != QMM_PANEL_PACKED)
        qmm_panels_wait_packing(s);
}

#endif
