#include "select.h"

#include <string.h>

typedef struct shape {
    size_t m, n;
    int transposable;  /* a one-shot single-row product: a GEMV kernel may run its transpose */
    int packs_a;       /* a one-shot matrix-vector product (n == 1): A is used once */
} shape;

/* The shape kernel k computes: the transpose (n x 1) when it is a GEMV
 * kernel serving a transposable single-row product. */
static shape as_run(const qmm_kernel *k, shape s)
{
    if (s.transposable && k->nr == 1)
        return (shape){s.n, s.m, 0, 0};
    return s;
}

/* How fast A's packer runs for one-shot matrix-vector products, as the rank of
 * a kernel whose MACs take as long as packing as many bytes (such a product
 * packs one byte of A per MAC): executed instructions per byte packed, 16 to
 * 64 lines, against the GEMV kernels' instructions per MAC on plan runs, whose
 * product with the rank is about 6.5 (arm64 NEON packers, under QEMU:
 * K1 0.70 per byte, K4 0.31). 0: a K-inner int8 format, whose panels are the
 * caller's row-major A read in place (or its rows copied, where k is not a
 * multiple of the format's depth), at no cost worth a term. */
static const unsigned a_packing_rank[QMM_PACK_COUNT] = {
    [QMM_PACK_I8_K1] = 9,
    [QMM_PACK_I8_K4] = 21,
};

/* Each criterion: > 0 when x is better than y for the shape, < 0 when worse. */
typedef int criterion(const qmm_kernel *x, const qmm_kernel *y, shape s);

static int prefer(int x_good, int y_good)
{
    return (x_good != 0) - (y_good != 0);
}

/* For a transposable single-row product: a matrix kernel with partial rows
 * computes just the row; else a GEMV kernel its transpose; last, a matrix
 * kernel whose tile is mostly padding. */
static int single_row_class(const qmm_kernel *k)
{
    return k->nr == 1 ? 1 : k->run_rows != NULL ? 2 : 0;
}

static int by_role(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    if (s.transposable) {
        int cx = single_row_class(x), cy = single_row_class(y);
        return (cx > cy) - (cx < cy);
    }
    int want_gemv = s.n == 1;
    return prefer((x->nr == 1) == want_gemv, (y->nr == 1) == want_gemv);
}

/* Useful fraction of the tiles covering extent e with tile t: e / ceil(e/t)*t. */
static double useful(size_t e, unsigned t)
{
    if (e == 0)
        return 1.0;  /* an empty plan: nothing is wasted */
    size_t covered = (e / t + (e % t != 0)) * t;
    return (double)e / (double)covered;
}

/* The rank is the kernel's expected speed on full tiles; on this shape it
 * does only the useful fraction of its work (for symbolic n, along m only).
 * A kernel with partial rows (run_rows) computes no padding rows. Where the
 * call packs A for one use, the packing's time adds to the kernel's. */
static double expected_speed(const qmm_kernel *k, shape s)
{
    double f = k->run_rows != NULL ? 1.0 : useful(s.m, k->mr);
    if (s.n != QMM_SYMBOLIC)
        f *= useful(s.n, k->nr);
    const double speed = k->rank * f;
    const unsigned packing = a_packing_rank[k->a_format - qmm_pack_formats];
    if (!s.packs_a || packing == 0)
        return speed;
    return 1.0 / (1.0 / speed + 1.0 / packing);
}

static int by_expected_speed(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    double vx = expected_speed(x, as_run(x, s)), vy = expected_speed(y, as_run(y, s));
    return (vx > vy) - (vx < vy);
}

static int by_rank(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    (void)s;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int by_area(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    (void)s;
    unsigned ax = x->mr * x->nr, ay = y->mr * y->nr;
    return (ax > ay) - (ax < ay);
}

static int by_name(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    (void)s;
    return -strcmp(x->name, y->name);
}

static const struct {
    criterion *compare;
    const char *name;
} criteria[] = {
    {by_role, "role"},
    {by_expected_speed, "expected speed"},
    {by_rank, "rank"},
    {by_area, "tile area"},
    {by_name, "name"},
};
enum { CRITERIA = sizeof criteria / sizeof criteria[0] };

/* Index of the criterion that tells x and y apart, CRITERIA if none; *d > 0
 * when it prefers x. */
static size_t deciding(const qmm_kernel *x, const qmm_kernel *y, shape s, int *d)
{
    for (size_t i = 0; i < CRITERIA; i++)
        if ((*d = criteria[i].compare(x, y, s)) != 0)
            return i;
    return CRITERIA;
}

static int better(const qmm_kernel *x, const qmm_kernel *y, shape s)
{
    int d;
    return deciding(x, y, s, &d) < CRITERIA && d > 0;
}

static shape make_shape(size_t m, size_t n, int one_shot)
{
    return (shape){m, n, one_shot && m == 1 && n > 1 && n != QMM_SYMBOLIC, one_shot && n == 1};
}

const char *qmm_select_why(const qmm_kernel *winner, const qmm_kernel *loser, size_t m,
                           size_t n, int one_shot)
{
    int d;
    size_t i = deciding(winner, loser, make_shape(m, n, one_shot), &d);
    return i < CRITERIA ? criteria[i].name : "identical";
}

int qmm_select_transposes(const qmm_kernel *k, size_t m, size_t n, int one_shot)
{
    return make_shape(m, n, one_shot).transposable && k->nr == 1;
}

const qmm_kernel *qmm_select(const qmm_kernel *const *cands, size_t count, size_t m,
                             size_t n, int one_shot)
{
    shape s = make_shape(m, n, one_shot);
    const qmm_kernel *best = NULL;
    for (size_t i = 0; i < count; i++) {
        const qmm_kernel *k = cands[i];
        if (!k->is_supported_here())
            continue;
        if (best == NULL || better(k, best, s))
            best = k;
    }
    return best;
}
