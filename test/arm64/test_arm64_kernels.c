/*
 * The arm64 microkernels called directly (each one supported here), on
 * what the shared suites reach only partly:
 *  - every store path of kernels/arm64/store_8x8.inc and of the GEMV: C
 *    row-major (csc == 1), column-major (rsc == 1), spaced (both strides > 1)
 *    and reversed (both negative), with the surroundings of C intact;
 *  - depths that end in each kernel's tail loop (the unrolled main loops
 *    take 4, 8 or 8 depths), including 0;
 *  - wrap-around modulo 2^32 at a depth whose tail is not empty (the shared
 *    suite's k = 140000 is a multiple of every unroll).
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/driver.h"
#include "dispatch/registry.h"
#include "support/testlib.h"

static long checks;

typedef enum fill { RANDOM, MIN_MIN, MIN_MAX } fill;

static void fill_matrix(test_matrix *m, fill f, int is_a)
{
    if (f == RANDOM)
        test_matrix_fill_random_i8(m);
    else
        test_matrix_fill_i8(m, f == MIN_MIN || is_a ? -128 : 127);
}

/* One full tile of kern at depth k, stored through C in the given layout. */
static void tile(const qmm_kernel *kern, size_t k, test_layout lc, fill f)
{
    const unsigned mr = kern->mr, nr = kern->nr;
    size_t kp = qmm_kernel_depth(kern, k);
    test_matrix a = test_matrix_new(mr, k, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(k, nr, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(mr, nr, 4, lc, 2);
    fill_matrix(&a, f, 1);
    fill_matrix(&b, f, 0);
    size_t abytes = kp ? qmm_pack_panel_bytes(kern->a_format, mr, kp) : 64;
    size_t bbytes = kp ? qmm_pack_panel_bytes(kern->b_format, nr, kp) : 64;
    void *pa = aligned_alloc(kern->a_format->align, abytes);
    void *pb = aligned_alloc(kern->b_format->align, bbytes);
    int32_t *ref = malloc((size_t)mr * nr * sizeof *ref);
    if (pa == NULL || pb == NULL || ref == NULL)
        abort();
    qmm_pack_panel(kern->a_format, mr, kp, a.base, a.rs, a.cs, mr, k, pa);
    qmm_pack_panel(kern->b_format, nr, kp, b.base, b.cs, b.rs, nr, k, pb);
    test_reference(&a, &b, ref);
    if (f != RANDOM) {
        int64_t exact = (int64_t)k * -128 * (f == MIN_MIN ? -128 : 127);
        CHECK(exact > INT32_MAX || exact < INT32_MIN, "k=%zu does not leave int32", k);
    }
    kern->run(kp, pa, pb, c.base, c.rs, c.cs);
    char label[160];
    snprintf(label, sizeof label, "%s direct k=%zu C:%s%s", kern->name, k,
             test_layout_names[lc], f == RANDOM ? "" : " wrap-around");
    test_compare(label, &c, ref);
    CHECK(test_matrix_surroundings_intact(&c), "%s: wrote outside C", label);
    checks++;
    free(pa);
    free(pb);
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
}

int main(void)
{
    static const size_t depths[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,   9,  11,
                                    12, 13, 15, 16, 17, 19, 23, 24, 25, 100, 259};
    size_t ran = 0;
    test_seed(42);
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *kern = qmm_registry_at(i);
        if (strncmp(kern->name, "arm64_", 6) != 0)
            continue;
        if (!kern->is_supported_here()) {
            printf("%-28s not supported here: skipped\n", kern->name);
            continue;
        }
        long before = checks;
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            for (int lc = 0; lc < LAYOUT_COUNT; lc++)
                tile(kern, depths[d], (test_layout)lc, RANDOM);
        for (int lc = 0; lc < LAYOUT_COUNT; lc++) {
            tile(kern, 140007, (test_layout)lc, MIN_MIN);
            tile(kern, 140007, (test_layout)lc, MIN_MAX);
        }
        printf("%-28s %ld checks\n", kern->name, checks - before);
        ran++;
    }
    CHECK(ran >= 2, "only %zu arm64 kernels ran; SMLAL and the GEMV always should", ran);
    return test_finish("test_arm64_kernels", checks);
}
