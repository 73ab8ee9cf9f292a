/*
 * The tier rule of platform/cpu.c on hardware no machine here has: this
 * program is built from platform/cpu.c and platform/log.c alone, with the two
 * per-architecture functions defined below, so that each case chooses what
 * the "hardware" reports and what the "OS" grants. A VM reporting AMX
 * without AVX-512 VNNI, or i8mm without dotprod, is such a case. One child
 * per case, as the library detects once per process.
 *
 * The rule, stated here apart from the library's table: x86 avx2 < avx512vnni
 * < amx and arm64 neon < dotprod < i8mm < sme and neon < sve, with svei8mm
 * above both sve and i8mm; fma in no chain; a feature is in effect only when
 * every tier below it is, and the OS is asked only about features in effect so
 * far. QMM_DOTPROD_DISABLE=1 switches off dotprod and sve. A feature left
 * without a tier below names, under QMM_VERBOSE, the first missing one in the
 * order of the names (i8mm before sve). Each case spells out its expected
 * features.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/cpu.h"
#include "qmm/qmm.h"
#include "support/feature_said.h"
#include "support/stderr_capture.h"

enum {
    AVX2 = QMM_CPU_AVX2,
    FMA = QMM_CPU_FMA,
    VNNI = QMM_CPU_AVX512VNNI,
    AMX = QMM_CPU_AMX,
    NEON = QMM_CPU_NEON,
    DOT = QMM_CPU_DOTPROD,
    I8MM = QMM_CPU_I8MM,
    SME = QMM_CPU_SME,
    SVE = QMM_CPU_SVE,
    SVEI8MM = QMM_CPU_SVE_I8MM,
    X86 = AVX2 | FMA | VNNI | AMX,
    ARM = NEON | DOT | I8MM | SVE | SVEI8MM | SME,
};

/* What the fake hardware reports and the fake OS refuses, and what the
 * library asked the OS about. */
static unsigned hardware, refused, asked;

unsigned qmm_cpu_detect_hardware(void)
{
    return hardware;
}

unsigned qmm_cpu_os_grants(unsigned wanted)
{
    asked = wanted;
    return wanted & ~refused;
}

static const struct tier_case {
    const char *what;
    unsigned hardware;
    const char *disable;  /* QMM_DISABLE, NULL for unset */
    const char *dotprod;  /* QMM_DOTPROD_DISABLE, NULL for unset */
    unsigned refused;
    unsigned asked, in_effect;
    /* One feature's QMM_VERBOSE line, NULL for none checked. */
    const char *feature, *said;
} cases[] = {
    {"x86, everything", X86, NULL, NULL, 0, X86, X86, "amx", "present"},
    {"avx2 off", X86, "avx2", NULL, 0, FMA, FMA, "avx512vnni",
     "present, not in effect: needs avx2 (disabled by environment)"},
    {"avx2 off, amx's line", X86, "avx2", NULL, 0, FMA, FMA, "amx",
     "present, not in effect: needs avx512vnni (not in effect)"},
    {"avx512vnni off", X86, "avx512vnni", NULL, 0, AVX2 | FMA, AVX2 | FMA, "amx",
     "present, not in effect: needs avx512vnni (disabled by environment)"},
    {"amx off", X86, "amx", NULL, 0, AVX2 | FMA | VNNI, AVX2 | FMA | VNNI, "amx",
     "disabled by environment"},
    {"fma off: in no chain", X86, "fma", NULL, 0, AVX2 | VNNI | AMX, AVX2 | VNNI | AMX, "fma",
     "disabled by environment"},
    {"a VM with AMX, no AVX-512", AVX2 | FMA | AMX, NULL, NULL, 0, AVX2 | FMA, AVX2 | FMA, "amx",
     "present, not in effect: needs avx512vnni (absent)"},
    {"a VM with AVX-512 VNNI and AMX, no AVX2", FMA | VNNI | AMX, NULL, NULL, 0, FMA, FMA,
     "avx512vnni", "present, not in effect: needs avx2 (absent)"},
    {"amx refused by the OS", X86, NULL, NULL, AMX, X86, AVX2 | FMA | VNNI, "amx",
     "present, not in effect: refused by the OS (said above)"},
    {"a refusal takes the tiers above", X86, NULL, NULL, AVX2, X86, FMA, "avx512vnni",
     "present, not in effect: needs avx2 (not in effect)"},
    {"arm64, everything", ARM, NULL, NULL, 0, ARM, ARM, "i8mm", "present"},
    {"arm64, everything: sme's line", ARM, NULL, NULL, 0, ARM, ARM, "sme", "present"},
    {"arm64, everything: svei8mm's line", ARM, NULL, NULL, 0, ARM, ARM, "svei8mm", "present"},
    {"sme off", ARM, "sme", NULL, 0, ARM & ~SME, ARM & ~SME, "sme", "disabled by environment"},
    {"i8mm off takes sme", ARM, "i8mm", NULL, 0, NEON | DOT | SVE, NEON | DOT | SVE, "sme",
     "present, not in effect: needs i8mm (disabled by environment)"},
    {"i8mm off takes svei8mm, sve stays", ARM, "i8mm", NULL, 0, NEON | DOT | SVE,
     NEON | DOT | SVE, "svei8mm",
     "present, not in effect: needs i8mm (disabled by environment)"},
    {"QMM_DOTPROD_DISABLE=1 takes sme", ARM, NULL, "1", 0, NEON, NEON, "sme",
     "present, not in effect: needs i8mm (not in effect)"},
    {"sme without i8mm", NEON | DOT | SME, NULL, NULL, 0, NEON | DOT, NEON | DOT, "sme",
     "present, not in effect: needs i8mm (absent)"},
    {"dotprod off", ARM, "dotprod", NULL, 0, NEON | SVE, NEON | SVE, "i8mm",
     "present, not in effect: needs dotprod (disabled by environment)"},
    {"dotprod off takes svei8mm, sve stays", ARM, "dotprod", NULL, 0, NEON | SVE, NEON | SVE,
     "svei8mm", "present, not in effect: needs i8mm (not in effect)"},
    {"QMM_DOTPROD_DISABLE=1", ARM, NULL, "1", 0, NEON, NEON, "i8mm",
     "present, not in effect: needs dotprod (disabled by environment)"},
    {"QMM_DOTPROD_DISABLE=1 takes sve", ARM, NULL, "1", 0, NEON, NEON, "sve",
     "disabled by environment"},
    {"QMM_DOTPROD_DISABLE=1 takes svei8mm", ARM, NULL, "1", 0, NEON, NEON, "svei8mm",
     "present, not in effect: needs i8mm (not in effect)"},
    {"QMM_DOTPROD_DISABLE=0 keeps sve", ARM, NULL, "0", 0, ARM, ARM, "sve", "present"},
    {"i8mm off", ARM, "i8mm", NULL, 0, NEON | DOT | SVE, NEON | DOT | SVE, "dotprod",
     "present"},
    {"sve off takes svei8mm only", ARM, "sve", NULL, 0, NEON | DOT | I8MM | SME,
     NEON | DOT | I8MM | SME, "svei8mm",
     "present, not in effect: needs sve (disabled by environment)"},
    {"sve off: sve's line", ARM, "sve", NULL, 0, NEON | DOT | I8MM | SME,
     NEON | DOT | I8MM | SME, "sve", "disabled by environment"},
    {"sve off: i8mm stays", ARM, "SVE", NULL, 0, NEON | DOT | I8MM | SME,
     NEON | DOT | I8MM | SME, "i8mm", "present"},
    {"svei8mm off alone", ARM, "svei8mm", NULL, 0, ARM & ~SVEI8MM, ARM & ~SVEI8MM, "svei8mm",
     "disabled by environment"},
    {"svei8mm off alone: sve stays", ARM, "svei8mm", NULL, 0, ARM & ~SVEI8MM, ARM & ~SVEI8MM,
     "sve", "present"},
    {"sve refused by the OS takes svei8mm", ARM, NULL, NULL, SVE, ARM, NEON | DOT | I8MM | SME,
     "svei8mm", "present, not in effect: needs sve (not in effect)"},
    {"A64FX: sve without dotprod", NEON | SVE, NULL, NULL, 0, NEON | SVE, NEON | SVE, "sve",
     "present"},
    {"A64FX: no svei8mm", NEON | SVE, NULL, NULL, 0, NEON | SVE, NEON | SVE, "svei8mm",
     "absent"},
    {"A64FX, QMM_DOTPROD_DISABLE=1", NEON | SVE, NULL, "1", 0, NEON, NEON, "sve",
     "disabled by environment"},
    {"svei8mm without i8mm", NEON | DOT | SVE | SVEI8MM, NULL, NULL, 0, NEON | DOT | SVE,
     NEON | DOT | SVE, "svei8mm", "present, not in effect: needs i8mm (absent)"},
    {"svei8mm without i8mm or dotprod", NEON | SVE | SVEI8MM, NULL, NULL, 0, NEON | SVE,
     NEON | SVE, "svei8mm", "present, not in effect: needs i8mm (absent)"},
    {"svei8mm without sve", NEON | DOT | I8MM | SVEI8MM, NULL, NULL, 0, NEON | DOT | I8MM,
     NEON | DOT | I8MM, "svei8mm", "present, not in effect: needs sve (absent)"},
    {"svei8mm with neither: i8mm named first", NEON | SVEI8MM, NULL, NULL, 0, NEON, NEON,
     "svei8mm", "present, not in effect: needs i8mm (absent)"},
    {"sve and svei8mm without neon", SVE | SVEI8MM | DOT | I8MM, NULL, NULL, 0, 0, 0, "sve",
     "present, not in effect: needs neon (absent)"},
    {"neon off", ARM, "neon", NULL, 0, 0, 0, "dotprod",
     "present, not in effect: needs neon (disabled by environment)"},
    {"i8mm without dotprod", NEON | I8MM, NULL, NULL, 0, NEON, NEON, "i8mm",
     "present, not in effect: needs dotprod (absent)"},
    {"dotprod and i8mm without neon", DOT | I8MM, NULL, NULL, 0, 0, 0, "i8mm",
     "present, not in effect: needs dotprod (not in effect)"},
    {"x86 names on arm64", ARM, "avx2,avx512vnni", NULL, 0, ARM, ARM, "avx2", "absent"},
};

static void features_in_effect(void *out)
{
    *(unsigned *)out = qmm_cpu_features();
}

/* In the child: detect under the case's environment, stderr in a file. */
static int run_case(const struct tier_case *c)
{
    hardware = c->hardware;
    refused = c->refused;
    unsetenv("QMM_DISABLE");
    unsetenv("QMM_DOTPROD_DISABLE");
    if (c->disable != NULL)
        setenv("QMM_DISABLE", c->disable, 1);
    if (c->dotprod != NULL)
        setenv("QMM_DOTPROD_DISABLE", c->dotprod, 1);
    setenv("QMM_VERBOSE", "1", 1);
    unsigned got;
    char text[4096];
    if (test_stderr_of(features_in_effect, &got, text, sizeof text) != 0)
        return 2;
    int bad = 0;
    if (got != c->in_effect) {
        fprintf(stderr, "%s: in effect 0x%x, expected 0x%x\n", c->what, got, c->in_effect);
        bad++;
    }
    /* The public names are the features in effect, in the table's order. */
    char want[128];
    qmm_cpu_feature_list(c->in_effect, want, sizeof want);
    if (strcmp(qmm_cpu_feature_names(), want) != 0) {
        fprintf(stderr, "%s: qmm_cpu_feature_names() is \"%s\", expected \"%s\"\n", c->what,
                qmm_cpu_feature_names(), want);
        bad++;
    }
    if (asked != c->asked) {
        fprintf(stderr, "%s: the OS was asked about 0x%x, expected 0x%x\n", c->what, asked,
                c->asked);
        bad++;
    }
    if (c->feature != NULL && !test_feature_said(text, c->feature, c->said)) {
        fprintf(stderr, "%s: the line of %s should say \"%s\":\n%s", c->what, c->feature,
                c->said, text);
        bad++;
    }
    return bad != 0;
}

int main(void)
{
    const size_t n = sizeof cases / sizeof cases[0];
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        fflush(stdout);
        fflush(stderr);
        const pid_t pid = fork();
        if (pid == 0)
            _exit(run_case(&cases[i]));
        int status = 0;
        const int ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                       WEXITSTATUS(status) == 0;
        printf("%-44s %s\n", cases[i].what, ok ? "ok" : "FAILED");
        failed += !ok;
    }
    printf("test_cpu_tiers: %zu cases, %zu failed\n", n, failed);
    return failed != 0;
}
