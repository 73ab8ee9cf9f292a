/* What a call writes on stderr. A file of its own, apart from testlib (which
 * needs the whole library), so that tests built from platform/ alone can
 * read what the library says under QMM_VERBOSE. */
#ifndef QMM_TEST_STDERR_CAPTURE_H
#define QMM_TEST_STDERR_CAPTURE_H

#include <stddef.h>

/* Runs fn(arg) with stderr in a temporary file, then puts that file's text in
 * buf (cut to size - 1 bytes, NUL-terminated). Returns 0, or -1 when stderr
 * could not be redirected, and then fn has not run. */
int test_stderr_of(void (*fn)(void *), void *arg, char *buf, size_t size);

#endif
