#include "args.h"

#include "../platform/log.h"

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
 * offsets overflow, the span passes PTRDIFF_MAX bytes (the largest object
 * whose pointer differences C can represent), or it wraps the address space. */
static int operand_span(const void *p, size_t rows, size_t cols, ptrdiff_t rs,
                        ptrdiff_t cs, size_t elem, qmm_span *out)
{
    size_t neg = 0, pos = 0;
    if (!add_extent(rows, rs, &neg, &pos) || !add_extent(cols, cs, &neg, &pos))
        return 0;
    /* neg + pos + 1 elements, at most `most`. */
    const size_t most = PTRDIFF_MAX / elem;
    if (neg >= most || pos >= most - neg)
        return 0;
    uintptr_t at = (uintptr_t)p;
    size_t below = neg * elem, above = pos * elem + elem;
    if (at < below || at > UINTPTR_MAX - above)
        return 0;
    out->lo = at - below;
    out->hi = at + above;
    return 1;
}

int qmm_spans_overlap(qmm_span x, qmm_span y)
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

static int sizes_fit(size_t a, size_t b)
{
    return a <= PTRDIFF_MAX && b <= PTRDIFF_MAX;
}

/* An operand with at least one element, of elem-byte elements: not NULL,
 * and a span that fits. */
static qmm_status element_span(const char *name, const void *p, size_t rows, size_t cols,
                               ptrdiff_t rs, ptrdiff_t cs, size_t elem, qmm_span *out)
{
    if (p == NULL) {
        qmm_log("invalid argument: %s is NULL", name);
        return QMM_ERR_INVALID_ARG;
    }
    if (!operand_span(p, rows, cols, rs, cs, elem, out)) {
        qmm_log("invalid argument: %s's extent overflows the address space", name);
        return QMM_ERR_INVALID_ARG;
    }
    return QMM_OK;
}

/* An input of bytes. */
static qmm_status input_span(const char *name, const void *p, size_t rows, size_t cols,
                             ptrdiff_t rs, ptrdiff_t cs, qmm_span *out)
{
    return element_span(name, p, rows, cols, rs, cs, 1, out);
}

qmm_status qmm_check_matrix(const char *name, const void *p, size_t rows, size_t cols,
                            size_t ld, size_t elem, qmm_span *out)
{
    if (!sizes_fit(rows, cols)) {
        qmm_log("invalid argument: %s's sizes must be at most PTRDIFF_MAX", name);
        return QMM_ERR_INVALID_ARG;
    }
    if (ld < cols || ld > PTRDIFF_MAX) {
        qmm_log("invalid argument: %s's leading dimension is %zu, need %zu <= ld <= PTRDIFF_MAX",
                name, ld, cols);
        return QMM_ERR_INVALID_ARG;
    }
    return element_span(name, p, rows, cols, (ptrdiff_t)ld, 1, elem, out);
}

/* The output, m, n > 0, of elem-byte elements: not NULL, distinct
 * elements, a span that fits. */
static qmm_status output_span(size_t m, size_t n, const void *c, size_t elem, ptrdiff_t rsc,
                              ptrdiff_t csc, qmm_span *out)
{
    if (c == NULL)
        return invalid("C is NULL");
    if (rsc == 0 || csc == 0)
        return invalid("a stride of C is zero");
    if (!c_elements_distinct(m, n, rsc, csc))
        return invalid("C's strides make two elements share memory "
                       "(need |rsc| >= n*|csc| or |csc| >= m*|rsc|)");
    if (!operand_span(c, m, n, rsc, csc, elem, out))
        return invalid("C's extent overflows the address space");
    return QMM_OK;
}

qmm_status qmm_check_a(size_t m, size_t k, const void *a, ptrdiff_t rsa, ptrdiff_t csa)
{
    qmm_span as;
    if (m == 0 || k == 0)
        return QMM_OK;
    if (!sizes_fit(m, k))
        return invalid("m and k must be at most PTRDIFF_MAX");
    return input_span("A", a, m, k, rsa, csa, &as);
}

/* B and C, with C's span in *cs when both are non-empty. */
static qmm_status check_b_c(size_t m, size_t n, size_t k, const void *b, ptrdiff_t rsb,
                            ptrdiff_t csb, const void *c, size_t c_elem, ptrdiff_t rsc,
                            ptrdiff_t csc, qmm_span *cs)
{
    if (!sizes_fit(m, n) || k > PTRDIFF_MAX)
        return invalid("m, n and k must be at most PTRDIFF_MAX");
    qmm_status st = output_span(m, n, c, c_elem, rsc, csc, cs);
    if (st != QMM_OK || k == 0)
        return st;
    qmm_span bs;
    st = input_span("B", b, k, n, rsb, csb, &bs);
    if (st == QMM_OK && qmm_spans_overlap(*cs, bs))
        return invalid("C overlaps B");
    return st;
}

qmm_status qmm_check_b_c(size_t m, size_t n, size_t k, const void *b, ptrdiff_t rsb,
                         ptrdiff_t csb, const void *c, size_t c_elem, ptrdiff_t rsc,
                         ptrdiff_t csc)
{
    qmm_span cs;
    if (m == 0 || n == 0)
        return QMM_OK;
    return check_b_c(m, n, k, b, rsb, csb, c, c_elem, rsc, csc, &cs);
}

qmm_status qmm_check_args(size_t m, size_t n, size_t k,
                          const void *a, ptrdiff_t rsa, ptrdiff_t csa,
                          const void *b, ptrdiff_t rsb, ptrdiff_t csb,
                          const void *c, size_t c_elem, ptrdiff_t rsc, ptrdiff_t csc)
{
    qmm_span cs, as;
    if (m == 0 || n == 0)
        return QMM_OK;
    qmm_status st = check_b_c(m, n, k, b, rsb, csb, c, c_elem, rsc, csc, &cs);
    if (st != QMM_OK || k == 0)
        return st;
    st = input_span("A", a, m, k, rsa, csa, &as);
    if (st == QMM_OK && qmm_spans_overlap(cs, as))
        return invalid("C overlaps A");
    return st;
}

int qmm_leading_dim_ok(size_t ld, size_t cols, const char *name)
{
    if (ld >= cols && ld <= PTRDIFF_MAX)
        return 1;
    qmm_log("invalid argument: %s = %zu, need %zu <= %s <= PTRDIFF_MAX", name, ld, cols,
            name);
    return 0;
}
