/*
 * The bench programs' command lines (qmm-bench, qmm-compare,
 * qmm-bench-peers), each read against a table of its options, which the
 * program builds where the values go: an option's name, how its value is
 * taken and what is said when it is refused. The reading, --help, and the
 * answers to an unknown argument and to a missing value are here; how each
 * program words them is its bench_program.
 */
#ifndef QMM_BENCH_COMMAND_LINE_H
#define QMM_BENCH_COMMAND_LINE_H

#include <stddef.h>
#include <stdio.h>

#include "shapes.h"

/* A macro's value as text, for messages put together at compile time. */
#define BENCH_TEXT(x) #x
#define BENCH_VALUE_TEXT(x) BENCH_TEXT(x)

typedef struct bench_option bench_option;

/* Reads value into o->to: 0 when it is not a value the option takes. */
typedef int bench_take(const bench_option *o, const char *value);

struct bench_option {
    const char *name;    /* "--shape" */
    bench_take *take;    /* NULL for a flag, which takes no value: to is an int set to 1 */
    void *to;            /* where take puts the value */
    size_t max;          /* the largest number bench_take_whole and bench_take_shape take */
    const char *refused; /* what a refused value is told: a printf format, its %s the value */
};

/* The value as it is: to is a const char *. */
int bench_take_text(const bench_option *o, const char *value);
/* A whole number from 1 to max: to is a size_t. */
int bench_take_whole(const bench_option *o, const char *value);

/* Where --shape's values go: at has room for one per argument. */
typedef struct bench_shape_list {
    bench_shape *at;
    size_t count;
} bench_shape_list;

/* "MxKxN", every size from 1 to max, appended: to is a bench_shape_list. */
int bench_take_shape(const bench_option *o, const char *value);

/* What stderr gets after a refusal's message. */
typedef enum bench_after_refusal {
    BENCH_THEN_NOTHING,
    BENCH_THEN_USAGE,    /* the usage */
    BENCH_THEN_HELP_HINT /* "PROGRAM --help tells the options" */
} bench_after_refusal;

/* How a program's command line answers, besides its options. */
typedef struct bench_program {
    const char *name;          /* every message begins "NAME: " */
    void (*usage)(FILE *out);  /* --help's text */
    int dash_h;                /* -h is --help too */
    bench_after_refusal then;
    /* An unknown argument, or an option without its value, is answered by the
     * usage on stderr alone instead of a message. */
    int usage_for_unknown;
} bench_program;

typedef enum bench_parse_result {
    BENCH_PARSE_RUN,
    BENCH_PARSE_HELP, /* the usage printed on stdout */
    BENCH_PARSE_ERROR /* already explained on stderr */
} bench_parse_result;

/* argv[1..argc) against options[0..count): the flags set, the values taken,
 * in order; stops at --help or at the first refusal. */
bench_parse_result bench_read_command_line(const bench_program *program,
                                           const bench_option *options, size_t count, int argc,
                                           char **argv);

/* A refusal found apart from the reading (out of memory, options that do not
 * go together): said as the reading says its own. Returns BENCH_PARSE_ERROR. */
bench_parse_result bench_refuse(const bench_program *program, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif
