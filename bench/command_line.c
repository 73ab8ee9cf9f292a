#include "command_line.h"

#include <stdarg.h>
#include <string.h>

int bench_take_text(const bench_option *o, const char *value)
{
    *(const char **)o->to = value;
    return 1;
}

int bench_take_whole(const bench_option *o, const char *value)
{
    return bench_parse_whole(value, o->max, o->to);
}

int bench_take_shape(const bench_option *o, const char *value)
{
    bench_shape_list *list = o->to;
    if (!bench_parse_shape(value, o->max, &list->at[list->count]))
        return 0;
    list->count++;
    return 1;
}

bench_parse_result bench_refuse(const bench_program *program, const char *format, ...)
{
    va_list values;
    va_start(values, format);
    fprintf(stderr, "%s: ", program->name);
    vfprintf(stderr, format, values);
    fputc('\n', stderr);
    va_end(values);
    if (program->then == BENCH_THEN_USAGE)
        program->usage(stderr);
    else if (program->then == BENCH_THEN_HELP_HINT)
        fprintf(stderr, "%s --help tells the options\n", program->name);
    return BENCH_PARSE_ERROR;
}

/* An argument that is no option, or an option whose value is missing. */
static bench_parse_result refuse_argument(const bench_program *program, const char *what,
                                          const char *arg)
{
    if (!program->usage_for_unknown)
        return bench_refuse(program, "%s%s", what, arg);
    program->usage(stderr);
    return BENCH_PARSE_ERROR;
}

static const bench_option *find_option(const bench_option *options, size_t count, const char *arg)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(arg, options[i].name) == 0)
            return &options[i];
    return NULL;
}

bench_parse_result bench_read_command_line(const bench_program *program,
                                           const bench_option *options, size_t count, int argc,
                                           char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || (program->dash_h && strcmp(arg, "-h") == 0)) {
            program->usage(stdout);
            return BENCH_PARSE_HELP;
        }
        const bench_option *o = find_option(options, count, arg);
        if (o == NULL)
            return refuse_argument(program, "unknown argument ", arg);
        if (o->take == NULL) {
            *(int *)o->to = 1;
            continue;
        }
        if (i + 1 == argc)
            return refuse_argument(program, "missing value after ", arg);
        const char *value = argv[++i];
        if (!o->take(o, value))
            return bench_refuse(program, o->refused, value);
    }
    return BENCH_PARSE_RUN;
}
