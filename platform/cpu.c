#include "cpu.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

const qmm_cpu_feature_name qmm_cpu_feature_names[] = {
    {"neon", QMM_CPU_NEON},
    {"dotprod", QMM_CPU_DOTPROD},
    {"i8mm", QMM_CPU_I8MM},
    {"avx2", QMM_CPU_AVX2},
    {"fma", QMM_CPU_FMA},
    {"avx512vnni", QMM_CPU_AVX512VNNI},
    {"amx", QMM_CPU_AMX},
};
const size_t qmm_cpu_feature_name_count =
    sizeof qmm_cpu_feature_names / sizeof qmm_cpu_feature_names[0];

static unsigned features;
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
    for (size_t i = 0; i < qmm_cpu_feature_name_count; i++)
        if (same_name(qmm_cpu_feature_names[i].name, name, len))
            return qmm_cpu_feature_names[i].bit;
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
    if (dot != NULL && strcmp(dot, "1") == 0)
        off |= QMM_CPU_DOTPROD;
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
    for (size_t i = 0; i < qmm_cpu_feature_name_count; i++) {
        if (!(bits & qmm_cpu_feature_names[i].bit) || used >= size)
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
                         qmm_cpu_feature_names[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static void detect(void)
{
    unsigned hw = qmm_cpu_detect_hardware();
    unsigned off = disabled_by_environment();
    /* Only what will be used is asked for: a disabled feature never is. */
    features = qmm_cpu_os_grants(hw & ~off);
    for (size_t i = 0; i < qmm_cpu_feature_name_count; i++) {
        unsigned bit = qmm_cpu_feature_names[i].bit;
        qmm_log("cpu feature %-10s %s", qmm_cpu_feature_names[i].name,
                !(hw & bit)        ? "absent"
                : (off & bit)      ? "disabled by environment"
                : !(features & bit) ? "present, not usable (said above)"
                                   : "present");
    }
}

unsigned qmm_cpu_features(void)
{
    pthread_once(&features_once, detect);
    return features;
}

int qmm_cpu_has(unsigned mask)
{
    return (qmm_cpu_features() & mask) == mask;
}
