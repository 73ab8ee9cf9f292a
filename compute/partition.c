#include "partition.h"

#include <stdatomic.h>

/* Products under SMALL_PRODUCT_MACS multiply-adds per thread run on fewer
 * threads, down to the calling thread alone. Measured on Zen3 (AVX2, 2 cores)
 * with every product split over 2 threads: 32^3 ran at 0.56x the one-thread
 * speed, 48^3 at 0.80x, 64^3 (2^18 multiply-adds) at 1.0x, 64x64x128 at 1.26x,
 * 128^3 at 1.54x: a second thread pays from about 2^18 multiply-adds each. */
enum {
    SMALL_PRODUCT_MACS = 1 << 18,
    /* Packing one element, relative to one multiply-add of a kernel. */
    PACK_COST = 8,
    /* Adding one partial sum into C at the end of a depth split. */
    REDUCE_COST = 4,
};

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
    size_t small = qmm_partition_small(SMALL_PRODUCT_MACS);
    /* In double: m * n * k may not fit in a size_t. */
    double macs = (double)job->m * (double)job->n * (double)job->k;
    double worth = macs / (double)small;
    return worth < 1 ? 1 : worth > QMM_MAX_THREADS ? QMM_MAX_THREADS : (size_t)worth;
}

/* The cost of the largest task of a split (in multiply-adds). */
static double largest_task(const qmm_job *job, size_t tm, size_t tn, size_t tk)
{
    const qmm_kernel *kern = job->kern;
    double rows = (double)qmm_ceil_div(qmm_ceil_div(job->m, kern->mr), tm) * kern->mr;
    double cols = (double)qmm_ceil_div(qmm_ceil_div(job->n, kern->nr), tn) * kern->nr;
    double depth = (double)qmm_ceil_div(job->blk.k_blocks, tk) * (double)job->blk.kc;
    int packs_a = job->packed_a == NULL && !(tk == 1 && qmm_loops_a_in_place(job));
    double packed = depth * (cols + (packs_a ? rows : 0));
    double reduce = (double)(tk - 1) * (double)job->m * (double)job->n;
    return rows * cols * depth + PACK_COST * packed + REDUCE_COST * reduce;
}

qmm_partition qmm_partition_choose(const qmm_job *job, size_t threads)
{
    const size_t tiles_m = qmm_ceil_div(job->m, job->kern->mr);
    const size_t tiles_n = qmm_ceil_div(job->n, job->kern->nr);
    qmm_partition best = {1, 1, 1};
    double best_cost = largest_task(job, 1, 1, 1);
    for (size_t tm = 1; tm <= threads && tm <= tiles_m; tm++) {
        for (size_t tn = 1; tm * tn <= threads && tn <= tiles_n; tn++) {
            size_t tk = threads / (tm * tn);
            if (tk > job->blk.k_blocks)
                tk = job->blk.k_blocks;
            while (tk > 1 && (double)(tk - 1) * (double)job->m * (double)job->n * 4 >
                                 (double)PARTIAL_BYTES_MAX)
                tk--;
            for (size_t split = 1; split <= tk; split++) {
                double cost = largest_task(job, tm, tn, split);
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

qmm_range qmm_partition_range(const qmm_job *job, const qmm_partition *p, size_t t,
                              size_t *part)
{
    const unsigned mr = job->kern->mr, nr = job->kern->nr;
    size_t gm = t % p->tm, gn = t / p->tm % p->tn, gk = t / (p->tm * p->tn);
    size_t a, b;
    qmm_range r;
    group(qmm_ceil_div(job->m, mr), p->tm, gm, &a, &b);
    r.i0 = a * mr;
    r.i1 = b * mr < job->m ? b * mr : job->m;
    group(qmm_ceil_div(job->n, nr), p->tn, gn, &a, &b);
    r.j0 = a * nr;
    r.j1 = b * nr < job->n ? b * nr : job->n;
    group(job->blk.k_blocks, p->tk, gk, &r.kb0, &r.kb1);
    *part = gk;
    return r;
}
