/* The shapes qmm-bench-peers times: its defaults, or --shape's. */
#ifndef QMM_PEERS_SHAPES_H
#define QMM_PEERS_SHAPES_H

#include <stddef.h>

#include "operands.h"

extern const shape peer_default_shapes[];
extern const size_t peer_default_shape_count;

/* "MxKxN", each size from 1 to 65536, into *out; 0 when text is not that. */
int peer_parse_shape(const char *text, shape *out);

#endif
