/*
 * arm64 CPU features on a system that tells a process neither through
 * getauxval (Linux, Android: cpu_aarch64_auxv.c) nor through sysctlbyname
 * (Apple: cpu_aarch64_apple.c). The ID registers are readable in user mode
 * only where the kernel emulates the read, and a guess from the CPU's name or
 * the build's flags could run an instruction the CPU lacks: the NEON baseline
 * only, which every CPU that runs the standard arm64 ABI has (floating-point
 * values travel in its registers), said under QMM_VERBOSE.
 */
#include "cpu.h"

#include "log.h"

unsigned qmm_cpu_detect_hardware(void)
{
    qmm_log("cpu: this system tells arm64 features neither through getauxval nor "
            "through sysctlbyname: NEON only (dotprod, i8mm and sme taken as absent)");
    return QMM_CPU_NEON;
}

unsigned qmm_cpu_os_grants(unsigned wanted)
{
    return wanted;
}
