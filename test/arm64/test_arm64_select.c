/*
 * arm64 kernel selection through the real registry, checked against what the
 * CPU itself says: getauxval(AT_HWCAP) & HWCAP_ASIMDDP, read directly, not
 * through cpu_features (which is what the library uses), so that a wrong
 * detection cannot agree with itself.
 *
 *   test_arm64_select [mode]
 *     (none)                        with dotprod: SDOT 8x8 for n > 1; without:
 *                                   SMLAL 8x8 and SDOT listed as unsupported;
 *                                   n == 1: the 64x1 GEMV either way
 *     dotprod-disable               QMM_DOTPROD_DISABLE=1: as without dotprod
 *     forced-sdot                   QMM_KERNEL=arm64_mmm_i8i32_8x8_sdot: runs
 *                                   exactly with dotprod, QMM_ERR_UNSUPPORTED
 *                                   (C untouched, no crash) without
 *     forced-sdot-dotprod-disable   both variables: QMM_ERR_UNSUPPORTED
 *
 * Under QEMU, QEMU_CPU (set per test by qmm_add_test) must agree with the
 * hwcap for the CPUs whose features are known (toolchain notes), so a test
 * meant to run without dotprod cannot silently run with it, or the reverse.
 *
 * Built without the SDOT kernel (QMM_HAVE_DOTPROD undefined: the assembler is
 * too old), the SDOT kernel must be absent and SMLAL chosen everywhere.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "support/testlib.h"

#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif

#define SMLAL "arm64_mmm_i8i32_8x8_smlal"
#define SDOT "arm64_mmm_i8i32_8x8_sdot"
#define GEMV "arm64_mmv_i8i32_64x1"

#if defined(QMM_HAVE_DOTPROD)
static const int sdot_built = 1;
#else
static const int sdot_built = 0;
#endif

static long checks;

/* Known QEMU CPU models and whether they have FEAT_DotProd. */
static void qemu_cpu_agrees(int hw_dotprod)
{
    static const struct {
        const char *name;
        int dotprod;
    } known[] = {{"cortex-a35", 0}, {"cortex-a53", 0}, {"cortex-a57", 0}, {"cortex-a72", 0},
                 {"a64fx", 0},      {"cortex-a76", 1}, {"neoverse-n1", 1}, {"max", 1}};
    const char *cpu = getenv("QEMU_CPU");
    if (cpu == NULL || cpu[0] == '\0') {
        printf("QEMU_CPU not set: native run, dotprod %s by hwcap\n", hw_dotprod ? "yes" : "no");
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(cpu, known[i].name) == 0) {
            CHECK(known[i].dotprod == hw_dotprod,
                  "QEMU_CPU=%s should %shave dotprod, but the hwcap says %s", cpu,
                  known[i].dotprod ? "" : "not ", hw_dotprod ? "yes" : "no");
            checks++;
        }
    printf("QEMU_CPU=%s, hwcap dotprod %s\n", cpu, hw_dotprod ? "yes" : "no");
}

/* The kernel's registry entry and its public view; NULL when not built. */
static const qmm_kernel *entry(const char *name, int *public_supported)
{
    *public_supported = -1;
    for (size_t i = 0; i < qmm_kernel_count(); i++)
        if (strcmp(qmm_kernel_at(i)->name, name) == 0)
            *public_supported = qmm_kernel_at(i)->supported_here;
    return qmm_registry_find(name);
}

static void registry(int dotprod_usable)
{
    int pub;
    const qmm_kernel *k = entry(SMLAL, &pub);
    CHECK(k != NULL && k->is_supported_here() && pub == 1, SMLAL " not listed as supported");
    k = entry(GEMV, &pub);
    CHECK(k != NULL && k->is_supported_here() && pub == 1, GEMV " not listed as supported");
    k = entry(SDOT, &pub);
    if (!sdot_built) {
        CHECK(k == NULL && pub == -1, SDOT " is listed in a build without it");
    } else {
        CHECK(k != NULL && pub != -1, SDOT " missing from the registry");
        if (k != NULL) {
            CHECK((k->is_supported_here() != 0) == dotprod_usable && pub == dotprod_usable,
                  SDOT " supported_here=%d (public %d), expected %d", k->is_supported_here(),
                  pub, dotprod_usable);
            CHECK(strcmp(k->isa, "neon+dotprod") == 0 && k->mr == 8 && k->nr == 8,
                  SDOT " descriptor");
        }
    }
    checks++;
}

static void expect_choice(size_t m, size_t n, const char *want)
{
    const qmm_kernel *k = NULL;
    qmm_status st = qmm_choose_kernel(m, n, &k);
    const char *got = st == QMM_OK ? k->name : qmm_status_str(st);
    char nbuf[32];
    if (n == QMM_N_SYMBOLIC)
        snprintf(nbuf, sizeof nbuf, "symbolic");
    else
        snprintf(nbuf, sizeof nbuf, "%zu", n);
    CHECK(strcmp(got, want) == 0, "m=%zu n=%s: chose %s, expected %s", m, nbuf, got, want);
    printf("m=%zu n=%s -> %s\n", m, nbuf, got);
    checks++;
}

static void selection(int dotprod_usable)
{
    const char *matrix = sdot_built && dotprod_usable ? SDOT : SMLAL;
    static const size_t ns[] = {8, 16, 64, 100, 1000, QMM_N_SYMBOLIC};
    static const size_t ms[] = {8, 64, 256, 1000};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
            expect_choice(ms[i], ns[j], matrix);
    expect_choice(64, 1, GEMV);
    expect_choice(1000, 1, GEMV);

    /* The one-shot orientation rule and a symbolic plan: both roles. */
    const qmm_kernel *k = NULL;
    int transposed = 0;
    CHECK(qmm_choose_for_call(1, 384, &k, &transposed) == QMM_OK && transposed &&
              strcmp(k->name, GEMV) == 0,
          "1 x 384 product: %s, expected " GEMV " (transposed)", k ? k->name : "none");
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, 256, QMM_N_SYMBOLIC, 300) == QMM_OK, "symbolic plan");
    if (plan != NULL) {
        const char *mm = qmm_plan_kernel_name(plan, 128), *mv = qmm_plan_kernel_name(plan, 1);
        CHECK(mm != NULL && strcmp(mm, matrix) == 0, "symbolic plan, n=128: %s, expected %s",
              mm ? mm : "NULL", matrix);
        CHECK(mv != NULL && strcmp(mv, GEMV) == 0, "symbolic plan, n=1: %s, expected " GEMV,
              mv ? mv : "NULL");
        qmm_plan_destroy(plan);
    }
    checks++;
}

/* QMM_KERNEL names the SDOT kernel: an exact product where it can run, a
 * clean refusal (and C untouched) where it cannot. */
static void forced_sdot(int dotprod_usable)
{
    setenv("QMM_KERNEL", SDOT, 1);
    enum { M = 19, N = 21, K = 37 };
    test_matrix a = test_matrix_new(M, K, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(K, N, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(M, N, 4, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++)
            ((int32_t *)c.base)[i * N + j] = 7;
    int32_t ref[M * N];
    test_reference(&a, &b, ref);

    qmm_status want = !sdot_built ? QMM_ERR_UNKNOWN_KERNEL
                      : dotprod_usable ? QMM_OK
                                       : QMM_ERR_UNSUPPORTED;
    qmm_status st = qmm_i8_i32(M, N, K, a.base, K, b.base, N, c.base, N);
    CHECK(st == want, "QMM_KERNEL=" SDOT ": %s, expected %s", qmm_status_str(st),
          qmm_status_str(want));
    if (st == QMM_OK) {
        test_compare("QMM_KERNEL=" SDOT, &c, ref);
    } else {
        int untouched = 1;
        for (size_t i = 0; i < (size_t)M * N; i++)
            untouched &= ((int32_t *)c.base)[i] == 7;
        CHECK(untouched, "a refused call wrote C");
    }
    CHECK(test_matrix_surroundings_intact(&c), "C's surroundings written");

    qmm_plan *plan = NULL;
    st = qmm_plan_create(&plan, M, QMM_N_SYMBOLIC, K);
    CHECK(st == want, "plan with QMM_KERNEL=" SDOT ": %s, expected %s", qmm_status_str(st),
          qmm_status_str(want));
    if (st == QMM_OK) {
        CHECK(strcmp(qmm_plan_kernel_name(plan, 5), SDOT) == 0, "plan does not run " SDOT);
        qmm_plan_destroy(plan);
    } else {
        CHECK(plan == NULL, "refused plan was set");
    }
    printf("QMM_KERNEL=" SDOT " -> %s\n", qmm_status_str(st));
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
    checks++;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int disable = strcmp(mode, "dotprod-disable") == 0 ||
                  strcmp(mode, "forced-sdot-dotprod-disable") == 0;
    int forced = strcmp(mode, "forced-sdot") == 0 ||
                 strcmp(mode, "forced-sdot-dotprod-disable") == 0;
    if (mode[0] != '\0' && !disable && !forced) {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    /* Before the library's first look at its environment. */
    if (disable)
        setenv("QMM_DOTPROD_DISABLE", "1", 1);

    int hw_dotprod = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
    qemu_cpu_agrees(hw_dotprod);
    int usable = hw_dotprod && !disable;

    if (forced) {
        forced_sdot(usable);
    } else {
        registry(usable);
        selection(usable);
    }
    return test_finish("test_arm64_select", checks);
}
