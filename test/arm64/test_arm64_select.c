/*
 * arm64 kernel selection through the real registry, checked against what the
 * CPU itself says: getauxval(AT_HWCAP) & HWCAP_ASIMDDP and getauxval(AT_HWCAP2)
 * & HWCAP2_I8MM (and HWCAP_SVE, HWCAP2_SVEI8MM, HWCAP2_SME with
 * HWCAP2_SME_I8I32), read directly, not through cpu_features (which is what
 * the library uses), so that a wrong detection cannot agree with itself, and
 * the vector lengths read by cntb and rdsvl. qmm_cpu_feature_names() must
 * name the tiers in effect.
 *
 *   test_arm64_select [mode]
 *     (none)              matrices (n > 1, symbolic n): the usable kernel of
 *                         highest rank at this CPU's vector lengths (SME,
 *                         SVE SMMLA, NEON SMMLA, SVE SDOT, NEON SDOT, SMLAL:
 *                         at 128 bits NEON's over SVE's), on shapes that all
 *                         their tiles fit, and on small shapes where no
 *                         SVE or SME kernel runs; n == 1 on plans: the SVE
 *                         GEMV from 256 bits or without dotprod, else the
 *                         dotprod GEMV, else the 64x1; n == 1 one-shot, where
 *                         A is packed for one use: the dotprod GEMV (A read
 *                         in place), else the SVE GEMV, else the portable 4x1
 *                         (also in place) over the 64x1; one-shot single
 *                         rows: SMMLA's partial rows, else the GEMV on the
 *                         transpose; each
 *                         kernel's tile at the vector length, and the
 *                         kernels a CPU lacks listed as unsupported
 *     dotprod-disable     QMM_DOTPROD_DISABLE=1: SMLAL and the 64x1 even with
 *                         i8mm (a tier is in effect only when the one below
 *                         it is: NEON < dotprod < i8mm)
 *     dotprod-disable-list  QMM_DISABLE=dotprod: the same, but SVE's SDOT
 *                         kernels stay where SVE is
 *     i8mm-disable        QMM_DISABLE=i8mm: as without i8mm
 *     neon-disable        QMM_DISABLE=neon: the portable kernels alone, even
 *                         with dotprod and i8mm
 *     sme-disable         QMM_DISABLE=sme: as without SME
 *     sve-disable         QMM_DISABLE=sve: as without SVE (svei8mm goes too)
 *     forced-sdot         QMM_KERNEL=arm64_mmm_i8i32_8x8_sdot: runs exactly
 *                         with dotprod, QMM_ERR_UNSUPPORTED (C untouched, no
 *                         crash) without
 *     forced-smmla        likewise for arm64_mmm_i8i32_8x8_smmla and i8mm
 *     forced-sve-sdot, forced-sve-smmla, forced-sme, forced-gemv-sve
 *                         likewise for the SVE and SME kernels
 *     forced-gemv-sdot    likewise for arm64_mmv_i8i32_8x1_sdot and dotprod
 *     forced-sdot-dotprod-disable, forced-smmla-i8mm-disable
 *                         both variables: QMM_ERR_UNSUPPORTED
 *
 * Under QEMU, QEMU_CPU (set per test by qmm_add_test) must agree with the
 * hwcaps for the CPUs whose features are known (toolchain notes), so a test
 * meant to run without an extension cannot silently run with it, or the
 * reverse.
 *
 * Built without a gated kernel (QMM_HAVE_DOTPROD, QMM_HAVE_I8MM, QMM_HAVE_SVE,
 * QMM_HAVE_SVE_I8MM or QMM_HAVE_SME undefined: the assembler is too old), that
 * kernel must be absent and the tier below chosen.
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
#define SVE_SDOT "arm64_mmm_i8i32_8x2vl_sve_sdot"
#define SVE_SMMLA "arm64_mmm_i8i32_8x2vl_sve_smmla"
#define SME "arm64_mmm_i8i32_2vlx2vl_sme_smopa"
#define GEMV_SVE "arm64_mmv_i8i32_4vlx1_sve_sdot"
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
#if defined(QMM_HAVE_SVE)
static const int sve_built = 1;
#else
static const int sve_built = 0;
#endif
#if defined(QMM_HAVE_SVE_I8MM)
static const int sve_i8mm_built = 1;
#else
static const int sve_i8mm_built = 0;
#endif
#if defined(QMM_HAVE_SME)
static const int sme_built = 1;
#else
static const int sme_built = 0;
#endif

/* What the CPU has and what qmm may use of it. */
typedef struct tiers {
    int neon, dotprod, i8mm, sve, svei8mm, sme;
} tiers;

/* The vector lengths in bytes, read here (cntb, rdsvl #1: as words, so that
 * any assembler takes them), 0 without the feature. */
static unsigned sve_bytes, sme_bytes;

static void read_vector_lengths(tiers hw)
{
    unsigned long v = 0;
    if (hw.sve)
        __asm__ volatile(".inst 0x0420e3e0\n\tmov %0, x0" : "=r"(v) : : "x0");
    sve_bytes = (unsigned)v;
    v = 0;
    if (hw.sme)
        __asm__ volatile(".inst 0x04bf5820\n\tmov %0, x0" : "=r"(v) : : "x0");
    sme_bytes = (unsigned)v;
}

static long checks;

/* Known QEMU CPU models and their extensions. */
static void qemu_cpu_agrees(tiers hw)
{
    static const struct {
        const char *name;
        int dotprod, i8mm, sve, svei8mm, sme;
    } known[] = {{"cortex-a35", 0, 0, 0, 0, 0},  {"cortex-a53", 0, 0, 0, 0, 0},
                 {"cortex-a57", 0, 0, 0, 0, 0},  {"cortex-a72", 0, 0, 0, 0, 0},
                 {"a64fx", 0, 0, 1, 0, 0},       {"cortex-a76", 1, 0, 0, 0, 0},
                 {"neoverse-n1", 1, 0, 0, 0, 0}, {"neoverse-v1", 1, 1, 1, 1, 0},
                 {"neoverse-n2", 1, 1, 1, 1, 0}, {"cortex-a710", 1, 1, 1, 1, 0}};
    const char *cpu = getenv("QEMU_CPU");
    if (cpu == NULL || cpu[0] == '\0') {
        printf("QEMU_CPU not set: native run\n");
    } else {
        /* "max" and "max,<properties>" have every extension. */
        const int max = strncmp(cpu, "max", 3) == 0 && (cpu[3] == '\0' || cpu[3] == ',');
        for (size_t i = 0; i < sizeof known / sizeof known[0] + 1; i++) {
            if (i < sizeof known / sizeof known[0] ? strcmp(cpu, known[i].name) != 0 : !max)
                continue;
            const int all = i == sizeof known / sizeof known[0];
            CHECK(all ? hw.dotprod && hw.i8mm && hw.sve && hw.svei8mm && hw.sme
                      : known[i].dotprod == hw.dotprod && known[i].i8mm == hw.i8mm &&
                            known[i].sve == hw.sve && known[i].svei8mm == hw.svei8mm &&
                            known[i].sme == hw.sme,
                  "QEMU_CPU=%s: the hwcaps say dotprod %d, i8mm %d, sve %d, svei8mm %d, "
                  "sme %d, not what this model has", cpu, hw.dotprod, hw.i8mm, hw.sve,
                  hw.svei8mm, hw.sme);
            checks++;
        }
    }
    printf("QEMU_CPU=%s, hwcaps dotprod %d, i8mm %d, sve %d (%u bytes), svei8mm %d, "
           "sme %d (%u bytes)\n", cpu ? cpu : "", hw.dotprod, hw.i8mm, hw.sve, sve_bytes,
           hw.svei8mm, hw.sme, sme_bytes);
}

/* The public feature names: the tiers in use, in tier order. */
static void feature_names(tiers use)
{
    char want[96] = "";
    const struct {
        int on;
        const char *name;
    } names[] = {{use.neon, "neon"},   {use.dotprod, "dotprod"}, {use.i8mm, "i8mm"},
                 {use.sve, "sve"},     {use.svei8mm, "svei8mm"}, {use.sme, "sme"}};
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

/* The SVE and SME kernels' tiles at this CPU's vector lengths (128 bits's
 * when the feature is off or absent); SME's past 1024 values is unused. */
static unsigned sve_segments(tiers use)
{
    return use.sve && sve_bytes >= 32 ? sve_bytes / 16 : 1;
}

static unsigned sme_segments(tiers use)
{
    return use.sme && sme_bytes >= 32 ? sme_bytes / 16 : 1;
}

static int sme_fits(tiers use)
{
    return 8 * sme_segments(use) * 8 * sme_segments(use) <= 1024;
}

static void registry(tiers use)
{
    const unsigned v = sve_segments(use), z = sme_segments(use);
    gated_entry(SMLAL, "neon", 8, 8, 1, use.neon);
    gated_entry(GEMV, "neon", 64, 1, 1, use.neon);
    gated_entry(SDOT, "neon+dotprod", 8, 8, dotprod_built, use.dotprod);
    gated_entry(GEMV_SDOT, "neon+dotprod", 8, 1, dotprod_built, use.dotprod);
    gated_entry(SMMLA, "neon+i8mm", 8, 8, i8mm_built, use.i8mm);
    gated_entry(SVE_SDOT, "sve", 8, 8 * v, sve_built, use.sve);
    gated_entry(GEMV_SVE, "sve", 16 * v, 1, sve_built, use.sve);
    gated_entry(SVE_SMMLA, "sve+i8mm", 8, 8 * v, sve_i8mm_built, use.svei8mm);
    gated_entry(SME, "sme", 8 * z, 8 * z, sme_built, use.sme && sme_fits(use));
}

/* A usable matrix kernel and its rank at this CPU's vector lengths, as
 * dispatch/kernel_list.h declares them (at 128 bits; x2 per doubling, x4 for
 * SME's two dimensions). */
typedef struct candidate {
    const char *name;
    double rank;
    int usable;
} candidate;

/* A GEMV kernel's rank on a one-shot call, which packs A for one use: its
 * time per MAC plus its packer's per byte, both as 1/rank (the packers' ranks
 * in dispatch/select.c: i8_k1 9, i8_k4 21). */
static double packing_a(double rank, double packer)
{
    return 1.0 / (1.0 / rank + 1.0 / packer);
}

static const char *best(const candidate *c, size_t count)
{
    const char *name = GENERIC;
    double rank = 0;
    for (size_t i = 0; i < count; i++)
        if (c[i].usable && c[i].rank > rank) {
            rank = c[i].rank;
            name = c[i].name;
        }
    return name;
}

static void expect_choice(size_t m, size_t n, const char *want)
{
    const qmm_kernel *k = NULL;
    qmm_status st = qmm_choose_kernel(m, n, &k);
    const char *got = st == QMM_OK ? k->name : qmm_status_str(st);
    char nbuf[32];
    if (n == QMM_SYMBOLIC)
        snprintf(nbuf, sizeof nbuf, "symbolic");
    else
        snprintf(nbuf, sizeof nbuf, "%zu", n);
    CHECK(strcmp(got, want) == 0, "m=%zu n=%s: chose %s, expected %s", m, nbuf, got, want);
    printf("m=%zu n=%s -> %s\n", m, nbuf, got);
    checks++;
}

/* The same for a one-shot call (qmm_i8_i32 and the other plan-less calls). */
static void expect_call(size_t m, size_t n, const char *want)
{
    const qmm_kernel *k = NULL;
    int transposed = 0;
    qmm_status st = qmm_choose_for_call(m, n, &k, &transposed);
    const char *got = st == QMM_OK ? k->name : qmm_status_str(st);
    CHECK(strcmp(got, want) == 0 && !transposed, "one-shot m=%zu n=%zu: chose %s%s, expected %s",
          m, n, got, transposed ? " (transposed)" : "", want);
    printf("one-shot m=%zu n=%zu -> %s\n", m, n, got);
    checks++;
}

static void selection(tiers use)
{
    const unsigned v = sve_segments(use), z = sme_segments(use);
    const candidate matrices[] = {
        {SMLAL, 17, use.neon},
        {SDOT, 70, dotprod_built && use.dotprod},
        {SMMLA, 120, i8mm_built && use.i8mm},
        {SVE_SDOT, 65 * v, sve_built && use.sve},
        {SVE_SMMLA, 110 * v, sve_i8mm_built && use.svei8mm},
        {SME, 150 * z * z, sme_built && use.sme && sme_fits(use)},
    };
    const candidate gemvs[] = {
        {GENERIC_GEMV, 10, 1},
        {GEMV, 14, use.neon},
        {GEMV_SDOT, 60, dotprod_built && use.dotprod},
        {GEMV_SVE, 52 * v, sve_built && use.sve},
    };
    const candidate one_shot_gemvs[] = {
        {GENERIC_GEMV, 10, 1},
        {GEMV, packing_a(14, 9), use.neon},
        {GEMV_SDOT, 60, dotprod_built && use.dotprod},
        {GEMV_SVE, packing_a(52 * v, 21), sve_built && use.sve},
    };
    const char *matrix = best(matrices, sizeof matrices / sizeof matrices[0]);
    const char *gemv = best(gemvs, sizeof gemvs / sizeof gemvs[0]);
    const char *one_shot_gemv = best(one_shot_gemvs, sizeof one_shot_gemvs / sizeof one_shot_gemvs[0]);
    /* Tiles that grow with the vector make small shapes mostly padding, which
     * the selector weighs: those shapes are checked where no such kernel runs
     * (what the NEON kernels always chose), the others on shapes that every
     * tile fits (m a multiple of 32 rows, n of 128 columns). */
    const int scalable = (sve_built && use.sve) || (sme_built && use.sme && sme_fits(use));
    static const size_t ns[] = {8, 16, 64, 100, 1000, QMM_SYMBOLIC};
    static const size_t ms[] = {8, 64, 256, 1000};
    for (size_t i = 0; !scalable && i < sizeof ms / sizeof ms[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
            expect_choice(ms[i], ns[j], matrix);
    expect_choice(256, 1024, matrix);
    expect_choice(512, 2048, matrix);
    expect_choice(256, QMM_SYMBOLIC, matrix);
    expect_choice(256, 1, gemv);
    expect_choice(1024, 1, gemv);
    expect_call(1024, 1, one_shot_gemv);
    expect_call(384, 1, one_shot_gemv);

    /* The one-shot single-row rule (a matrix kernel with partial rows computes
     * just the row: NEON's SMMLA, whatever kernel wins the matrices; else a
     * GEMV kernel its transpose) and a symbolic plan: both roles. */
    const qmm_kernel *k = NULL;
    int transposed = 0, by_rows = i8mm_built && use.i8mm;
    const char *single = by_rows ? SMMLA : gemv;
    CHECK(qmm_choose_for_call(1, 384, &k, &transposed) == QMM_OK && transposed == !by_rows &&
              strcmp(k->name, single) == 0,
          "1 x 384 product: %s%s, expected %s%s", k ? k->name : "none",
          transposed ? " (transposed)" : "", single, by_rows ? "" : " (transposed)");
    qmm_plan *plan = NULL;
    CHECK(qmm_plan_create(&plan, 256, QMM_SYMBOLIC, 300) == QMM_OK, "symbolic plan");
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
    st = qmm_plan_create(&plan, M, QMM_SYMBOLIC, K);
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
    {"sve-disable", "QMM_DISABLE", "sve", NULL},
    {"forced-sdot", NULL, NULL, SDOT},
    {"forced-smmla", NULL, NULL, SMMLA},
    {"forced-gemv-sdot", NULL, NULL, GEMV_SDOT},
    {"forced-sdot-dotprod-disable", "QMM_DOTPROD_DISABLE", "1", SDOT},
    {"forced-smmla-i8mm-disable", "QMM_DISABLE", "i8mm", SMMLA},
    {"forced-sve-sdot", NULL, NULL, SVE_SDOT},
    {"forced-sve-smmla", NULL, NULL, SVE_SMMLA},
    {"forced-sme", NULL, NULL, SME},
    {"forced-gemv-sve", NULL, NULL, GEMV_SVE},
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

    tiers hw = {hwcap_neon(), hwcap_dotprod(), hwcap_i8mm(),
                hwcap_sve(),  hwcap_svei8mm(), hwcap_sme()};
    read_vector_lengths(hw);
    qemu_cpu_agrees(hw);
    /* Each tier needs its own feature, on and not switched off, and the tier
     * below it in use. */
    const char *off = mode->value != NULL ? mode->value : "";
    /* QMM_DOTPROD_DISABLE=1 is QMM_DISABLE=dotprod,sve: every dot-product
     * kernel off; QMM_DISABLE=dotprod leaves SVE's (its tier stands on NEON). */
    const int dotprod_switch =
        mode->env != NULL && strcmp(mode->env, "QMM_DOTPROD_DISABLE") == 0;
    int dotprod_off = dotprod_switch ||
                      strcmp(off, "dotprod") == 0;
    tiers use;
    use.neon = hw.neon && strcmp(off, "neon") != 0;
    use.dotprod = use.neon && hw.dotprod && !dotprod_off;
    use.i8mm = use.dotprod && hw.i8mm && strcmp(off, "i8mm") != 0;
    use.sme = use.i8mm && hw.sme && strcmp(off, "sme") != 0;
    use.sve = use.neon && hw.sve && !dotprod_switch && strcmp(off, "sve") != 0;
    use.svei8mm = use.sve && use.i8mm && hw.svei8mm && strcmp(off, "svei8mm") != 0;
    feature_names(use);

    const struct {
        const char *name;
        int built, usable;
        size_t n;
    } forcible[] = {
        {SDOT, dotprod_built, use.dotprod, 21},
        {GEMV_SDOT, dotprod_built, use.dotprod, 1},
        {SMMLA, i8mm_built, use.i8mm, 21},
        {SVE_SDOT, sve_built, use.sve, 21},
        {GEMV_SVE, sve_built, use.sve, 1},
        {SVE_SMMLA, sve_i8mm_built, use.svei8mm, 21},
        {SME, sme_built, use.sme && sme_fits(use), 21},
    };
    if (mode->forced == NULL) {
        registry(use);
        selection(use);
    }
    for (size_t i = 0; mode->forced != NULL && i < sizeof forcible / sizeof forcible[0]; i++)
        if (strcmp(mode->forced, forcible[i].name) == 0)
            forced(forcible[i].name, forcible[i].built, forcible[i].usable, forcible[i].n);
    return test_finish("test_arm64_select", checks);
}
