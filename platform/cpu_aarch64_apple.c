/*
 * arm64 CPU features on Apple's systems (macOS, iOS), which have no
 * getauxval: sysctlbyname's hw.optional.arm.* keys, one per feature, as
 * Apple's "Determining instruction set characteristics" lists them (macOS 12
 * and iOS 15 on). Every feature comes from here rather than from
 * cpu_features: cpu_features reads DotProd and I8MM on Apple from its 0.9
 * release on and never SME, Debian's 0.7 has no Apple code at all, and a
 * cpu_features built for iOS is one more thing for a user to cross-build.
 * Without it the library needs nothing but the system's C library on Apple.
 *
 * NEON needs no key: Apple's arm64 ABI passes floating-point values in the
 * SIMD registers, so every arm64 Apple CPU has it. A key the system does not
 * know (older than macOS 12 / iOS 15) counts as an absent feature, said once
 * under QMM_VERBOSE: the NEON kernels then run.
 */
#include "cpu.h"

#include <stddef.h>
#include <sys/sysctl.h>

#include "log.h"

/* A feature is present when each of its keys reads nonzero: SME's int8 outer
 * products into int32 (SMOPA) have a key of their own beside FEAT_SME. */
static const struct apple_key {
    const char *name;
    unsigned bit;
} apple_keys[] = {
    {"hw.optional.arm.FEAT_DotProd", QMM_CPU_DOTPROD},
    {"hw.optional.arm.FEAT_I8MM", QMM_CPU_I8MM},
    {"hw.optional.arm.FEAT_SME", QMM_CPU_SME},
    {"hw.optional.arm.SME_I8I32", QMM_CPU_SME},
};

unsigned qmm_cpu_detect_hardware(void)
{
    unsigned named = 0, missing = 0;
    const char *unknown = NULL;
    for (size_t i = 0; i < sizeof apple_keys / sizeof apple_keys[0]; i++) {
        const struct apple_key *key = &apple_keys[i];
        int value = 0;
        size_t size = sizeof value;
        named |= key->bit;
        if (sysctlbyname(key->name, &value, &size, NULL, 0) != 0) {
            if (unknown == NULL)
                unknown = key->name;
            missing |= key->bit;
        } else if (value == 0) {
            missing |= key->bit;
        }
    }
    if (unknown != NULL)
        qmm_log("cpu: sysctl key %s unknown to this system (macOS 12 and iOS 15 on "
                "know them): a feature whose key is unknown is taken as absent", unknown);
    return QMM_CPU_NEON | (named & ~missing);
}

/* No feature here needs the OS's leave beyond what detection saw. */
unsigned qmm_cpu_os_grants(unsigned wanted)
{
    return wanted;
}
