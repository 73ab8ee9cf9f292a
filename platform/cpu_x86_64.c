#include "cpu.h"

#include "cpuinfo_x86.h"

/* cpu_features checks XCR0 as well as CPUID, so avx2 here means the OS saves
 * YMM state and AVX2 code can run, and the avx512 flags that it saves ZMM and
 * mask registers too. Its flags are signed 1-bit fields: a present
 * feature reads -1, hence the != 0. */
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
    return f;
}
