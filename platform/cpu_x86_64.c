#define _DEFAULT_SOURCE /* syscall */
#include "cpu.h"

#include <cpuid.h>

#include "cpuinfo_x86.h"
#include "log.h"

#if defined(__linux__)
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Palette 1 (8 tiles of 16 rows x 64 bytes) must exist: some VMs advertise
 * AMX in CPUID leaf 7 without leaf 0x1D's palette, and ldtilecfg then faults.
 * Leaf 0x1D sub-leaf 0, EAX: the highest palette. */
static int has_tile_palette_1(void)
{
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, NULL) < 0x1d)
        return 0;
    __cpuid_count(0x1d, 0, eax, ebx, ecx, edx);
    return eax >= 1;
}

/* cpu_features checks XCR0 as well as CPUID, so avx2 here means the OS saves
 * YMM state and AVX2 code can run, the avx512 flags that it saves ZMM and
 * mask registers too, and the amx flags that it manages tile state. Its
 * flags are signed 1-bit fields: a present feature reads -1, hence the != 0. */
unsigned qmm_cpu_detect_hardware(void)
{
    const X86Info info = GetX86Info();
    unsigned f = 0;
    if (info.features.avx2 != 0)
        f |= QMM_CPU_AVX2;
    if (info.features.fma3 != 0)
        f |= QMM_CPU_FMA;
    if (info.features.avx512f != 0 && info.features.avx512bw != 0 &&
        info.features.avx512vl != 0 && info.features.avx512vnni != 0)
        f |= QMM_CPU_AVX512VNNI;
    if (info.features.amx_tile != 0 && info.features.amx_int8 != 0 && has_tile_palette_1())
        f |= QMM_CPU_AMX;
    return f;
}

/* Linux (5.16 and later) hands out the 8 KB of tile data per process on
 * request; until then the first tile instruction raises SIGILL. The
 * permission is inherited by fork and cleared by exec. */
enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };

unsigned qmm_cpu_os_grants(unsigned wanted)
{
    if (!(wanted & QMM_CPU_AMX))
        return wanted;
#if defined(__linux__)
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0)
        return wanted;
    qmm_log("amx: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) failed: %s "
            "(Linux grants tile data from 5.16 on; a seccomp filter may forbid it)",
            strerror(errno));
#else
    qmm_log("amx: no way known to ask this OS for tile data: left unused");
#endif
    return wanted & ~QMM_CPU_AMX;
}
