/* The report's last column: whether a contender's result is right. */
#ifndef QMM_PEERS_VERDICTS_H
#define QMM_PEERS_VERDICTS_H

#include <stddef.h>

#include "contender.h"

/* For an int32 or float result, the largest |error| against the exact
 * product over all of C; for an int8 or uint8 one, how many of C's entries
 * differ from its peer's result (peer: that contender's trial, NULL if it has
 * none) and by how much at most; then the contender's note, if any. */
void verdict(const trial *t, const trial *peer, const operands *o, char *text, size_t size);

#endif
