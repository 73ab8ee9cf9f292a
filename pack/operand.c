#include "operand.h"

#include <string.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

qmm_operand_copy qmm_operand_copy_layout(int8_t *data, size_t lines, size_t depth,
                                         ptrdiff_t ls)
{
    if (ls == 1 && lines > 1)
        return (qmm_operand_copy){data, 1, (ptrdiff_t)lines};
    return (qmm_operand_copy){data, (ptrdiff_t)depth, 1};
}

/* Line by line, depths inner: for sources whose depths are closest. */
static ALWAYS_INLINE void by_lines(const uint8_t *src, ptrdiff_t ls, ptrdiff_t ds, size_t lines,
                                   size_t depth, uint8_t flip, int8_t *cp, ptrdiff_t cls,
                                   ptrdiff_t cds, int32_t *sums)
{
    for (size_t i = 0; i < lines; i++) {
        const uint8_t *s = src + (ptrdiff_t)i * ls;
        uint32_t sum = 0;
        if (cp != NULL) {
            int8_t *d = cp + (ptrdiff_t)i * cls;
            for (size_t p = 0; p < depth; p++) {
                const int8_t v = (int8_t)(s[(ptrdiff_t)p * ds] ^ flip);
                d[(ptrdiff_t)p * cds] = v;
                sum += (uint32_t)(int32_t)v;
            }
        } else {
            for (size_t p = 0; p < depth; p++)
                sum += (uint32_t)(int32_t)(int8_t)(s[(ptrdiff_t)p * ds] ^ flip);
        }
        if (sums != NULL)
            sums[i] = (int32_t)sum;
    }
}

/* Depth by depth, lines inner: for sources whose lines are adjacent. The
 * sums of a block of lines are kept in int16 over up to DEPTHS depths
 * (256 * -128 = INT16_MIN: exact), then added to int32 ones: the widening of
 * each byte is then to 16 bits, not 32. */
enum { LINES = 256, DEPTHS = 256 };
static ALWAYS_INLINE void by_depths(const uint8_t *src, ptrdiff_t ds, size_t lines, size_t depth,
                                    uint8_t flip, int8_t *cp, ptrdiff_t cds, int32_t *sums)
{
    for (size_t i0 = 0; i0 < lines; i0 += LINES) {
        const size_t n = lines - i0 < LINES ? lines - i0 : LINES;
        uint32_t acc[LINES];
        int16_t part[LINES];
        memset(acc, 0, sizeof acc);
        for (size_t p0 = 0; p0 < depth; p0 += DEPTHS) {
            const size_t pn = depth - p0 < DEPTHS ? depth - p0 : DEPTHS;
            memset(part, 0, sizeof part);
            for (size_t p = p0; p < p0 + pn; p++) {
                const uint8_t *s = src + (ptrdiff_t)p * ds + i0;
                if (cp != NULL) {
                    int8_t *d = cp + (ptrdiff_t)p * cds + i0;
                    for (size_t i = 0; i < n; i++) {
                        const int8_t v = (int8_t)(s[i] ^ flip);
                        d[i] = v;
                        part[i] = (int16_t)(part[i] + v);
                    }
                } else {
                    for (size_t i = 0; i < n; i++)
                        part[i] = (int16_t)(part[i] + (int8_t)(s[i] ^ flip));
                }
            }
            for (size_t i = 0; i < n; i++)
                acc[i] += (uint32_t)(int32_t)part[i];
        }
        if (sums != NULL)
            for (size_t i = 0; i < n; i++)
                sums[i0 + i] = (int32_t)acc[i];
    }
}

void qmm_operand_prepare(const uint8_t *src, ptrdiff_t ls, ptrdiff_t ds, size_t lines,
                         size_t depth, uint8_t flip, const qmm_operand_copy *copy,
                         int32_t *sums)
{
    int8_t *cp = copy != NULL ? copy->data : NULL;
    if (ls == 1 && lines > 1 && (copy == NULL || copy->ls == 1))
        by_depths(src, ds, lines, depth, flip, cp, copy != NULL ? copy->ds : 0, sums);
    else if (ds == 1 && copy != NULL && copy->ds == 1 && sums == NULL)
        /* A flipped copy alone: the loop without the sums is a plain vector
         * xor, 4x fewer operations than one that widens every byte to add it. */
        by_lines(src, ls, 1, lines, depth, flip, cp, copy->ls, 1, NULL);
    else if (ds == 1 && (copy == NULL || copy->ds == 1))
        by_lines(src, ls, 1, lines, depth, flip, cp, copy != NULL ? copy->ls : 0, 1, sums);
    else
        by_lines(src, ls, ds, lines, depth, flip, cp, copy != NULL ? copy->ls : 0,
                 copy != NULL ? copy->ds : 0, sums);
}
