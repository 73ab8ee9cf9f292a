/*
 * Negative control for dispatch: calls one kernel's microkernel directly,
 * bypassing the registry's is_supported_here() filter, on one full tile.
 *
 *   test_arm64_direct KERNEL
 *
 * On a CPU with the kernel's extension it must compute the tile exactly
 * (exit 0). On a CPU without it the first instruction of the extension (SDOT,
 * SMMLA, an SVE instruction, SME's SMSTART) must kill the process with
 * SIGILL (exit status 132 from a shell): that is what dispatch protects
 * users from, and the proof that the emulated CPU really lacks the
 * instruction, so that the selection tests on it mean something.
 * test/arm64/CMakeLists.txt runs it per kernel and CPU with the expected
 * status; this program cannot check its own death.
 */

#include "dispatch/registry.h"
#include "support/kernel_tile.h"
#include "hwcaps.h"
#include "support/testlib.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_arm64_direct KERNEL\n");
        return 2;
    }
    const qmm_kernel *kern = qmm_registry_find(argv[1]);
    if (kern == NULL) {
        fprintf(stderr, "test_arm64_direct: no kernel %s in this build\n", argv[1]);
        return 2;
    }
    printf("hwcap dotprod %s, i8mm %s, sve %s, svei8mm %s, sme %s; calling %s (%ux%u) "
           "directly\n",
           hwcap_dotprod() ? "yes" : "no", hwcap_i8mm() ? "yes" : "no",
           hwcap_sve() ? "yes" : "no", hwcap_svei8mm() ? "yes" : "no",
           hwcap_sme() ? "yes" : "no", kern->name, kern->mr, kern->nr);
    fflush(stdout);
    test_seed(7);
    long checks = test_kernel_tile(kern, 37, kern->mr, kern->nr, LAYOUT_ROW, FILL_RANDOM);
    return test_finish("test_arm64_direct", checks);
}
