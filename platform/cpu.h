/*
 * CPU features that kernels depend on, as detected by cpu_features, narrowed
 * by the environment (QMM_DISABLE, QMM_DOTPROD_DISABLE) and by the tiers
 * (platform/cpu.c: a tier is in effect only when the one below it is), then
 * by what the OS grants. Read once per process.
 */
#ifndef QMM_CPU_H
#define QMM_CPU_H

#include <stddef.h>

enum qmm_cpu_feature {
    QMM_CPU_NEON = 1u << 0,     /* arm64 Advanced SIMD (asimd) */
    QMM_CPU_DOTPROD = 1u << 1,  /* arm64 FEAT_DotProd (asimddp): SDOT/UDOT */
    QMM_CPU_I8MM = 1u << 2,     /* arm64 FEAT_I8MM: SMMLA */
    QMM_CPU_AVX2 = 1u << 3,     /* x86 AVX2, with the OS saving YMM state */
    QMM_CPU_FMA = 1u << 4,      /* x86 FMA3 */
    QMM_CPU_AVX512VNNI = 1u << 5, /* x86 AVX-512 F, BW, VL and VNNI, with the OS saving ZMM state */
    QMM_CPU_AMX = 1u << 6,      /* x86 AMX-TILE and AMX-INT8, tile state in XCR0, palette 1 */
    QMM_CPU_SME = 1u << 7,      /* arm64 FEAT_SME with its int8 outer products into int32 (SMOPA) */
    QMM_CPU_SVE = 1u << 8,      /* arm64 FEAT_SVE: scalable vectors, SDOT per 32-bit lane */
    QMM_CPU_SVE_I8MM = 1u << 9, /* arm64 FEAT_I8MM on SVE (svei8mm): SMMLA per 128-bit segment */
};

/* Features this CPU has, before any override: one per architecture
 * (platform/cpu_<arch>.c). */
unsigned qmm_cpu_detect_hardware(void);

/* Of the features in `wanted` (detected, not disabled, their tiers below in
 * effect), those the OS lets this process use: a feature that needs its leave
 * before the first instruction (AMX's tile data on Linux) is asked for here,
 * once per process, and dropped, said under QMM_VERBOSE, when refused. One per
 * architecture. */
unsigned qmm_cpu_os_grants(unsigned wanted);

/* Nonzero when every feature in mask is in effect (qmm_cpu_features). */
int qmm_cpu_has(unsigned mask);

/* The features in effect: detected, minus those disabled, minus those whose
 * tier below is not in effect, minus those refused by the OS. */
unsigned qmm_cpu_features(void);

/* The instance this CPU runs, from a table of instances by preference (the
 * ISA-specific code of one job and its portable code last): a pointer to the
 * first entry whose `features` (an unsigned, as in qmm_kernel) are all in
 * effect, the last entry, which must need nothing, when no other's are. */
#define QMM_CPU_PICK(table)                                                             \
    (&(table)[qmm_cpu_pick_index(&(table)[0].features, sizeof(table)[0],              \
                                 sizeof(table) / sizeof(table)[0])])

/* QMM_CPU_PICK's index: of `count` entries `stride` bytes apart, features
 * pointing at the first one's. */
size_t qmm_cpu_pick_index(const unsigned *features, size_t stride, size_t count);

/* The vector length in bytes that scales a kernel's tile (dispatch/registry.c)
 * for feature QMM_CPU_SVE (the SVE vector length, cntb) or QMM_CPU_SME (the
 * streaming vector length, rdsvl), read from the CPU now; 0 when that feature
 * is not in effect, or for any other feature. The registry reads it once per
 * process: qmm assumes that no thread changes it (prctl PR_SVE_SET_VL,
 * PR_SME_SET_VL) after the first call. platform/vector_length.c. */
unsigned qmm_cpu_vector_bytes(unsigned feature);

/* The names of the features in bits, comma-separated, into buf; returns buf. */
const char *qmm_cpu_feature_list(unsigned bits, char *buf, size_t size);

/* Parse a QMM_DISABLE-style list ("avx2,dotprod"; any case, spaces allowed,
 * empty entries ignored) into feature bits. Returns the number of names it did not
 * know; the first one is copied to unknown (truncated to unknown_size). */
size_t qmm_cpu_parse_feature_list(const char *list, unsigned *bits,
                                  char *unknown, size_t unknown_size);

#endif
