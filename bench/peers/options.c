#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../shapes.h"
#include "peer_shapes.h"
#include "qmm/qmm.h"
#include "xmalloc.h"

static const char usage[] =
    "usage: qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]\n";

peer_parse_result peer_parse_options(int argc, char **argv, peer_options *opt)
{
    *opt = (peer_options){.threads = 1};
    opt->parsed_shapes = xmalloc((size_t)argc * sizeof *opt->parsed_shapes);
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        const int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--shape") == 0 && has_value) {
            if (!peer_parse_shape(argv[++i], &opt->parsed_shapes[count])) {
                fprintf(stderr, "qmm-bench-peers: bad shape %s (MxKxN)\n", argv[i]);
                return PEER_PARSE_ERROR;
            }
            count++;
        } else if (strcmp(argv[i], "--reps") == 0 && has_value) {
            opt->reps = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0 && has_value) {
            if (!bench_parse_whole(argv[++i], QMM_MAX_THREADS, &opt->threads)) {
                fprintf(stderr, "qmm-bench-peers: bad thread count %s (1 to %d)\n", argv[i],
                        QMM_MAX_THREADS);
                return PEER_PARSE_ERROR;
            }
        } else if (strcmp(argv[i], "--avx2") == 0) {
            opt->avx2 = 1;
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fputs(usage, help ? stdout : stderr);
            return help ? PEER_PARSE_HELP : PEER_PARSE_ERROR;
        }
    }
    opt->shapes = count ? opt->parsed_shapes : peer_default_shapes;
    opt->shape_count = count ? count : peer_default_shape_count;
    return PEER_PARSE_RUN;
}

void peer_free_options(peer_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
