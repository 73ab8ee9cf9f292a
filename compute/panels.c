#include "panels.h"

#include <sched.h>

/* The fewest lines a claim takes: a cache line of bytes. */
enum { RUN_LINES = 64 };

size_t qmm_panels_run(unsigned r, size_t block, size_t threads)
{
    const size_t line = qmm_ceil_div(RUN_LINES, r), share = qmm_ceil_div(block, threads);
    return share > line ? share : line;
}

void qmm_panels_reset(qmm_panels *x, size_t kb0, size_t kb1, size_t p0, size_t count)
{
    x->kb0 = kb0;
    x->p0 = p0;
    x->count = count;
    for (size_t i = 0; i < (kb1 - kb0) * count; i++)
        atomic_init(&x->state[i], QMM_PANEL_FREE);
}

size_t qmm_panels_bytes(const size_t bytes[2], const qmm_blocking *blk, size_t kb0, size_t kb1,
                        size_t count)
{
    const int last = kb1 == blk->k_blocks;
    const size_t full = kb1 - kb0 - last;
    if (count != 0 && (bytes[0] > SIZE_MAX / count || full > SIZE_MAX / (bytes[0] * count)))
        return 0;
    size_t total = full * bytes[0] * count;
    if (last && count != 0 && bytes[1] > (SIZE_MAX - total) / count)
        return 0;
    return total + (last ? bytes[1] * count : 0);
}

size_t qmm_panels_pack(const qmm_panels *x, const qmm_blocking *blk, size_t kb, size_t p0,
                       size_t count)
{
    const size_t first = p0 * x->r, kp = qmm_block_depth(blk, kb);
    const size_t lines = x->lines - first < count * x->r ? x->lines - first : count * x->r;
    const unsigned char *at = qmm_panels_at(x, blk, kb, p0);
    const size_t bytes = x->bytes[qmm_block_kind(blk, kb)];
    qmm_pack_panels(x->format, x->r, kp,
                    x->src + (ptrdiff_t)first * x->ls + (ptrdiff_t)(kb * blk->kc) * x->ds, x->ls,
                    x->ds, lines, qmm_block_source_depth(blk, kb), (unsigned char *)at);
    for (size_t l = 0; x->sums != NULL && l < lines; l += x->r) {
        /* Each panel's sums while it is in cache; other tasks may be adding
         * another k block's to the same lines. */
        int32_t sums[QMM_MAX_TILE];
        qmm_pack_panel_sums(x->format, x->r, kp, at + l / x->r * bytes, sums);
        const size_t valid = lines - l < x->r ? lines - l : x->r;
        for (size_t i = 0; i < valid; i++)
            atomic_fetch_add_explicit(&x->sums[first + l + i],
                                      (unsigned)sums[i] * x->sums_factor, memory_order_relaxed);
    }
    return count * bytes;
}

static int claim(atomic_uchar *s)
{
    unsigned char expected = QMM_PANEL_FREE;
    return atomic_load_explicit(s, memory_order_relaxed) == QMM_PANEL_FREE &&
           atomic_compare_exchange_strong_explicit(s, &expected, QMM_PANEL_PACKING,
                                                   memory_order_relaxed, memory_order_relaxed);
}

void qmm_panels_wait_packing(const atomic_uchar *state)
{
    for (unsigned spins = 0;
         atomic_load_explicit(state, memory_order_acquire) != QMM_PANEL_PACKED; spins++)
        if (spins >= 64)
            sched_yield();
}

/* Claims and packs the free panels among [from, to) (indices into the states
 * of k block kb), in runs; returns the bytes packed. */
static size_t claim_runs(const qmm_panels *x, const qmm_blocking *blk, size_t kb, size_t from,
                         size_t to)
{
    atomic_uchar *state = x->state + (kb - x->kb0) * x->count;
    size_t packed = 0;
    for (size_t p = from; p < to; p++) {
        if (!claim(&state[p]))
            continue;
        size_t end = p + 1;
        while (end < to && end - p < x->run && claim(&state[end]))
            end++;
        packed += qmm_panels_pack(x, blk, kb, x->p0 + p, end - p);
        for (size_t q = p; q < end; q++)
            atomic_store_explicit(&state[q], QMM_PANEL_PACKED, memory_order_release);
        p = end - 1;
    }
    return packed;
}

size_t qmm_panels_claim(const qmm_panels *x, const qmm_blocking *blk, size_t kb, size_t p0,
                        size_t p1, qmm_turn turn)
{
    if (x->state == NULL)
        return 0;
    /* Indices into the states count from the first panel held. */
    const size_t first = p0 - x->p0, end = p1 - x->p0;
    const size_t start = first + qmm_turn_at(turn, end - first, 0);
    return claim_runs(x, blk, kb, start, end) + claim_runs(x, blk, kb, first, start);
}
