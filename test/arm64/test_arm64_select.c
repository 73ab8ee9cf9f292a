/*
 * arm64 kernel selection through the real registry, checked against what the
 * CPU itself says: getauxval(AT_HWCAP) & HWCAP_ASIMDDP and getauxval(AT_HWCAP2)
 * & HWCAP2_I8MM (and HWCAP2_SME with HWCAP2_SME_I8I32), read directly, not
 * through cpu_features (which is what the library uses), so that a wrong
 * detection cannot agree with itself. qmm_cpu_feature_names() must name the
 * tiers in effect, sme included (no kernel runs on it yet).
 *
 *   test_arm64_select [mode]
 *     (none)              matrices (n > 1, symbolic n): SMMLA with i8mm, else
 *                         SDOT with dotprod, else SMLAL; n == 1: the dotprod
 *                         GEMV with dotprod, else the 64x1; one-shot single
 *                         rows: SMMLA's partial rows, else the GEMV on the
 *                         transpose; the kernels a CPU lacks listed as
 *                         unsupported
 *     dotprod-disable     QMM_DOTPROD_DISABLE=1: SMLAL and the 64x1 even with
 *                         i8mm (a tier is in effect only when the one below
 *                         it is: NEON < dotprod < i8mm)
 *     dotprod-disable-list  QMM_DISABLE=dotprod: the same
 *     i8mm-disable        QMM_DISABLE=i8mm: as without i8mm
 *     neon-disable        QMM_DISABLE=neon: the portable kernels alone, even
 *                         with dotprod and i8mm
 *     sme-disable         QMM_DISABLE=sme: sme no longer named, the kernels
 *                         unchanged
 *     forced-sdot         QMM_KERNEL=arm64_mmm_i8i32_8x8_sdot: runs exactly
 *                         with dotprod, QMM_ERR_UNSUPPORTED (C untouched, no
 *                         crash) without
 *     forced-smmla        likewise for arm64_mmm_i8i32_8x8_smmla and i8mm
 *     forced-gemv-sdot    likewise for arm64_mmv_i8i32_8x1_sdot and dotprod
 *     forced-sdot-dotprod-disable, forced-smmla-i8mm-disable
 *                         both variables: QMM_ERR_UNSUPPORTED
 *
 * Under QEMU, QEMU_CPU (set per test by qmm_add_test) must agree with the
 * hwcaps for the CPUs whose features are known (toolchain notes), so a test
 * meant to run without an extension cannot silently run with it, or the
 * reverse.
 *
 * Built without a gated kernel (QMM_HAVE_DOTPROD or QMM_HAVE_I8MM undefined:
 * the assembler is too old), that kernel must be absent and the tier below
 * chosen.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "hwcaps.h"
#include "support/testlib.h"


#define SMLAL "arm64_mmm_i8i32_8x8_smlal"
#define SDOT "arm64_mmm_i8i32_8x8_sdot"
#define SMMLA "arm64_mmm_i8i32_8x8_smmla"
#define GEMV "arm64_mmv_i8i32_64x1"
#define GEMV_SDOT "arm64_mmv_i8i32_8x1_sdot"
#define GENERIC "generic_mmm_i8i32_3x4"
#define GENERIC_GEMV "generic_mmv_i8i32_4x1"

#if defined(QMM_HAVE_DOTPROD)
static const int dotprod_built = 1;
#else
static const int dotprod_built = 0;
#endif
#if defined(QMM_HAVE_I8MM)
static const int i8mm_built = 1;
#else
static const int i8mm_built = 0;
#endif

/* What the CPU has and what qmm may use of it. */
typedef struct tiers {
    int neon, dotprod, i8mm, sme;
} tiers;

static long checks;

/* Known QEMU CPU models and their extensions. */
static void qemu_cpu_agrees(tiers hw)
{
    static const struct {
        const char *name;
        int dotprod, i8mm, sme;
    } known[] = {{"cortex-a35", 0, 0, 0}, {"cortex-a53", 0, 0, 0}, {"cortex-a57", 0, 0, 0},
                 {"cortex-a72", 0, 0, 0}, {"a64fx", 0, 0, 0},      {"cortex-a76", 1, 0, 0},
                 {"neoverse-n1", 1, 0, 0}, {"max", 1, 1, 1}};
    const char *cpu = getenv("QEMU_CPU");
    if (cpu == NULL || cpu[0] == '\0') {
        printf("QEMU_CPU not set: native run, hwcaps dotprod %d, i8mm %d, sme %d\n",
               hw.dotprod, hw.i8mm, hw.sme);
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(cpu, known[i].name) == 0) {
            CHECK(known[i].dotprod == hw.dotprod && known[i].i8mm == hw.i8mm &&
                      known[i].sme == hw.sme,
                  "QEMU_CPU=%s should have dotprod %d, i8mm %d, sme %d; the hwcaps say "
                  "%d, %d, %d", cpu, known[i].dotprod, known[i].i8mm, known[i].sme,
                  hw.dotprod, hw.i8mm, hw.sme);
            checks++;
        }
    printf("QEMU_CPU=%s, hwcaps dotprod %d, i8mm %d, sme %d\n", cpu, hw.dotprod, hw.i8mm,
           hw.sme);
}

/* The public feature names: the tiers in use, in tier order. */
static void feature_names(tiers use)
{
    char want[64] = "";
    const struct {
        int on;
        const char *name;
    } names[] = {{use.neon, "neon"}, {use.dotprod, "dotprod"}, {use.i8mm, "i8mm"},
                 {use.sme, "sme"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].on) {
            if (want[0] != '\0')
                strcat(want, ",");
            strcat(want, names[i].name);
        }
    CHECK(strcmp(qmm_cpu_feature_names(), want) == 0,
          "qmm_cpu_feature_names() \"%s\", expected \"%s\"", qmm_cpu_feature_names(), want);
    checks++;
}

/* A gated kernel's registry entry against its public view and the CPU. */
static void gated_entry(const char *name, const char *isa, unsigned mr, unsigned nr,
                        int built, int usable)
{
    int pub = -1;
    for (size_t i = 0; i < qmm_kernel_count(); i++)
        if (strcmp(qmm_kernel_at(i)->name, name) == 0)
            pub = qmm_kernel_at(i)->supported_here;
    const qmm_kernel *k = qmm_registry_find(name);
    if (!built) {
        CHECK(k == NULL && pub == -1, "%s is listed in a build without it", name);
    } else {
        CHECK(k != NULL && pub != -1, "%s missing from the registry", name);
        if (k != NULL) {
            CHECK((k->is_supported_here() != 0) == usable && pub == usable,
                  "%s supported_here=%d (public %d), expected %d", name,
                  k->is_supported_here(), pub, usable);
            CHECK(strcmp(k->isa, isa) == 0 && k->mr == mr && k->nr == nr, "%s descriptor",
                  name);
        }
    }
    checks++;
}

static void registry(tiers use)
{
    gated_entry(SMLAL, "neon", 8, 8, 1, use.neon);
    gated_entry(GEMV, "neon", 64, 1, 1, use.neon);
    gated_entry(SDOT, "neon+dotprod", 8, 8, dotprod_built, use.dotprod);
    gated_entry(GEMV_SDOT, "neon+dotprod", 8, 1, dotprod_built, use.dotprod);
    gated_entry(SMMLA, "neon+i8mm", 8, 8, i8mm_built, use.i8mm);
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

static void selection(tiers use)
{
    const char *matrix = i8mm_built && use.i8mm         ? SMMLA
                         : dotprod_built && use.dotprod ? SDOT
                         : use.neon                     ? SMLAL
                                                        : GENERIC;
    const char *gemv = dotprod_built && use.dotprod ? GEMV_SDOT : use.neon ? GEMV : GENERIC_GEMV;
    static const size_t ns[] = {8, 16, 64, 100, 1000, QMM_N_SYMBOLIC};
    static const size_t ms[] = {8, 64, 256, 1000};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
            expect_choice(ms[i], ns[j], matrix);
    expect_choice(64, 1, gemv);
    expect_choice(1000, 1, gemv);

    /* The one-shot single-row rule (a matrix kernel with partial rows computes
     * just the row: SMMLA; else a GEMV kernel its transpose) and a symbolic
     * plan: both roles. */
    const qmm_kernel *k = NULL;
    int transposed = 0, by_rows = strcmp(matrix, SMMLA) == 0;
    const char *single = by_rows ? SMMLA : gemv;
    CHECK(qmm_choose_for_call(1, 384, &k, &transposed) == QMM_OK && transposed == !by_rows &&
              strcmp(k->name, single) == 0,
          "1 x 384 product: %s%s, expected %s%s", k ? k->name : "none",
          transposed ? " (transposed)" : "", single, by_rows ? "" : " (transposed)");
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, 256, QMM_N_SYMBOLIC, 300) == QMM_OK, "symbolic plan");
    if (plan != NULL) {
        const char *mm = qmm_plan_kernel_name(plan, 128), *mv = qmm_plan_kernel_name(plan, 1);
        CHECK(mm != NULL && strcmp(mm, matrix) == 0, "symbolic plan, n=128: %s, expected %s",
              mm ? mm : "NULL", matrix);
        CHECK(mv != NULL && strcmp(mv, gemv) == 0, "symbolic plan, n=1: %s, expected %s",
              mv ? mv : "NULL", gemv);
        qmm_plan_destroy(plan);
    }
    checks++;
}

/* QMM_KERNEL names a gated kernel: an exact product where it can run, a clean
 * refusal (and C untouched) where it cannot, QMM_ERR_UNKNOWN_KERNEL where it
 * is not built. n is 1 for a GEMV kernel, so that the kernel is asked for on
 * its own role. */
static void forced(const char *name, int built, int usable, size_t n)
{
    setenv("QMM_KERNEL", name, 1);
    enum { M = 19, K = 37, NMAX = 21 };
    test_matrix a = test_matrix_new(M, K, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(K, n, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(M, n, 4, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < n; j++)
            ((int32_t *)c.base)[i * n + j] = 7;
    int32_t ref[M * NMAX];
    test_reference(&a, &b, ref);

    qmm_status want = !built ? QMM_ERR_UNKNOWN_KERNEL : usable ? QMM_OK : QMM_ERR_UNSUPPORTED;
    qmm_status st = qmm_i8_i32(M, n, K, a.base, K, b.base, n, c.base, n);
    CHECK(st == want, "QMM_KERNEL=%s: %s, expected %s", name, qmm_status_str(st),
          qmm_status_str(want));
    if (st == QMM_OK) {
        test_compare(name, &c, ref);
    } else {
        int untouched = 1;
        for (size_t i = 0; i < (size_t)M * n; i++)
            untouched &= ((int32_t *)c.base)[i] == 7;
        CHECK(untouched, "a refused call wrote C");
    }
    CHECK(test_matrix_surroundings_intact(&c), "C's surroundings written");

    qmm_plan *plan = NULL;
    st = qmm_plan_create(&plan, M, QMM_N_SYMBOLIC, K);
    CHECK(st == want, "plan with QMM_KERNEL=%s: %s, expected %s", name, qmm_status_str(st),
          qmm_status_str(want));
    if (st == QMM_OK) {
        CHECK(strcmp(qmm_plan_kernel_name(plan, n), name) == 0, "plan does not run %s", name);
        qmm_plan_destroy(plan);
    } else {
        CHECK(plan == NULL, "refused plan was set");
    }
    printf("QMM_KERNEL=%s -> %s\n", name, qmm_status_str(st));
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
    checks++;
}

/* The modes: what they switch off (before the library's first look at its
 * environment) and which kernel they force, if any. */
static const struct mode {
    const char *name;
    const char *env, *value;
    const char *forced;
} modes[] = {
    {"", NULL, NULL, NULL},
    {"dotprod-disable", "QMM_DOTPROD_DISABLE", "1", NULL},
    {"dotprod-disable-list", "QMM_DISABLE", "dotprod", NULL},
    {"i8mm-disable", "QMM_DISABLE", "i8mm", NULL},
    {"neon-disable", "QMM_DISABLE", "neon", NULL},
    {"sme-disable", "QMM_DISABLE", "sme", NULL},
    {"forced-sdot", NULL, NULL, SDOT},
    {"forced-smmla", NULL, NULL, SMMLA},
    {"forced-gemv-sdot", NULL, NULL, GEMV_SDOT},
    {"forced-sdot-dotprod-disable", "QMM_DOTPROD_DISABLE", "1", SDOT},
    {"forced-smmla-i8mm-disable", "QMM_DISABLE", "i8mm", SMMLA},
};

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    const struct mode *mode = NULL;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(modes[i].name, name) == 0)
            mode = &modes[i];
    if (mode == NULL) {
        fprintf(stderr, "unknown mode %s\n", name);
        return 2;
    }
    if (mode->env != NULL)
        setenv(mode->env, mode->value, 1);

    tiers hw = {hwcap_neon(), hwcap_dotprod(), hwcap_i8mm(), hwcap_sme()};
    qemu_cpu_agrees(hw);
    /* Each tier needs its own feature, on and not switched off, and the tier
     * below it in use. */
    const char *off = mode->value != NULL ? mode->value : "";
    int dotprod_off = (mode->env != NULL && strcmp(mode->env, "QMM_DOTPROD_DISABLE") == 0) ||
                      strcmp(off, "dotprod") == 0;
    tiers use;
    use.neon = hw.neon && strcmp(off, "neon") != 0;
    use.dotprod = use.neon && hw.dotprod && !dotprod_off;
    use.i8mm = use.dotprod && hw.i8mm && strcmp(off, "i8mm") != 0;
    use.sme = use.i8mm && hw.sme && strcmp(off, "sme") != 0;
    feature_names(use);

    if (mode->forced == NULL) {
        registry(use);
        selection(use);
    } else if (strcmp(mode->forced, SMMLA) == 0) {
        forced(SMMLA, i8mm_built, use.i8mm, 21);
    } else {
        forced(mode->forced, dotprod_built, use.dotprod, strcmp(mode->forced, GEMV_SDOT) ? 21 : 1);
    }
    return test_finish("test_arm64_select", checks);
}
