#include "partition.h"

#include <stdatomic.h>

/* Products under SMALL_PRODUCT_MACS multiply-adds per thread on a kernel of
 * rank SMALL_PRODUCT_RANK run on fewer threads, down to the calling thread
 * alone; a kernel of another rank scales that by its speed. Measured on Zen3
 * (AVX2 6x16 kernel, rank 20, 2 cores) with every product split over 2
 * threads: 32^3 ran at 0.56x the one-thread speed, 48^3 at 0.80x, 64^3 (2^18
 * multiply-adds) at 1.0x, 64x64x128 at 1.26x, 128^3 at 1.54x: a second thread
 * pays from about 2^18 multiply-adds each, about 20 us of work. */
enum {
    SMALL_PRODUCT_MACS = 1 << 18,
    SMALL_PRODUCT_RANK = 20,
    /* The costs below, in multiply-adds of a kernel of rank SMALL_PRODUCT_RANK;
     * a faster kernel's multiply-adds are cheaper, so they weigh more. */
    /* Packing one byte. */
    PACK_COST = 8,
    /* Reading one byte of a panel another task packed, from its core: on the
     * AMX Xeon, sharing A's panels between two column groups ran 784x864x128
     * at half the speed of a row split sharing B's. */
    SHARED_READ_COST = 4,
    /* Adding one partial sum into C at the end of a depth split. */
    REDUCE_COST = 4,
};

double qmm_partition_speedup(const qmm_kernel *kern)
{
    return kern->rank > SMALL_PRODUCT_RANK ? (double)kern->rank / SMALL_PRODUCT_RANK : 1;
}

/* A depth split keeps (tk - 1) partial copies of C: at most this many bytes. */
#define PARTIAL_BYTES_MAX ((size_t)1 << 20)

static atomic_size_t small_product;

void qmm_partition_set_small_product(size_t macs)
{
    atomic_store_explicit(&small_product, macs, memory_order_relaxed);
}

size_t qmm_partition_small(size_t fallback)
{
    size_t small = atomic_load_explicit(&small_product, memory_order_relaxed);
    return small != 0 ? small : fallback;
}

size_t qmm_partition_threads(const qmm_job *job)
{
    const size_t set = qmm_partition_small(0);
    const double small = set != 0 ? (double)set
                                  : (double)SMALL_PRODUCT_MACS * qmm_partition_speedup(job->kern);
    /* In double: m * n * k may not fit in a size_t. */
    double macs = (double)job->m * (double)job->n * (double)job->k;
    double worth = macs / small;
    return worth < 1 ? 1 : worth > QMM_MAX_THREADS ? QMM_MAX_THREADS : (size_t)worth;
}

/* Bytes a task packs, and bytes it reads that other tasks packed, of
 * `bytes` bytes of panels read by `sharers` tasks: alone, it packs them all;
 * shared, it packs its share and reads the rest from the others' cores. */
static void share_out(double bytes, size_t sharers, double *packs, double *reads)
{
    *packs += bytes / (double)sharers;
    *reads += bytes * (double)(sharers - 1) / (double)sharers;
}

/* The cost of the largest task of a split (in multiply-adds): its
 * multiply-adds, the panels it packs and those it reads that other groups
 * packed (A's are shared by the tn column groups when the job packs A, B's by
 * the tm row groups), and the final additions. */
static double largest_task(const qmm_job *job, const qmm_range *s, size_t tm, size_t tn,
                           size_t tk)
{
    const qmm_kernel *kern = job->kern;
    double rows = (double)qmm_ceil_div(qmm_ceil_div(s->i1 - s->i0, kern->mr), tm) * kern->mr;
    double cols = (double)qmm_ceil_div(qmm_ceil_div(s->j1 - s->j0, kern->nr), tn) * kern->nr;
    double depth = (double)qmm_ceil_div(s->kb1 - s->kb0, tk) * (double)job->blk.kc;
    double packs = 0, reads = 0;
    if (job->packed_a == NULL && !qmm_loops_a_in_place(job))
        share_out(rows * depth * kern->a_format->elem_bytes, tn, &packs, &reads);
    if (job->packed_b == NULL)
        share_out(cols * depth * kern->b_format->elem_bytes, tm, &packs, &reads);
    double reduce = (double)(tk - 1) * (double)(s->i1 - s->i0) * (double)(s->j1 - s->j0);
    return rows * cols * depth + qmm_partition_speedup(kern) * (PACK_COST * packs +
                                                        SHARED_READ_COST * reads +
                                                        REDUCE_COST * reduce);
}

qmm_partition qmm_partition_choose(const qmm_job *job, const qmm_range *sweep, size_t threads)
{
    const size_t tiles_m = qmm_ceil_div(sweep->i1 - sweep->i0, job->kern->mr);
    const size_t tiles_n = qmm_ceil_div(sweep->j1 - sweep->j0, job->kern->nr);
    const size_t k_blocks = sweep->kb1 - sweep->kb0;
    qmm_partition best = {1, 1, 1};
    double best_cost = largest_task(job, sweep, 1, 1, 1);
    for (size_t tm = 1; tm <= threads && tm <= tiles_m; tm++) {
        for (size_t tn = 1; tm * tn <= threads && tn <= tiles_n; tn++) {
            size_t tk = threads / (tm * tn);
            if (tk > k_blocks)
                tk = k_blocks;
            while (tk > 1 && (double)(tk - 1) * (double)job->m * (double)job->n * 4 >
                                 (double)PARTIAL_BYTES_MAX)
                tk--;
            for (size_t split = 1; split <= tk; split++) {
                double cost = largest_task(job, sweep, tm, tn, split);
                if (cost < best_cost) {
                    best_cost = cost;
                    best = (qmm_partition){tm, tn, split};
                }
            }
        }
    }
    return best;
}

/* Group g of `groups` near-equal groups of count units: [*first, *end). */
static void group(size_t count, size_t groups, size_t g, size_t *first, size_t *end)
{
    *first = count / groups * g + (g < count % groups ? g : count % groups);
    *end = *first + count / groups + (g < count % groups);
}

qmm_task qmm_partition_task(const qmm_job *job, const qmm_partition *p, const qmm_range *sweep,
                            size_t t)
{
    const unsigned mr = job->kern->mr, nr = job->kern->nr;
    const size_t gm = t % p->tm, gn = t / p->tm % p->tn, gk = t / (p->tm * p->tn);
    size_t a, b;
    qmm_task task = {.part = gk, .a_turn = {gn, p->tn}, .b_turn = {gm, p->tm}};
    qmm_range *r = &task.range;
    group(qmm_ceil_div(sweep->i1 - sweep->i0, mr), p->tm, gm, &a, &b);
    r->i0 = sweep->i0 + a * mr;
    r->i1 = sweep->i0 + b * mr < sweep->i1 ? sweep->i0 + b * mr : sweep->i1;
    group(qmm_ceil_div(sweep->j1 - sweep->j0, nr), p->tn, gn, &a, &b);
    r->j0 = sweep->j0 + a * nr;
    r->j1 = sweep->j0 + b * nr < sweep->j1 ? sweep->j0 + b * nr : sweep->j1;
    group(sweep->kb1 - sweep->kb0, p->tk, gk, &a, &b);
    r->kb0 = sweep->kb0 + a;
    r->kb1 = sweep->kb0 + b;
    return task;
}
