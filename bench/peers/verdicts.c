#include "verdicts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What the verdict of a result type without a peer says when there is no
 * exact int32 product to compare with. */
static const char *const requantized[] = {
    [RESULT_S8] = "requantized (int8 out)",
    [RESULT_U8] = "requantized (uint8 out)",
};

/* Entry e of t's result, of any type, as a double (every value is exact). */
static double entry(const trial *t, size_t e)
{
    switch (t->of->result) {
    case RESULT_I32:
        return ((const int32_t *)t->c)[e];
    case RESULT_F32:
        return ((const float *)t->c)[e];
    case RESULT_S8:
        return ((const int8_t *)t->c)[e];
    case RESULT_U8:
        return ((const uint8_t *)t->c)[e];
    }
    return NAN;
}

/* C(i, j) of t's result, in its contender's layout. */
static double entry_at(const trial *t, const operands *o, size_t i, size_t j)
{
    return entry(t, t->of->batch_major ? batch_major(o, i, j) : i * o->s.n + j);
}

static void exactness(const trial *t, const operands *o, char *text, size_t size)
{
    double worst = 0;
    for (size_t e = 0; e < o->s.m * o->s.n; e++) {
        double error = fabs(entry(t, e) - (double)o->ref[e]);
        worst = error > worst ? error : worst;
    }
    snprintf(text, size, "%.0f%s", worst, worst == 0 ? " (exact)" : "");
}

static void agreement(const trial *t, const trial *peer, const operands *o, char *text,
                      size_t size)
{
    if (peer == NULL || !peer->ready) {
        snprintf(text, size, "no %s result to compare", t->of->peer->name);
        return;
    }
    size_t differ = 0;
    double worst = 0;
    for (size_t i = 0; i < o->s.m; i++)
        for (size_t j = 0; j < o->s.n; j++) {
            double d = fabs(entry_at(t, o, i, j) - entry_at(peer, o, i, j));
            differ += d != 0;
            worst = d > worst ? d : worst;
        }
    snprintf(text, size, "vs %s: %zu of %zu differ, max %.0f", peer->of->name, differ,
             o->s.m * o->s.n, worst);
}

void verdict(const trial *t, const trial *peer, const operands *o, char *text, size_t size)
{
    const contender *c = t->of;
    if (c->peer != NULL)
        agreement(t, peer, o, text, size);
    else if (c->result == RESULT_I32 || c->result == RESULT_F32)
        exactness(t, o, text, size);
    else
        snprintf(text, size, "%s", requantized[c->result]);
    if (c->note != NULL) {
        size_t used = strlen(text);
        if (used + 2 < size) {
            snprintf(text + used, size - used, "; ");
            c->note(t, text + used + 2, size - used - 2);
        }
    }
}
