/*
 * Every packing format in the table against the layout formulas of
 * pack/pack.h (qmm_pack_index), its line sums (qmm_pack_panel_sums, and
 * after the elements where the format has them), from
 * sources in every stride pattern, with partial panels and depths that need
 * padding.
 */
#include <stdlib.h>
#include <string.h>

#include "pack/pack.h"
#include "support/testlib.h"

static long checks;

/* Value the panel must hold at (line i, depth p). */
static int expected(const test_matrix *src, unsigned lines, size_t k, unsigned i, size_t p)
{
    return i < lines && p < k ? test_i8_at(src, i, p) : 0;
}

static void one(const qmm_pack_format *f, unsigned r, unsigned lines, size_t k,
                test_layout layout)
{
    size_t kp = qmm_pack_padded_depth(f, k);
    CHECK(kp >= k && kp % f->kr == 0 && kp < k + f->kr, "%s: padded depth %zu for k=%zu",
          f->name, kp, k);
    size_t bytes = qmm_pack_panel_bytes(f, r, kp);
    CHECK(bytes % f->align == 0 &&
              bytes >= (size_t)r * kp * f->elem_bytes + (f->line_sums ? 4u * r : 0),
          "%s: panel bytes %zu for r=%u kp=%zu", f->name, bytes, r, kp);
    test_matrix src = test_matrix_new(lines, k, 1, layout, 2);
    test_matrix_fill_random_i8(&src);
    unsigned char *dst = aligned_alloc(f->align, bytes + f->align);
    if (dst == NULL)
        abort();
    memset(dst, 0x77, bytes + f->align);
    qmm_pack_panel(f, r, kp, src.base, src.rs, src.cs, lines, k, dst);
    size_t bad = 0;
    for (size_t p = 0; p < kp; p++)
        for (unsigned i = 0; i < r; i++) {
            size_t at = qmm_pack_index(f, r, kp, i, p);
            int got = f->elem_bytes == 1 ? ((int8_t *)dst)[at] : ((int16_t *)dst)[at];
            bad += got != expected(&src, lines, k, i, p);
        }
    size_t end = (size_t)r * kp * f->elem_bytes;
    /* r int32 sums of each line's values over depth, 0 for padding lines:
     * every format's from qmm_pack_panel_sums (the tasks' B column sums), a
     * format with line sums's after its elements too. */
    int32_t sums[128]; /* the widest of main()'s widths */
    qmm_pack_panel_sums(f, r, kp, dst, sums);
    for (unsigned i = 0; i < r; i++) {
        int32_t want = 0, got;
        for (size_t p = 0; p < k; p++)
            want += expected(&src, lines, k, i, p);
        bad += sums[i] != want;
        if (f->line_sums) {
            memcpy(&got, dst + end + 4 * i, sizeof got);
            bad += got != want;
        }
    }
    if (f->line_sums)
        end += (size_t)r * sizeof(int32_t);
    for (size_t x = end; x < bytes; x++)
        bad += dst[x] != 0x77 && dst[x] != 0;
    for (size_t x = bytes; x < bytes + f->align; x++)
        bad += dst[x] != 0x77;
    CHECK(bad == 0, "%s r=%u lines=%u k=%zu %s: %zu wrong bytes", f->name, r, lines, k,
          test_layout_names[layout], bad);
    checks++;
    free(dst);
    test_matrix_free(&src);
}

/* Several panels in one call, as the driver packs them: every panel must be
 * what qmm_pack_panel makes of its lines, the last one partial. */
static void many(const qmm_pack_format *f, unsigned r, size_t lines, size_t k, test_layout layout)
{
    size_t kp = qmm_pack_padded_depth(f, k), panel = qmm_pack_panel_bytes(f, r, kp);
    size_t panels = (lines + r - 1) / r;
    test_matrix src = test_matrix_new(lines, k, 1, layout, 1);
    test_matrix_fill_random_i8(&src);
    unsigned char *got = aligned_alloc(f->align, panels * panel);
    unsigned char *want = aligned_alloc(f->align, panels * panel);
    if (got == NULL || want == NULL)
        abort();
    memset(got, 0x77, panels * panel);
    memset(want, 0x77, panels * panel);
    qmm_pack_panels(f, r, kp, src.base, src.rs, src.cs, lines, k, got);
    for (size_t p = 0; p < panels; p++) {
        size_t left = lines - p * r;
        qmm_pack_panel(f, r, kp, (const int8_t *)src.base + (ptrdiff_t)(p * r) * src.rs, src.rs,
                       src.cs, left < r ? (unsigned)left : r, k, want + p * panel);
    }
    size_t bad = 0, used = (size_t)r * kp * f->elem_bytes + (f->line_sums ? 4u * r : 0);
    for (size_t p = 0; p < panels; p++)
        for (size_t x = 0; x < used; x++)
            bad += got[p * panel + x] != want[p * panel + x];
    CHECK(bad == 0, "%s: %zu lines in panels of %u, k=%zu, %s: %zu bytes differ", f->name, lines,
          r, k, test_layout_names[layout], bad);
    checks++;
    free(got);
    free(want);
    test_matrix_free(&src);
}

int main(void)
{
    /* 24 and 128: panels of multiples of 8 lines that the NEON packers take
     * 8 at a time (the SVE and SME kernels' B at 384 and 2048 bits). */
    static const unsigned widths[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128};
    static const size_t depths[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65};
    test_seed(7);
    for (int fi = 0; fi < QMM_PACK_COUNT; fi++) {
        const qmm_pack_format *f = &qmm_pack_formats[fi];
        CHECK(f->kr >= 1 && (f->elem_bytes == 1 || f->elem_bytes == 2) &&
                  (!f->line_sums || f->elem_bytes == 1) &&
                  f->align >= 16 && (f->align & (f->align - 1)) == 0,
              "format %d is malformed", fi);
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
                for (int l = 0; l < LAYOUT_COUNT; l++) {
                    unsigned r = widths[w];
                    one(f, r, r, depths[d], (test_layout)l);
                    one(f, r, (r + 1) / 2, depths[d], (test_layout)l);
                }
    }
    /* Depths around the steps of the bulk packers (pack/bulk.c: 2, 4, 8 and 16),
     * which qmm_pack_panels uses where the CPU has them. */
    static const size_t counts[] = {1, 5, 53, 200};
    static const size_t many_depths[] = {1, 4, 15, 16, 37, 64};
    for (int fi = 0; fi < QMM_PACK_COUNT; fi++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int l = 0; l < LAYOUT_COUNT; l++)
                    for (size_t d = 0; d < sizeof many_depths / sizeof many_depths[0]; d++)
                        many(&qmm_pack_formats[fi], widths[w], counts[c], many_depths[d],
                             (test_layout)l);
    /* Overflowing sizes report 0. */
    const qmm_pack_format *f = &qmm_pack_formats[QMM_PACK_I16_K2];
    CHECK(qmm_pack_panel_bytes(f, 64, SIZE_MAX / 64) == 0, "panel size overflow undetected");
    CHECK(qmm_pack_padded_depth(f, SIZE_MAX) == 0, "depth padding overflow undetected");
    checks++;
    return test_finish("test_pack", checks);
}
