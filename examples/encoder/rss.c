#include <sys/resource.h>

#include "encoder.h"

size_t encoder_peak_rss(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0;
#if defined(__APPLE__)
    return (size_t)u.ru_maxrss;          /* bytes */
#else
    return (size_t)u.ru_maxrss * 1024;   /* kilobytes */
#endif
}
