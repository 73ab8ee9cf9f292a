#include "cpu.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "qmm/qmm.h"

/*
 * Every feature QMM_DISABLE can name, and the one it needs in effect. The int8
 * kernels form tiers, each chosen over the one below where both can run: x86
 * avx2 < avx512vnni < amx, arm64 neon < dotprod < i8mm < sme and neon < sve,
 * with svei8mm above both sve and i8mm (a tier may stand on several: every
 * one it needs must be in effect; A64FX has SVE without dotprod, Apple's M4
 * SME without SVE); fma stands alone. A tier is in effect only when the ones
 * below it are:
 *  - switching a tier off switches off what is built above it:
 *    QMM_DISABLE=avx2 leaves the portable kernels, QMM_DISABLE=sve takes
 *    svei8mm, QMM_DISABLE=dotprod takes i8mm, svei8mm and sme;
 *  - every CPU made with a tier has the ones below it, so a CPU or a VM that
 *    reports a tier without the one below misreports, and no kernel has run
 *    on such a mix: the upper tier is not used there;
 *  - the AVX-512 VNNI files' flags (-mavx512f) let the compiler use AVX2.
 * This table is the one place the tiers are stated: a kernel names its own
 * tier's feature alone (its .features in dispatch/kernel_list.h).
 */
static const struct feature {
    const char *name; /* as QMM_DISABLE spells it */
    unsigned bit;
    unsigned needs;   /* the tiers below, 0 for none */
} feature_table[] = {
    {"neon", QMM_CPU_NEON, 0},
    {"dotprod", QMM_CPU_DOTPROD, QMM_CPU_NEON},
    {"i8mm", QMM_CPU_I8MM, QMM_CPU_DOTPROD},
    {"sve", QMM_CPU_SVE, QMM_CPU_NEON},
    {"svei8mm", QMM_CPU_SVE_I8MM, QMM_CPU_SVE | QMM_CPU_I8MM},
    {"sme", QMM_CPU_SME, QMM_CPU_I8MM},
    {"avx2", QMM_CPU_AVX2, 0},
    {"fma", QMM_CPU_FMA, 0},
    {"avx512vnni", QMM_CPU_AVX512VNNI, QMM_CPU_AVX2},
    {"amx", QMM_CPU_AMX, QMM_CPU_AVX512VNNI},
};
enum { FEATURES = sizeof feature_table / sizeof feature_table[0] };

static unsigned features;
static char feature_names[96];  /* every name of the table fits */
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

/* Case-insensitive: QMM_DISABLE=AVX2 means what the user meant. */
static int same_name(const char *known, const char *name, size_t len)
{
    if (strlen(known) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (tolower((unsigned char)name[i]) != known[i])
            return 0;
    return 1;
}

static unsigned feature_bit(const char *name, size_t len)
{
    for (size_t i = 0; i < FEATURES; i++)
        if (same_name(feature_table[i].name, name, len))
            return feature_table[i].bit;
    return 0;
}

size_t qmm_cpu_parse_feature_list(const char *list, unsigned *bits,
                                  char *unknown, size_t unknown_size)
{
    size_t bad = 0;
    *bits = 0;
    while (*list != '\0') {
        while (*list == ',' || isspace((unsigned char)*list))
            list++;
        const char *start = list;
        while (*list != '\0' && *list != ',' && !isspace((unsigned char)*list))
            list++;
        size_t len = (size_t)(list - start);
        if (len == 0)
            continue;
        unsigned bit = feature_bit(start, len);
        if (bit != 0) {
            *bits |= bit;
        } else if (bad++ == 0 && unknown_size > 0) {
            size_t keep = len < unknown_size - 1 ? len : unknown_size - 1;
            memcpy(unknown, start, keep);
            unknown[keep] = '\0';
        }
    }
    return bad;
}

static unsigned disabled_by_environment(void)
{
    unsigned off = 0;
    const char *dot = getenv("QMM_DOTPROD_DISABLE");
    /* SVE's SDOT is a dot product too: the switch leaves the SMLAL-class
     * fallback alone, as it always has. */
    if (dot != NULL && strcmp(dot, "1") == 0)
        off |= QMM_CPU_DOTPROD | QMM_CPU_SVE;
    else if (dot != NULL && dot[0] != '\0' && strcmp(dot, "0") != 0)
        qmm_log("QMM_DOTPROD_DISABLE=\"%s\" ignored: expected 1 or 0", dot);

    const char *list = getenv("QMM_DISABLE");
    if (list != NULL) {
        unsigned bits;
        char unknown[64];
        size_t bad = qmm_cpu_parse_feature_list(list, &bits, unknown, sizeof unknown);
        if (bad != 0)
            qmm_log("QMM_DISABLE: %zu unknown feature name(s) ignored, first \"%s\"",
                    bad, unknown);
        off |= bits;
    }
    return off;
}

const char *qmm_cpu_feature_list(unsigned bits, char *buf, size_t size)
{
    size_t used = 0;
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < FEATURES; i++) {
        if (!(bits & feature_table[i].bit) || used >= size)
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
                         feature_table[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* Of `present`, the features whose tiers below are all in `present` too. A
 * pass drops those whose tier below is gone; the next, whatever the table's
 * order, those above them. */
static unsigned with_tiers_below(unsigned present)
{
    unsigned before;
    do {
        before = present;
        for (size_t i = 0; i < FEATURES; i++)
            if ((present & feature_table[i].needs) != feature_table[i].needs)
                present &= ~feature_table[i].bit;
    } while (present != before);
    return present;
}

/* Where a feature stands; "not in effect" is present and enabled but left
 * without its tier below or refused by the OS. */
static const char *state(unsigned bit, unsigned hw, unsigned off)
{
    return !(hw & bit)         ? "absent"
           : (off & bit)       ? "disabled by environment"
           : (features & bit)  ? "present"
                               : "not in effect";
}

static const char *name_of(unsigned bit)
{
    for (size_t i = 0; i < FEATURES; i++)
        if (feature_table[i].bit == bit)
            return feature_table[i].name;
    return "?";
}

/* One feature's QMM_VERBOSE line; one not in effect says why: the first tier
 * below it that is missing and where that stands, or the OS's refusal. */
static void log_feature(const struct feature *f, unsigned hw, unsigned off)
{
    const unsigned missing = f->needs & ~features;
    const unsigned first = missing & (0u - missing);
    if (!(hw & ~off & ~features & f->bit))
        qmm_log("cpu feature %-10s %s", f->name, state(f->bit, hw, off));
    else if (missing != 0)
        qmm_log("cpu feature %-10s present, not in effect: needs %s (%s)", f->name,
                name_of(first), state(first, hw, off));
    else
        qmm_log("cpu feature %-10s present, not in effect: refused by the OS (said above)",
                f->name);
}

static void detect(void)
{
    const unsigned hw = qmm_cpu_detect_hardware();
    const unsigned off = disabled_by_environment();
    /* The OS is asked only for what a kernel may use: never for a feature
     * disabled or left without its tier below. A refusal takes the tiers
     * above the refused feature too. */
    features = with_tiers_below(qmm_cpu_os_grants(with_tiers_below(hw & ~off)));
    qmm_cpu_feature_list(features, feature_names, sizeof feature_names);
    for (size_t i = 0; i < FEATURES; i++)
        log_feature(&feature_table[i], hw, off);
}

unsigned qmm_cpu_features(void)
{
    pthread_once(&features_once, detect);
    return features;
}

const char *qmm_cpu_feature_names(void)
{
    pthread_once(&features_once, detect);
    return feature_names;
}

int qmm_cpu_has(unsigned mask)
{
    return (qmm_cpu_features() & mask) == mask;
}

size_t qmm_cpu_pick_index(const unsigned *features, size_t stride, size_t count)
{
    const char *entry = (const char *)features;
    size_t i = 0;
    while (i + 1 < count && !qmm_cpu_has(*(const unsigned *)(entry + i * stride)))
        i++;
    return i;
}
