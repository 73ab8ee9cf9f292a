#include "bad_call.h"

#include <stdlib.h>
#include <string.h>

#include "testlib.h"

test_arena test_arena_new(void)
{
    test_arena a = {aligned_alloc(64, TEST_ARENA_BYTES), malloc(TEST_ARENA_BYTES),
                    malloc(TEST_ARENA_BYTES)};
    if (a.mem == NULL || a.initial == NULL || a.before == NULL)
        abort();
    memset(a.mem, 0xA5, TEST_ARENA_BYTES);
    return a;
}

void test_arena_free(test_arena *a)
{
    free(a->mem);
    free(a->initial);
    free(a->before);
}

void test_arena_keep(test_arena *a)
{
    memcpy(a->initial, a->mem, TEST_ARENA_BYTES);
}

void test_arena_restore(test_arena *a)
{
    memcpy(a->mem, a->initial, TEST_ARENA_BYTES);
}

void test_arena_before_call(test_arena *a)
{
    memcpy(a->before, a->mem, TEST_ARENA_BYTES);
}

void test_arena_after_call(test_arena *a, qmm_status st, qmm_status want, int empty,
                           const char *label)
{
    CHECK(st == want, "%s: %s, want %s", label, qmm_status_str(st), qmm_status_str(want));
    if (want != QMM_OK || empty)
        CHECK(memcmp(a->before, a->mem, TEST_ARENA_BYTES) == 0, "%s: wrote", label);
    test_arena_restore(a);
}
