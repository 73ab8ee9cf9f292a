#include "xmalloc.h"

#include <stdio.h>
#include <stdlib.h>

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "qmm-bench-peers: out of memory\n");
        exit(1);
    }
    return p;
}
