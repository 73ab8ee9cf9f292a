/*
 * Negative control for dispatch: calls the SDOT microkernel directly,
 * bypassing the registry's is_supported_here() filter, on one 8x8 tile.
 *
 * On a CPU with FEAT_DotProd it must compute the tile exactly (exit 0). On a
 * CPU without it the SDOT instruction must kill the process with SIGILL
 * (exit status 132 from a shell): that is what dispatch protects users from,
 * and the proof that the emulated CPU really lacks the instruction, so that
 * the selection tests on it mean something. test/arm64/CMakeLists.txt runs it
 * per CPU with the expected status; this program cannot check its own death.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "compute/loops.h"
#include "dispatch/registry.h"
#include "support/testlib.h"

#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif

qmm_ukernel_fn qmm_arm64_mmm_i8i32_8x8_sdot_run;

int main(void)
{
    enum { MR = 8, NR = 8, K = 37 };
    const qmm_pack_format *f = &qmm_pack_formats[QMM_PACK_I8_K4];
    const size_t kp = qmm_pack_padded_depth(f, K);
    test_matrix a = test_matrix_new(MR, K, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(K, NR, 1, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    void *pa = aligned_alloc(f->align, qmm_pack_panel_bytes(f, MR, kp));
    void *pb = aligned_alloc(f->align, qmm_pack_panel_bytes(f, NR, kp));
    if (pa == NULL || pb == NULL)
        abort();
    qmm_pack_panel(f, MR, kp, a.base, a.rs, a.cs, MR, K, pa);
    qmm_pack_panel(f, NR, kp, b.base, b.cs, b.rs, NR, K, pb);
    int32_t ref[MR * NR], c[MR * NR];
    test_reference(&a, &b, ref);
    memset(c, 0x5A, sizeof c);

    printf("hwcap dotprod %s; calling the SDOT kernel directly\n",
           getauxval(AT_HWCAP) & HWCAP_ASIMDDP ? "yes" : "no");
    fflush(stdout);
    qmm_arm64_mmm_i8i32_8x8_sdot_run(kp, pa, pb, c, NR, 1);

    long wrong = 0;
    for (int i = 0; i < MR * NR; i++)
        wrong += c[i] != ref[i];
    CHECK(wrong == 0, "SDOT tile: %ld wrong elements", wrong);
    free(pa);
    free(pb);
    test_matrix_free(&a);
    test_matrix_free(&b);
    return test_finish("test_arm64_sdot_direct", 1);
}
