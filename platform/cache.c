#include "cache.h"

#include <pthread.h>
#include <stdio.h>

#include "log.h"

#if defined(__x86_64__)
#include "cpuinfo_x86.h"
#endif

enum { DEFAULT_L1D = 32 << 10, DEFAULT_L2 = 512 << 10 };

static qmm_cpu_caches caches;
static pthread_once_t caches_once = PTHREAD_ONCE_INIT;

/* Level `level` data or unified cache from cpu_features, or 0. */
static size_t from_cpu_features(int level)
{
#if defined(__x86_64__)
    const CacheInfo info = GetX86CacheInfo();
    for (int i = 0; i < info.size; i++) {
        const CacheLevelInfo *c = &info.levels[i];
        if (c->level == level && c->cache_size > 0 &&
            (c->cache_type == CPU_FEATURE_CACHE_DATA || c->cache_type == CPU_FEATURE_CACHE_UNIFIED))
            return (size_t)c->cache_size;
    }
#else
    (void)level;
#endif
    return 0;
}

/* Level `level` data or unified cache of CPU 0 from Linux's sysfs, or 0. */
static size_t from_sysfs(int level)
{
    for (int index = 0; index < 8; index++) {
        char path[96], type[16] = "";
        int got_level = 0;
        size_t kib = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            return 0;
        int ok = fscanf(f, "%d", &got_level) == 1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        if (ok && (f = fopen(path, "r")) != NULL) {
            ok = fscanf(f, "%15s", type) == 1;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        if (ok && (f = fopen(path, "r")) != NULL) {
            ok = fscanf(f, "%zuK", &kib) == 1;
            fclose(f);
        }
        if (ok && got_level == level && type[0] != 'I' && kib != 0)
            return kib << 10;
    }
    return 0;
}

static size_t cache_size(int level, size_t fallback)
{
    size_t bytes = from_cpu_features(level);
    if (bytes == 0)
        bytes = from_sysfs(level);
    return bytes != 0 ? bytes : fallback;
}

static void read_caches(void)
{
    caches.l1d = cache_size(1, DEFAULT_L1D);
    caches.l2 = cache_size(2, DEFAULT_L2);
    qmm_log("caches: L1d %zu KiB, L2 %zu KiB per core", caches.l1d >> 10, caches.l2 >> 10);
}

qmm_cpu_caches qmm_cpu_cache_sizes(void)
{
    pthread_once(&caches_once, read_caches);
    return caches;
}
