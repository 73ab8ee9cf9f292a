/*
 * The environment controls, valid and invalid values. Each mode is its own
 * process (the library reads its environment once): `test_env <mode>` sets
 * the variables, then checks what the library does with them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/cpu.h"
#include "dispatch/registry.h"
#include "support/testlib.h"

static long checks;

/* The int8 tiers, each with every tier it stands on, as docs/kernels.md states
 * them: x86 avx2 < avx512vnni < amx, arm64 neon < dotprod < i8mm < sme and
 * neon < sve, svei8mm on both sve and i8mm; a tier is in effect only when all
 * of those below it are. Written here, apart from the library's table, so that
 * a wrong table cannot agree with itself; a tier comes after those it stands
 * on, so one pass settles it. */
static const struct {
    unsigned tier, below;
} tiers[] = {
    {QMM_CPU_AVX512VNNI, QMM_CPU_AVX2},
    {QMM_CPU_AMX, QMM_CPU_AVX512VNNI},
    {QMM_CPU_DOTPROD, QMM_CPU_NEON},
    {QMM_CPU_I8MM, QMM_CPU_DOTPROD},
    {QMM_CPU_SME, QMM_CPU_I8MM},
    {QMM_CPU_SVE, QMM_CPU_NEON},
    {QMM_CPU_SVE_I8MM, QMM_CPU_SVE | QMM_CPU_I8MM},
};

/* The hardware's features less those switched off, and every tier that
 * stands on one missing. */
static unsigned expected_features(unsigned hw, unsigned off)
{
    unsigned f = hw & ~off;
    for (size_t t = 0; t < sizeof tiers / sizeof tiers[0]; t++)
        if ((f & tiers[t].below) != tiers[t].below)
            f &= ~tiers[t].tier;
    return f;
}

/* Features qmm uses, as the environment leaves them, against the hardware. */
static void expect_features(unsigned off, const char *why)
{
    unsigned hw = qmm_cpu_detect_hardware(), got = qmm_cpu_features();
    unsigned want = expected_features(hw, off);
    CHECK(got == want, "%s: features 0x%x, hardware 0x%x, expected 0x%x", why, got, hw, want);
    for (size_t i = 0; i < qmm_registry_count(); i++) {
        const qmm_kernel *k = qmm_registry_at(i);
        CHECK(qmm_kernel_at(i)->supported_here == (k->is_supported_here() != 0),
              "%s: %s listed inconsistently", why, k->name);
    }
    printf("%s: hardware 0x%x, in effect 0x%x\n", why, hw, got);
    checks++;
}

static unsigned bits(const char *list)
{
    unsigned b;
    char unknown[32];
    qmm_cpu_parse_feature_list(list, &b, unknown, sizeof unknown);
    return b;
}

static void disable_list(void)
{
    setenv("QMM_DISABLE", "avx2,fma", 1);
    expect_features(QMM_CPU_AVX2 | QMM_CPU_FMA, "QMM_DISABLE=avx2,fma");
}

static void disable_messy(void)
{
    /* Spaces, empty entries, case, and names that mean nothing. */
    setenv("QMM_DISABLE", " DotProd , bogus,,AVX2,", 1);
    expect_features(QMM_CPU_DOTPROD | QMM_CPU_AVX2, "QMM_DISABLE with junk");
    char unknown[32] = "";
    unsigned b;
    CHECK(qmm_cpu_parse_feature_list("neon,what,ever", &b, unknown, sizeof unknown) == 2 &&
              b == QMM_CPU_NEON && strcmp(unknown, "what") == 0,
          "parse: unknown names not reported");
    CHECK(bits("") == 0 && bits(",, ,") == 0 && bits("i8mm") == QMM_CPU_I8MM &&
              bits(" Amx ") == QMM_CPU_AMX && bits("SVE") == QMM_CPU_SVE &&
              bits("svei8mm,sve") == (QMM_CPU_SVE_I8MM | QMM_CPU_SVE),
          "parse: edge cases");
    checks++;
}

static void dotprod_disable_invalid(void)
{
    setenv("QMM_DOTPROD_DISABLE", "yes", 1);
    expect_features(0, "QMM_DOTPROD_DISABLE=yes (ignored)");
}

static void kernel_unknown(void)
{
    setenv("QMM_KERNEL", "no_such_kernel", 1);
    int8_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
    int32_t c[4] = {7, 7, 7, 7};
    qmm_plan *plan = NULL;
    CHECK(qmm_i8_i32(2, 2, 2, a, 2, b, 2, c, 2) == QMM_ERR_UNKNOWN_KERNEL, "one-shot call");
    CHECK(c[0] == 7 && c[3] == 7, "refused call wrote C");
    CHECK(qmm_plan_create(&plan, 2, 2, 2) == QMM_ERR_UNKNOWN_KERNEL && plan == NULL,
          "plan with an unknown QMM_KERNEL");
    checks++;
}

/* Every kernel forced in turn would need a process each; forcing the GEMV
 * kernel for matrix products is the interesting one: it is never chosen for
 * n > 1 otherwise, and must still be exact. */
static void kernel_forced_gemv(void)
{
    const qmm_kernel *gemv = NULL;
    for (size_t i = 0; i < qmm_registry_count(); i++)
        if (qmm_registry_at(i)->nr == 1 && qmm_registry_at(i)->is_supported_here())
            gemv = qmm_registry_at(i);
    CHECK(gemv != NULL, "no supported GEMV kernel");
    if (gemv == NULL)
        return;
    setenv("QMM_KERNEL", gemv->name, 1);
    qmm_plan *plan;
    CHECK(qmm_plan_create(&plan, 9, QMM_SYMBOLIC, 11) == QMM_OK, "plan");
    CHECK(strcmp(qmm_plan_kernel_name(plan, 1), gemv->name) == 0 &&
              strcmp(qmm_plan_kernel_name(plan, 5), gemv->name) == 0,
          "QMM_KERNEL not used for every role");
    test_matrix a = test_matrix_new(9, 11, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(11, 5, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(9, 5, 4, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    int32_t ref[45];
    test_reference(&a, &b, ref);
    CHECK(qmm_plan_pack_a(plan, a.base, 11) == QMM_OK &&
              qmm_plan_run(plan, 5, b.base, 5, c.base, 5) == QMM_OK,
          "forced run");
    test_compare("forced GEMV kernel, n=5", &c, ref);
    /* Read once: changing the variable now changes nothing. */
    setenv("QMM_KERNEL", "no_such_kernel", 1);
    CHECK(qmm_i8_i32(9, 5, 11, a.base, 11, b.base, 5, c.base, 5) == QMM_OK,
          "QMM_KERNEL was read again after the first use");
    qmm_plan_destroy(plan);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
    checks++;
}

/* Calls that have something to say: a symbolic plan and a refused call. */
static void talkative_calls(void)
{
    int8_t a[64] = {1}, b[64] = {2};
    int32_t c[64];
    qmm_plan *plan;
    if (qmm_plan_create(&plan, 8, QMM_SYMBOLIC, 8) == QMM_OK)
        qmm_plan_destroy(plan);
    qmm_i8_i32(8, 8, 8, a, 7, b, 8, c, 8);
}

/* Runs talkative_calls with stderr in a file; returns what was written. */
static char *stderr_of_calls(void)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *f = tmpfile();
    if (saved < 0 || f == NULL || dup2(fileno(f), STDERR_FILENO) < 0)
        abort();
    talkative_calls();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    struct stat st;
    fstat(fileno(f), &st);
    char *text = calloc((size_t)st.st_size + 1, 1);
    rewind(f);
    if (text == NULL || fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        abort();
    fclose(f);
    return text;
}

/* QMM_DISABLE=amx: the tier off, said so under QMM_VERBOSE (absent where the
 * CPU has no AMX), and never asked of the OS: the permission request logs a
 * line only when it fails, but a disabled feature must not get that far
 * (test/x86_64/test_amx_permission counts the requests themselves). */
static void disable_amx(void)
{
    setenv("QMM_DISABLE", "amx", 1);
    setenv("QMM_VERBOSE", "1", 1);
    char *text = stderr_of_calls();
    const int amx = (qmm_cpu_detect_hardware() & QMM_CPU_AMX) != 0;
    CHECK(test_feature_said(text, "amx", amx ? "disabled by environment" : "absent") &&
              strstr(text, "ARCH_REQ_XCOMP_PERM") == NULL,
          "QMM_DISABLE=amx, QMM_VERBOSE=1 said:\n%s", text);
    free(text);
    checks++;
    expect_features(QMM_CPU_AMX, "QMM_DISABLE=amx");
}

static void expect_said(const char *text, const char *name, const char *state)
{
    CHECK(test_feature_said(text, name, state), "the line of %s does not say \"%s\":\n%s",
          name, state, text);
    checks++;
}

/* The line of a feature of the hardware's `hw` whose tier below, `below`
 * (named so), is not in effect for the reason `why`: absent where the
 * hardware lacks the feature, else present but not in effect. */
static void expect_left_without(const char *text, unsigned hw, unsigned bit, const char *name,
                                const char *below, const char *why)
{
    char state[128];
    snprintf(state, sizeof state, "present, not in effect: needs %s (%s)", below, why);
    expect_said(text, name, hw & bit ? state : "absent");
}

/* QMM_DISABLE=list with QMM_VERBOSE=1: the features gone must be out of
 * effect, those that stay as the hardware has them; returns what the calls
 * said on stderr, and the hardware's features in *hw. */
static char *disable_verbosely(const char *list, unsigned gone, unsigned stays, unsigned *hw)
{
    setenv("QMM_DISABLE", list, 1);
    setenv("QMM_VERBOSE", "1", 1);
    char *text = stderr_of_calls();
    const unsigned got = qmm_cpu_features();
    *hw = qmm_cpu_detect_hardware();
    CHECK(!(got & gone) && (got & stays) == (*hw & stays),
          "QMM_DISABLE=%s: in effect 0x%x, hardware 0x%x: 0x%x must go, 0x%x stay", list, got,
          *hw, gone, stays);
    checks++;
    return text;
}

/* The lowest x86 tier off: the two above it go too, each line saying why,
 * and tile data is never asked for (test_amx_permission counts the requests
 * themselves); fma, in no chain, stays. */
static void disable_avx2(void)
{
    unsigned hw;
    char *text = disable_verbosely("avx2", QMM_CPU_AVX2 | QMM_CPU_AVX512VNNI | QMM_CPU_AMX,
                                   QMM_CPU_FMA, &hw);
    CHECK(strstr(text, "ARCH_REQ_XCOMP_PERM") == NULL, "tile data asked for:\n%s", text);
    checks++;
    expect_said(text, "avx2", hw & QMM_CPU_AVX2 ? "disabled by environment" : "absent");
    expect_left_without(text, hw, QMM_CPU_AVX512VNNI, "avx512vnni", "avx2",
                        hw & QMM_CPU_AVX2 ? "disabled by environment" : "absent");
    expect_left_without(text, hw, QMM_CPU_AMX, "amx", "avx512vnni",
                        hw & QMM_CPU_AVX512VNNI ? "not in effect" : "absent");
    free(text);
    expect_features(QMM_CPU_AVX2, "QMM_DISABLE=avx2");
}

/* The middle x86 tier off: AVX2 stays, AMX goes. */
static void disable_avx512vnni(void)
{
    unsigned hw;
    char *text = disable_verbosely("avx512vnni", QMM_CPU_AVX512VNNI | QMM_CPU_AMX, QMM_CPU_AVX2,
                                   &hw);
    expect_said(text, "avx2", hw & QMM_CPU_AVX2 ? "present" : "absent");
    expect_left_without(text, hw, QMM_CPU_AMX, "amx", "avx512vnni",
                        hw & QMM_CPU_AVX512VNNI ? "disabled by environment" : "absent");
    free(text);
    expect_features(QMM_CPU_AVX512VNNI, "QMM_DISABLE=avx512vnni");
}

/* The second arm64 tier off by QMM_DISABLE: NEON and sve stay, i8mm, svei8mm
 * and sme go (on QEMU's max, which has them all). */
static void disable_dotprod(void)
{
    unsigned hw;
    char *text = disable_verbosely(
        "dotprod", QMM_CPU_DOTPROD | QMM_CPU_I8MM | QMM_CPU_SVE_I8MM | QMM_CPU_SME,
        QMM_CPU_NEON | QMM_CPU_SVE, &hw);
    expect_left_without(text, hw, QMM_CPU_I8MM, "i8mm", "dotprod",
                        hw & QMM_CPU_DOTPROD ? "disabled by environment" : "absent");
    expect_left_without(text, hw, QMM_CPU_SME, "sme", "i8mm",
                        hw & QMM_CPU_I8MM ? "not in effect" : "absent");
    expect_left_without(text, hw, QMM_CPU_SVE_I8MM, "svei8mm", "i8mm",
                        hw & QMM_CPU_I8MM ? "not in effect" : "absent");
    free(text);
    expect_features(QMM_CPU_DOTPROD, "QMM_DISABLE=dotprod");
}

/* SVE off by QMM_DISABLE: svei8mm goes, saying why; dotprod, i8mm and sme,
 * on another chain, stay. */
static void disable_sve(void)
{
    unsigned hw;
    char *text = disable_verbosely("sve", QMM_CPU_SVE | QMM_CPU_SVE_I8MM,
                                   QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM | QMM_CPU_SME,
                                   &hw);
    expect_said(text, "sve", hw & QMM_CPU_SVE ? "disabled by environment" : "absent");
    /* Where i8mm is missing too, the line names it first. */
    const int i8mm = (hw & QMM_CPU_I8MM) && (qmm_cpu_features() & QMM_CPU_I8MM);
    expect_left_without(text, hw, QMM_CPU_SVE_I8MM, "svei8mm", i8mm ? "sve" : "i8mm",
                        !i8mm ? (hw & QMM_CPU_I8MM ? "not in effect" : "absent")
                        : hw & QMM_CPU_SVE ? "disabled by environment"
                                           : "absent");
    free(text);
    expect_features(QMM_CPU_SVE, "QMM_DISABLE=sve");
}

/* svei8mm alone off: every other tier stays as the hardware has it. */
static void disable_svei8mm(void)
{
    unsigned hw;
    char *text = disable_verbosely("svei8mm", QMM_CPU_SVE_I8MM,
                                   QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM | QMM_CPU_SVE |
                                       QMM_CPU_SME,
                                   &hw);
    expect_said(text, "svei8mm", hw & QMM_CPU_SVE_I8MM ? "disabled by environment" : "absent");
    expect_said(text, "sve", hw & QMM_CPU_SVE ? "present" : "absent");
    free(text);
    expect_features(QMM_CPU_SVE_I8MM, "QMM_DISABLE=svei8mm");
}

/* QMM_DOTPROD_DISABLE=1: dotprod and sve (SDOT both) off, and with them
 * i8mm, svei8mm and sme; NEON stays. */
static void dotprod_disable(void)
{
    setenv("QMM_DOTPROD_DISABLE", "1", 1);
    setenv("QMM_VERBOSE", "1", 1);
    char *text = stderr_of_calls();
    const unsigned hw = qmm_cpu_detect_hardware(), got = qmm_cpu_features();
    CHECK(!(got & (QMM_CPU_DOTPROD | QMM_CPU_I8MM | QMM_CPU_SME | QMM_CPU_SVE |
                   QMM_CPU_SVE_I8MM)) &&
              (got & QMM_CPU_NEON) == (hw & QMM_CPU_NEON),
          "QMM_DOTPROD_DISABLE=1: in effect 0x%x, hardware 0x%x: i8mm, sve, svei8mm and sme "
          "must go with dotprod, neon stay",
          got, hw);
    checks++;
    expect_said(text, "dotprod", hw & QMM_CPU_DOTPROD ? "disabled by environment" : "absent");
    expect_said(text, "sve", hw & QMM_CPU_SVE ? "disabled by environment" : "absent");
    expect_left_without(text, hw, QMM_CPU_SVE_I8MM, "svei8mm", "i8mm",
                        hw & QMM_CPU_I8MM ? "not in effect" : "absent");
    free(text);
    expect_features(QMM_CPU_DOTPROD | QMM_CPU_SVE, "QMM_DOTPROD_DISABLE=1");
}

static void verbose(void)
{
    setenv("QMM_VERBOSE", "1", 1);
    char *text = stderr_of_calls();
    static const char *const expected[] = {"cpu feature", "cpu feature amx",
                                           "select for m=8 n=symbolic",
                                           "GEMV role", "CHOSEN", "lost on role",
                                           "matrix (n > 1) role runs",
                                           "invalid argument: lda = 7"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        CHECK(strstr(text, expected[i]) != NULL, "QMM_VERBOSE=1 did not say \"%s\":\n%s",
              expected[i], text);
    free(text);
    checks++;
}

static void quiet(const char *value)
{
    if (value != NULL)
        setenv("QMM_VERBOSE", value, 1);
    else
        unsetenv("QMM_VERBOSE");
    char *text = stderr_of_calls();
    CHECK(text[0] == '\0', "QMM_VERBOSE=%s: the library wrote to stderr:\n%s",
          value ? value : "(unset)", text);
    free(text);
    checks++;
}

static void quiet_unset(void) { quiet(NULL); }
static void quiet_zero(void) { quiet("0"); }
static void quiet_junk(void) { quiet("yes"); }

static const test_mode modes[] = {
    {"disable-list", disable_list},
    {"disable-messy", disable_messy},
    {"disable-amx", disable_amx},
    {"disable-avx2", disable_avx2},
    {"disable-avx512vnni", disable_avx512vnni},
    {"disable-dotprod", disable_dotprod},
    {"disable-sve", disable_sve},
    {"disable-svei8mm", disable_svei8mm},
    {"dotprod-disable", dotprod_disable},
    {"dotprod-disable-invalid", dotprod_disable_invalid},
    {"kernel-unknown", kernel_unknown},
    {"kernel-forced-gemv", kernel_forced_gemv},
    {"verbose", verbose},
    {"quiet-unset", quiet_unset},
    {"quiet-zero", quiet_zero},
    {"quiet-junk", quiet_junk},
};

int main(int argc, char **argv)
{
    static const char *const vars[] = {"QMM_DISABLE", "QMM_DOTPROD_DISABLE", "QMM_KERNEL",
                                       "QMM_VERBOSE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    return test_mode_main(argc, argv, "test_env", modes, sizeof modes / sizeof modes[0], &checks);
}
