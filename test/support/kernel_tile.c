#include "kernel_tile.h"

#include <stdlib.h>

static void fill_matrix(test_matrix *m, test_fill f, int is_a)
{
    if (f == FILL_RANDOM)
        test_matrix_fill_random_i8(m);
    else
        test_matrix_fill_i8(m, f == FILL_MIN_MIN || is_a ? -128 : 127);
}

/* rows == 0: the full tile through run; else run_rows(rows). */
static long check_tile(const qmm_kernel *kern, size_t k, unsigned rows, unsigned mv,
                       unsigned nv, test_layout lc, test_fill fill)
{
    const int32_t sentinel = INT32_C(-559038737); /* 0xdeadbeef */
    const unsigned mr = kern->mr, nr = kern->nr;
    const unsigned stored = rows ? rows : mr;
    size_t kp = qmm_pack_padded_depth(kern->a_format, k);
    test_matrix a = test_matrix_new(mv, k, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(k, nv, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(mr, nr, 4, lc, 2);
    fill_matrix(&a, fill, 1);
    fill_matrix(&b, fill, 0);
    test_matrix_fill_i32(&c, sentinel);
    /* A panel of depth 0 is empty but for its line sums, if it has any. */
    size_t abytes = qmm_pack_panel_bytes(kern->a_format, mr, kp);
    size_t bbytes = qmm_pack_panel_bytes(kern->b_format, nr, kp);
    abytes = abytes ? abytes : 64;
    bbytes = bbytes ? bbytes : 64;
    void *pa = aligned_alloc(kern->a_format->align, abytes);
    void *pb = aligned_alloc(kern->b_format->align, bbytes);
    int32_t *ref = malloc(((size_t)mv * nv + 1) * sizeof *ref);
    int32_t *want = malloc((size_t)mr * nr * sizeof *want);
    if (pa == NULL || pb == NULL || ref == NULL || want == NULL)
        abort();
    qmm_pack_panel(kern->a_format, mr, kp, a.base, a.rs, a.cs, mv, k, pa);
    qmm_pack_panel(kern->b_format, nr, kp, b.base, b.cs, b.rs, nv, k, pb);
    if (kern->a_type == QMM_TYPE_U8)
        test_reference_a_u8(&a, &b, ref);
    else
        test_reference(&a, &b, ref);
    for (unsigned i = 0; i < mr; i++)
        for (unsigned j = 0; j < nr; j++)
            want[i * nr + j] = i >= stored              ? sentinel
                               : i < mv && j < nv ? ref[i * nv + j]
                                                  : 0;
    char entry[32] = "tile", label[192];
    qmm_kernel_begin(kern);
    if (rows == 0) {
        kern->run(kp, pa, pb, c.base, c.rs, c.cs);
    } else {
        kern->run_rows(rows, kp, pa, pb, c.base, c.rs, c.cs);
        snprintf(entry, sizeof entry, "run_rows(%u)", rows);
    }
    qmm_kernel_end(kern);
    snprintf(label, sizeof label, "%s %s k=%zu valid %ux%u C:%s%s", kern->name, entry, k, mv,
             nv, test_layout_names[lc], fill == FILL_RANDOM ? "" : " extremes");
    test_compare(label, &c, want);
    free(pa);
    free(pb);
    free(ref);
    free(want);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
    return 1;
}

long test_kernel_tile(const qmm_kernel *kern, size_t k, unsigned mv, unsigned nv,
                      test_layout lc, test_fill fill)
{
    return check_tile(kern, k, 0, mv, nv, lc, fill);
}

long test_kernel_rows(const qmm_kernel *kern, size_t k, unsigned rows, unsigned mv,
                      unsigned nv, test_layout lc, test_fill fill)
{
    if (kern->run_rows == NULL || rows == 0 || rows >= kern->mr || mv > kern->mr) {
        CHECK(0, "%s: run_rows(%u) outside its contract (mr %u, run_rows %s)", kern->name,
              rows, kern->mr, kern->run_rows ? "set" : "NULL");
        return 1;
    }
    return check_tile(kern, k, rows, mv, nv, lc, fill);
}
