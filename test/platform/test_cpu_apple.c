/*
 * platform/cpu_aarch64_apple.c, Apple's arm64 CPU detection, built here on
 * any machine against a sysctlbyname of this test's (and a stand-in for
 * <sys/sysctl.h>, apple_sdk/), which answers as the Macs and iPhones of each
 * case would: the keys and values of Apple's "Determining instruction set
 * characteristics", as `sysctl hw.optional.arm` prints them on those
 * machines. What this cannot check: that Apple's kernel answers so, which
 * only an Apple machine can.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/cpu.h"
#include "support/stderr_capture.h"

enum { NEON = QMM_CPU_NEON, DOT = QMM_CPU_DOTPROD, I8MM = QMM_CPU_I8MM, SME = QMM_CPU_SME };

/* The system of one case: its keys (a NULL name ends them), each 0 or 1. */
typedef struct key_value {
    const char *name;
    int value;
} key_value;

static const struct apple_case {
    const char *what;
    key_value keys[8];
    unsigned features;
    const char *said;  /* part of the QMM_VERBOSE line expected, NULL for none */
} cases[] = {
    {"M1, macOS 12",
     {{"hw.optional.arm.FEAT_DotProd", 1}, {"hw.optional.arm.FEAT_I8MM", 0}},
     NEON | DOT, "sysctl key hw.optional.arm.FEAT_SME unknown"},
    {"M1, macOS 14",
     {{"hw.optional.arm.FEAT_DotProd", 1}, {"hw.optional.arm.FEAT_I8MM", 0},
      {"hw.optional.arm.FEAT_SME", 0}, {"hw.optional.arm.SME_I8I32", 0}},
     NEON | DOT, NULL},
    {"M2, macOS 14",
     {{"hw.optional.arm.FEAT_DotProd", 1}, {"hw.optional.arm.FEAT_I8MM", 1},
      {"hw.optional.arm.FEAT_SME", 0}, {"hw.optional.arm.SME_I8I32", 0}},
     NEON | DOT | I8MM, NULL},
    {"M4, macOS 15",
     {{"hw.optional.arm.FEAT_DotProd", 1}, {"hw.optional.arm.FEAT_I8MM", 1},
      {"hw.optional.arm.FEAT_SME", 1}, {"hw.optional.arm.SME_I8I32", 1},
      {"hw.optional.arm.FEAT_SME2", 1}, {"hw.optional.arm.sme_max_svl_b", 64}},
     NEON | DOT | I8MM | SME, NULL},
    {"SME without its int8 outer products",
     {{"hw.optional.arm.FEAT_DotProd", 1}, {"hw.optional.arm.FEAT_I8MM", 1},
      {"hw.optional.arm.FEAT_SME", 1}, {"hw.optional.arm.SME_I8I32", 0}},
     NEON | DOT | I8MM, NULL},
    {"macOS 11: no hw.optional.arm keys", {{"hw.optional.neon", 1}}, NEON,
     "sysctl key hw.optional.arm.FEAT_DotProd unknown"},
};

static const struct apple_case *current;
static int misused;  /* calls not made the way sysctlbyname(3) reads */

int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
    if (oldp == NULL || oldlenp == NULL || *oldlenp != sizeof(int) || newp != NULL ||
        newlen != 0) {
        misused++;
        errno = EINVAL;
        return -1;
    }
    for (const key_value *k = current->keys; k->name != NULL; k++)
        if (strcmp(k->name, name) == 0) {
            *(int *)oldp = k->value;
            *oldlenp = sizeof(int);
            return 0;
        }
    errno = ENOENT;
    return -1;
}

static void detect(void *out)
{
    *(unsigned *)out = qmm_cpu_detect_hardware();
}

/* Runs the detection for case c with stderr in a file; 0 if it answers as
 * expected. */
static int run_case(const struct apple_case *c)
{
    current = c;
    misused = 0;
    unsigned got;
    char text[2048];
    if (test_stderr_of(detect, &got, text, sizeof text) != 0)
        return 1;

    int bad = 0;
    if (got != c->features) {
        fprintf(stderr, "%s: features 0x%x, expected 0x%x\n", c->what, got, c->features);
        bad++;
    }
    if (misused != 0) {
        fprintf(stderr, "%s: %d sysctlbyname calls with arguments Apple's reads otherwise\n",
                c->what, misused);
        bad++;
    }
    if (c->said != NULL ? strstr(text, c->said) == NULL : text[0] != '\0') {
        fprintf(stderr, "%s: QMM_VERBOSE said \"%s\", expected %s%s\n", c->what, text,
                c->said != NULL ? "a line with " : "nothing", c->said != NULL ? c->said : "");
        bad++;
    }
    printf("%-40s %s\n", c->what, bad ? "FAILED" : "ok");
    return bad;
}

int main(void)
{
    setenv("QMM_VERBOSE", "1", 1);
    int failed = 0;
    const size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        failed += run_case(&cases[i]) != 0;
    printf("test_cpu_apple: %zu cases, %d failed\n", n, failed);
    return failed != 0;
}
