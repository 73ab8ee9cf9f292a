#include "args.h"

#include "log.h"

/* Byte range [lo, hi) an operand covers. */
typedef struct span {
    uintptr_t lo, hi;
} span;

static size_t magnitude(ptrdiff_t s)
{
    return s < 0 ? (size_t)0 - (size_t)s : (size_t)s;
}

/* offset += (count - 1) * |stride| on the side of the stride's sign. */
static int add_extent(size_t count, ptrdiff_t stride, size_t *neg, size_t *pos)
{
    size_t step = magnitude(stride), reach;
    if (count <= 1 || step == 0)
        return 1;
    if (step > SIZE_MAX / (count - 1))
        return 0;
    reach = (count - 1) * step;
    size_t *side = stride < 0 ? neg : pos;
    if (*side > SIZE_MAX - reach)
        return 0;
    *side += reach;
    return 1;
}

/* The span of a rows x cols operand of elem-byte elements at p; 0 when the
 * offsets overflow, exceed PTRDIFF_MAX elements, or wrap the address space. */
static int operand_span(const void *p, size_t rows, size_t cols, ptrdiff_t rs,
                        ptrdiff_t cs, size_t elem, span *out)
{
    size_t neg = 0, pos = 0;
    if (!add_extent(rows, rs, &neg, &pos) || !add_extent(cols, cs, &neg, &pos))
        return 0;
    if (neg > PTRDIFF_MAX / elem || pos > PTRDIFF_MAX / elem)
        return 0;
    uintptr_t at = (uintptr_t)p;
    size_t below = neg * elem, above = pos * elem + elem;
    if (at < below || at > UINTPTR_MAX - above)
        return 0;
    out->lo = at - below;
    out->hi = at + above;
    return 1;
}

static int overlap(span x, span y)
{
    return x.lo < y.hi && y.lo < x.hi;
}

/* One dimension nests inside the other, so no two elements of C coincide. A
 * dimension of extent 1 never steps, so its stride cannot make a collision. */
static int c_elements_distinct(size_t m, size_t n, ptrdiff_t rsc, ptrdiff_t csc)
{
    size_t r = magnitude(rsc), cl = magnitude(csc);
    if (m == 1 || n == 1)
        return 1;
    return (cl <= SIZE_MAX / n && r >= n * cl) || (r <= SIZE_MAX / m && cl >= m * r);
}

static qmm_status invalid(const char *why)
{
    qmm_log("invalid argument: %s", why);
    return QMM_ERR_INVALID_ARG;
}

qmm_status qmm_check_args(size_t m, size_t n, size_t k,
                          const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                          const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                          const int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    if (m == 0 || n == 0)
        return QMM_OK;
    if (m > PTRDIFF_MAX || n > PTRDIFF_MAX || k > PTRDIFF_MAX)
        return invalid("m, n and k must be at most PTRDIFF_MAX");
    if (c == NULL)
        return invalid("C is NULL");
    if (rsc == 0 || csc == 0)
        return invalid("a stride of C is zero");
    if (!c_elements_distinct(m, n, rsc, csc))
        return invalid("C's strides make two elements share memory "
                       "(need |rsc| >= n*|csc| or |csc| >= m*|rsc|)");
    span cs, as, bs;
    if (!operand_span(c, m, n, rsc, csc, sizeof *c, &cs))
        return invalid("C's extent overflows the address space");
    if (k == 0)
        return QMM_OK;
    if (a == NULL)
        return invalid("A is NULL");
    if (b == NULL)
        return invalid("B is NULL");
    if (!operand_span(a, m, k, rsa, csa, sizeof *a, &as))
        return invalid("A's extent overflows the address space");
    if (!operand_span(b, k, n, rsb, csb, sizeof *b, &bs))
        return invalid("B's extent overflows the address space");
    if (overlap(cs, as))
        return invalid("C overlaps A");
    if (overlap(cs, bs))
        return invalid("C overlaps B");
    return QMM_OK;
}
