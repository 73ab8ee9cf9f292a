/*
 * platform/cpu_aarch64_baseline.c, the arm64 detection of a system with
 * neither getauxval nor sysctlbyname, built here on any machine: NEON alone,
 * and the reason said under QMM_VERBOSE (nothing said without it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/cpu.h"
#include "support/stderr_capture.h"

static void detect(void *out)
{
    *(unsigned *)out = qmm_cpu_detect_hardware();
}

int main(int argc, char **argv)
{
    const int verbose = argc > 1 && strcmp(argv[1], "verbose") == 0;
    if (verbose)
        setenv("QMM_VERBOSE", "1", 1);
    else
        unsetenv("QMM_VERBOSE");
    char said[1024];
    unsigned got = 0;
    if (test_stderr_of(detect, &got, said, sizeof said) != 0) {
        perror("test_cpu_baseline: stderr to a file");
        return 1;
    }
    int bad = 0;
    if (got != QMM_CPU_NEON) {
        fprintf(stderr, "features 0x%x, expected NEON alone (0x%x)\n", got, QMM_CPU_NEON);
        bad++;
    }
    const char *want = "neither through getauxval nor through sysctlbyname: NEON only";
    if (verbose ? strstr(said, want) == NULL : said[0] != '\0') {
        fprintf(stderr, "stderr \"%s\", expected %s\n", said,
                verbose ? "the reason" : "nothing without QMM_VERBOSE");
        bad++;
    }
    printf("test_cpu_baseline%s: %s\n", verbose ? " verbose" : "", bad ? "FAILED" : "ok");
    return bad != 0;
}
