#include "feature_said.h"

#include <stdio.h>
#include <string.h>

int test_feature_said(const char *log, const char *name, const char *state)
{
    char head[32];
    snprintf(head, sizeof head, "cpu feature %s ", name);
    const char *line = strstr(log, head);
    if (line == NULL)
        return 0;
    line += strlen(head);
    line += strspn(line, " ");
    const size_t len = strcspn(line, "\n");
    return len == strlen(state) && strncmp(line, state, len) == 0;
}
