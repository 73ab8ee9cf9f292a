#include "stderr_capture.h"

#include <stdio.h>
#include <unistd.h>

int test_stderr_of(void (*fn)(void *), void *arg, char *buf, size_t size)
{
    FILE *log = tmpfile();
    if (log == NULL)
        return -1;
    fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    if (saved < 0 || dup2(fileno(log), STDERR_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(log);
        return -1;
    }
    fn(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(log);
    buf[fread(buf, 1, size - 1, log)] = '\0';
    fclose(log);
    return 0;
}
