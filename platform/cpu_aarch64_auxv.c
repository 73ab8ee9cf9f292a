/*
 * arm64 CPU features where the kernel hands them to the process in the
 * auxiliary vector (Linux, Android): cpu_features reads them, but for SME,
 * which cpu_features 0.7 does not know and getauxval(AT_HWCAP2) gives
 * directly. Other systems: cpu_aarch64_apple.c, cpu_aarch64_baseline.c
 * (cmake/qmm_arch.cmake chooses).
 */
#include "cpu.h"

#include <sys/auxv.h>

#include "cpuinfo_aarch64.h"

/* Linux's uapi values, for C libraries whose headers predate SME. */
#ifndef HWCAP2_SME
#define HWCAP2_SME (1UL << 23)
#endif
#ifndef HWCAP2_SME_I8I32
#define HWCAP2_SME_I8I32 (1UL << 26)
#endif

/* Flags are signed 1-bit fields in cpu_features: a present feature reads -1. */
unsigned qmm_cpu_detect_hardware(void)
{
    const Aarch64Info info = GetAarch64Info();
    unsigned f = 0;
    if (info.features.asimd != 0)
        f |= QMM_CPU_NEON;
    if (info.features.asimddp != 0)
        f |= QMM_CPU_DOTPROD;
    if (info.features.i8mm != 0)
        f |= QMM_CPU_I8MM;
    if (info.features.sve != 0)
        f |= QMM_CPU_SVE;
    if (info.features.svei8mm != 0)
        f |= QMM_CPU_SVE_I8MM;
    const unsigned long sme = HWCAP2_SME | HWCAP2_SME_I8I32;
    if ((getauxval(AT_HWCAP2) & sme) == sme)
        f |= QMM_CPU_SME;
    return f;
}

/* No feature here needs the OS's leave beyond what detection saw. */
unsigned qmm_cpu_os_grants(unsigned wanted)
{
    return wanted;
}

/*
 * Keep cpu_features quiet. Debian's libcpu_features.a (0.7.0) is built without
 * NDEBUG, and its hwcaps.c prints "Parsing /proc/self/auxv ..." to stdout
 * whenever getauxval(AT_HWCAP2) is 0, which is the case on every arm64 CPU
 * without HWCAP2 bits (Cortex-A53/A72/A76 boards, QEMU's named CPUs). A library
 * must not write on its user's stdout, so this file defines the two hwcaps.c
 * functions that cpu_features' aarch64 code calls. They live in the same
 * object as qmm_cpu_detect_hardware(), so whenever the linker takes this
 * object it has them already and never pulls hwcaps.c.o out of the archive.
 * Same semantics, without the fallback read of /proc/self/auxv (getauxval has
 * been in glibc since 2.16) and without the print. The test
 * test_no_stdout_on_a53 fails if the print ever comes back.
 */
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    unsigned long hwcaps;
    unsigned long hwcaps2;
} HardwareCapabilities;

HardwareCapabilities CpuFeatures_GetHardwareCapabilities(void);
bool CpuFeatures_IsHwCapsSet(const HardwareCapabilities mask, const HardwareCapabilities caps);

HardwareCapabilities CpuFeatures_GetHardwareCapabilities(void)
{
    HardwareCapabilities caps = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2)};
    return caps;
}

/* cpu_features compares the low 32 bits only; so does this. */
static bool all_set(uint32_t mask, uint32_t value)
{
    return mask != 0 && (value & mask) == mask;
}

bool CpuFeatures_IsHwCapsSet(const HardwareCapabilities mask, const HardwareCapabilities caps)
{
    return all_set(mask.hwcaps, caps.hwcaps) || all_set(mask.hwcaps2, caps.hwcaps2);
}
