#include "driver.h"

#include <stdlib.h>

#include "log.h"

/* Cache targets for blocking: a block of A stays in L2 while the panels of a
 * block of B pass by. The B block is also the workspace each call allocates:
 * at 2 MiB its fresh pages cost about 1.5 ms per 1024^3 call on Zen3 (glibc
 * maps and unmaps blocks that large); at 256 KiB the 1024^3 product ran 9%
 * faster one-shot (133 -> 145 GOPS) and 7% with A packed once, and the
 * MiniLM shapes were unchanged. A B block may stretch to 1.5 times the
 * target rather than leave a sliver of columns for a second block. */
enum {
    A_BLOCK_BYTES = 256 << 10,
    B_BLOCK_BYTES = 256 << 10,
    B_BLOCK_STRETCH = 6, /* in quarters of the target */
};

static size_t ceil_div(size_t x, size_t d)
{
    return x / d + (x % d != 0);
}

size_t qmm_kernel_depth(const qmm_kernel *kern, size_t k)
{
    return qmm_pack_padded_depth(kern->a_format, k);
}

size_t qmm_packed_a_bytes(const qmm_kernel *kern, size_t m, size_t kp)
{
    size_t panel = qmm_pack_panel_bytes(kern->a_format, kern->mr, kp);
    size_t panels = ceil_div(m, kern->mr);
    if (panel == 0 || panels > SIZE_MAX / panel)
        return 0;
    return panels * panel;
}

/* Pack the lines [first, first+count) of an operand into consecutive panels of r. */
static void pack_lines(const qmm_pack_format *f, unsigned r, size_t kp, size_t k,
                       const int8_t *src, ptrdiff_t line_stride, ptrdiff_t depth_stride,
                       size_t first, size_t count, unsigned char *dst)
{
    qmm_pack_panels(f, r, kp, src + (ptrdiff_t)first * line_stride, line_stride, depth_stride,
                    count, k, dst);
}

int qmm_a_in_place(const qmm_kernel *kern, size_t k, size_t kp, ptrdiff_t rsa, ptrdiff_t csa)
{
    const qmm_pack_format *f = kern->a_format;
    return f->k_inner && f->elem_bytes == 1 && k == kp && csa == 1 && rsa == (ptrdiff_t)kp &&
           qmm_pack_panel_bytes(f, kern->mr, kp) == (size_t)kern->mr * kp;
}

void qmm_pack_a(const qmm_kernel *kern, size_t m, size_t k, size_t kp,
                const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa, void *dst)
{
    pack_lines(kern->a_format, kern->mr, kp, k, a, rsa, csa, 0, m, dst);
}

/* Lines per block: a multiple of the panel width r whose packed size stays
 * near target, and at least one panel. */
static size_t block_lines(size_t panel_bytes, unsigned r, size_t target)
{
    size_t panels = target / panel_bytes;
    return (panels == 0 ? 1 : panels) * r;
}

/* Columns per B block for n columns: the block target, stretched to all of n
 * when that is at most B_BLOCK_STRETCH times the target, so that a product
 * slightly wider than one block is not cut into a full block and a sliver. */
static size_t b_block_cols(const qmm_kernel *kern, size_t n, size_t b_panel)
{
    const unsigned nr = kern->nr;
    size_t all = ceil_div(n, nr) * nr;
    size_t nc = block_lines(b_panel, nr, B_BLOCK_BYTES);
    if (nc >= all || ceil_div(n, nr) <= B_BLOCK_BYTES / 4 * B_BLOCK_STRETCH / b_panel)
        return all;
    return nc;
}

int qmm_b_fits_one_block(const qmm_kernel *kern, size_t n, size_t kp)
{
    size_t b_panel = qmm_pack_panel_bytes(kern->b_format, kern->nr, kp);
    return b_panel != 0 && b_block_cols(kern, n, b_panel) >= n;
}

/* The walk over the tiles of C. A comes packed whole (packed_a), or, when
 * packed_a is NULL, from its source (a, rsa, csa): read in place where
 * qmm_a_in_place() holds, but for a last partial panel, packed into a
 * workspace of one panel; else packed one block of mc rows at a time into a
 * workspace right before the tiles that read it, and the caller guarantees
 * then that B is one block, so each A block is packed once. */
static qmm_status run(const qmm_kernel *kern, size_t m, size_t n, size_t k, size_t kp,
                      const void *packed_a, const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                      const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                      int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    const unsigned mr = kern->mr, nr = kern->nr;
    const size_t a_panel = qmm_pack_panel_bytes(kern->a_format, mr, kp);
    const size_t b_panel = qmm_pack_panel_bytes(kern->b_format, nr, kp);
    size_t mc = block_lines(a_panel, mr, A_BLOCK_BYTES);
    if (mc > m)
        mc = ceil_div(m, mr) * mr;
    const size_t nc = b_block_cols(kern, n, b_panel);

    /* Sizes were checked by the caller: a_panel and b_panel are non-zero and
     * nc/nr panels of b_panel bytes fit in the block target (stretched) or are
     * one panel; so do mc/mr panels of a_panel bytes. One allocation holds the
     * B block, then the A block when A is packed here (one panel, for the
     * last rows, when A is read in place). */
    const int in_place = packed_a == NULL && qmm_a_in_place(kern, k, kp, rsa, csa);
    const size_t b_bytes = nc / nr * b_panel;
    const size_t a_bytes = packed_a != NULL ? 0 : in_place ? a_panel : mc / mr * a_panel;
    size_t align = kern->b_format->align;
    if (packed_a == NULL && kern->a_format->align > align)
        align = kern->a_format->align;
    if (b_bytes > SIZE_MAX - (align - 1) ||
        (b_bytes + align - 1) / align * align > SIZE_MAX - a_bytes) {
        qmm_log("invalid argument: the packing workspace of %s for k=%zu overflows size_t",
                kern->name, k);
        return QMM_ERR_INVALID_ARG;
    }
    size_t b_room = (b_bytes + align - 1) / align * align;
    unsigned char *pb = aligned_alloc(align, b_room + a_bytes);
    if (pb == NULL)
        return QMM_ERR_NO_MEMORY;
    unsigned char *pa = pb + b_room;

    int32_t edge[QMM_MAX_TILE];
    for (size_t jc = 0; jc < n; jc += nc) {
        size_t ncur = n - jc < nc ? n - jc : nc;
        pack_lines(kern->b_format, nr, kp, k, b, csb, rsb, jc, ncur, pb);
        for (size_t ic = 0; ic < m; ic += mc) {
            size_t mcur = m - ic < mc ? m - ic : mc;
            const unsigned char *ablock = pa;
            if (packed_a != NULL) {
                ablock = (const unsigned char *)packed_a + ic / mr * a_panel;
            } else if (in_place) {
                if (mcur % mr != 0)  /* the last rows of A: their panel, into pa */
                    pack_lines(kern->a_format, mr, kp, k, a, rsa, csa, ic + mcur / mr * mr,
                               mcur % mr, pa);
            } else {
                pack_lines(kern->a_format, mr, kp, k, a, rsa, csa, ic, mcur, pa);
            }
            for (size_t jr = 0; jr < ncur; jr += nr) {
                const unsigned char *bp = pb + jr / nr * b_panel;
                size_t nv = ncur - jr < nr ? ncur - jr : nr;
                for (size_t ir = 0; ir < mcur; ir += mr) {
                    size_t i = ic + ir, j = jc + jr;
                    size_t mv = m - i < mr ? m - i : mr;
                    /* In place, a full panel is A's own rows. */
                    const unsigned char *ap =
                        !in_place   ? ablock + ir / mr * a_panel
                        : mv == mr ? (const unsigned char *)(a + (ptrdiff_t)i * rsa)
                                   : pa;
                    int32_t *ct = c + ((ptrdiff_t)i * rsc + (ptrdiff_t)j * csc);
                    if (mv == mr && nv == nr) {
                        kern->run(kp, ap, bp, ct, rsc, csc);
                        continue;
                    }
                    /* The last A panel of an m that is not a multiple of mr:
                     * only its mv valid rows, when the kernel can. */
                    const int partial = mv < mr && kern->run_rows != NULL;
                    if (partial && nv == nr) {
                        kern->run_rows((unsigned)mv, kp, ap, bp, ct, rsc, csc);
                        continue;
                    }
                    if (partial)
                        kern->run_rows((unsigned)mv, kp, ap, bp, edge, (ptrdiff_t)nr, 1);
                    else
                        kern->run(kp, ap, bp, edge, (ptrdiff_t)nr, 1);
                    for (size_t ii = 0; ii < mv; ii++)
                        for (size_t jj = 0; jj < nv; jj++)
                            ct[(ptrdiff_t)ii * rsc + (ptrdiff_t)jj * csc] = edge[ii * nr + jj];
                }
            }
        }
    }
    free(pb);
    return QMM_OK;
}

qmm_status qmm_run_packed_a(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                            size_t kp, const void *packed_a,
                            const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                            int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    return run(kern, m, n, k, kp, packed_a, NULL, 0, 0, b, rsb, csb, c, rsc, csc);
}

qmm_status qmm_run_a_by_blocks(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                               size_t kp, const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                               const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                               int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    return run(kern, m, n, k, kp, NULL, a, rsa, csa, b, rsb, csb, c, rsc, csc);
}
