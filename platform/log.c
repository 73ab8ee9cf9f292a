#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose;
static pthread_once_t verbose_once = PTHREAD_ONCE_INIT;

static void read_verbose(void)
{
    const char *v = getenv("QMM_VERBOSE");
    verbose = v != NULL && strcmp(v, "1") == 0;
}

int qmm_verbose(void)
{
    pthread_once(&verbose_once, read_verbose);
    return verbose;
}

void qmm_log(const char *fmt, ...)
{
    if (!qmm_verbose())
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf per line keeps lines whole when threads log at once. */
    fprintf(stderr, "qmm: %s\n", line);
}
