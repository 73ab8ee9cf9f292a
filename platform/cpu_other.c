#include "cpu.h"

/* Architectures without SIMD kernels in qmm: only the portable kernels run. */
unsigned qmm_cpu_detect_hardware(void)
{
    return 0;
}

unsigned qmm_cpu_os_grants(unsigned wanted)
{
    return wanted;
}
