/* qmm-encode: sentence embeddings from token ids, or the encoder's timing.
 *
 *   qmm-encode MODEL [--threads N] [--activations per-token|per-sequence]
 *       reads token ids on standard input, one sequence per line, separated
 *       by blanks ([CLS] and [SEP] included), and writes one embedding per
 *       line, its floats separated by spaces (%.9g: exact round trip).
 *   qmm-encode MODEL --bench [--seq N] [--batch N] [--threads N] [--reps N] [--csv]
 *              [--activations per-token|per-sequence]
 *       times batches of random sequences: the median milliseconds of an
 *       embedding call, its split (products, attention, the rest) and the
 *       process's peak resident set size; with --csv the line
 *       qmm,threads,seq,batch,ms on standard output instead.
 *   --activations: how activations are quantized (encoder.h): per token (the
 *       default) or per sequence (ONNX Runtime's graph).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qmm/qmm.h>

#include "encoder.h"

typedef struct options {
    const char *model;
    int bench, csv;
    encoder_activations activations;
    size_t seq, batch, threads, reps;
} options;

static int usage(void)
{
    fprintf(stderr,
            "usage: qmm-encode MODEL [--threads N] [--activations per-token|per-sequence]\n"
            "           (token ids on stdin, one sequence a line)\n"
            "       qmm-encode MODEL --bench [--seq N] [--batch N] [--threads N] [--reps N] "
            "[--csv]\n"
            "           [--activations per-token|per-sequence]\n");
    return 2;
}

static int parse_size(const char *s, size_t lo, size_t hi, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return 0;
    *out = (size_t)v;
    return 1;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.seq = 128, .batch = 1, .reps = 20};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t *target = !strcmp(a, "--seq")       ? &o->seq
                         : !strcmp(a, "--batch")   ? &o->batch
                         : !strcmp(a, "--threads") ? &o->threads
                         : !strcmp(a, "--reps")    ? &o->reps
                                                   : NULL;
        if (target) {
            if (v == NULL || !parse_size(v, 1, 1u << 20, target)) {
                fprintf(stderr, "qmm-encode: %s needs a number from 1 to %u\n", a, 1u << 20);
                return 0;
            }
            i++;
        } else if (!strcmp(a, "--activations")) {
            if (v == NULL || (strcmp(v, "per-token") && strcmp(v, "per-sequence"))) {
                fprintf(stderr, "qmm-encode: --activations takes per-token or per-sequence\n");
                return 0;
            }
            o->activations = strcmp(v, "per-token") ? ENCODER_ACTIVATIONS_PER_SEQUENCE
                                                    : ENCODER_ACTIVATIONS_PER_TOKEN;
            i++;
        } else if (!strcmp(a, "--bench")) {
            o->bench = 1;
        } else if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (a[0] != '-' && o->model == NULL) {
            o->model = a;
        } else {
            fprintf(stderr, "qmm-encode: unknown argument %s\n", a);
            return 0;
        }
    }
    return o->model != NULL;
}

/* Reads stdin's sequences into *ids and *offsets (count + 1 of them). */
static int read_sequences(size_t max_positions, int32_t **ids, size_t **offsets, size_t *count)
{
    size_t cap_ids = 1024, cap_seq = 64, n = 0, line = 0;
    char buf[1 << 16];
    *ids = malloc(cap_ids * sizeof **ids);
    *offsets = malloc(cap_seq * sizeof **offsets);
    *count = 0;
    if (*ids == NULL || *offsets == NULL)
        return 0;
    (*offsets)[0] = 0;
    while (fgets(buf, sizeof buf, stdin)) {
        line++;
        if (strchr(buf, '\n') == NULL && !feof(stdin)) {
            fprintf(stderr, "qmm-encode: line %zu is longer than %zu bytes\n", line, sizeof buf);
            return 0;
        }
        size_t start = n;
        for (char *p = buf, *end;; p = end) {
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (errno || v < 0 || v > INT32_MAX) {
                fprintf(stderr, "qmm-encode: line %zu: bad token id\n", line);
                return 0;
            }
            if (n == cap_ids) {
                int32_t *grown = realloc(*ids, 2 * cap_ids * sizeof **ids);
                if (grown == NULL)
                    return 0;
                *ids = grown;
                cap_ids *= 2;
            }
            (*ids)[n++] = (int32_t)v;
        }
        if (strspn(buf, " \t\r\n0123456789") != strlen(buf)) {
            fprintf(stderr, "qmm-encode: line %zu: not token ids\n", line);
            return 0;
        }
        if (n == start)
            continue;
        if (n - start > max_positions) {
            fprintf(stderr, "qmm-encode: line %zu: %zu tokens, the model takes %zu at most\n",
                    line, n - start, max_positions);
            return 0;
        }
        if (*count + 2 > cap_seq) {
            size_t *grown = realloc(*offsets, 2 * cap_seq * sizeof **offsets);
            if (grown == NULL)
                return 0;
            *offsets = grown;
            cap_seq *= 2;
        }
        (*offsets)[++*count] = n;
    }
    return 1;
}

static int encode_stdin(encoder *e)
{
    const encoder_config *c = encoder_get_config(e);
    int32_t *ids = NULL;
    size_t *offsets = NULL, count = 0;
    float *out = NULL;
    int ok = read_sequences(c->max_positions, &ids, &offsets, &count);
    if (ok && count > 0) {
        out = malloc(count * c->hidden * sizeof *out);
        encoder_status st = out ? encoder_embed(e, count, offsets, ids, out) : ENCODER_ERR_NOMEM;
        if (st != ENCODER_OK) {
            fprintf(stderr, "qmm-encode: %s\n", encoder_status_str(st));
            ok = 0;
        }
        for (size_t s = 0; ok && s < count; s++)
            for (size_t j = 0; j < c->hidden; j++)
                printf("%.9g%c", out[s * c->hidden + j], j + 1 < c->hidden ? ' ' : '\n');
    }
    free(ids);
    free(offsets);
    free(out);
    return ok ? 0 : 1;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench(encoder *e, const options *o)
{
    const encoder_config *c = encoder_get_config(e);
    if (o->seq > c->max_positions || o->seq < 2) {
        fprintf(stderr, "qmm-encode: --seq %zu: the model takes 2 to %u tokens\n", o->seq,
                c->max_positions);
        return 1;
    }
    size_t tokens = o->seq * o->batch;
    int32_t *ids = malloc(tokens * sizeof *ids);
    size_t *offsets = malloc((o->batch + 1) * sizeof *offsets);
    float *out = malloc(o->batch * c->hidden * sizeof *out);
    double *ms = malloc(o->reps * sizeof *ms);
    int rc = 1;
    if (!ids || !offsets || !out || !ms)
        goto done;
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (size_t s = 0; s <= o->batch; s++)
        offsets[s] = s * o->seq;
    for (size_t t = 0; t < tokens; t++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        ids[t] = (int32_t)((state >> 33) % c->vocab);
        if (t % o->seq == 0)
            ids[t] = (int32_t)c->cls_id;
        if (t % o->seq == o->seq - 1)
            ids[t] = (int32_t)c->sep_id;
    }
    for (size_t r = 0; r < 2; r++) {
        encoder_status st = encoder_embed(e, o->batch, offsets, ids, out);
        if (st != ENCODER_OK) {
            fprintf(stderr, "qmm-encode: %s\n", encoder_status_str(st));
            goto done;
        }
    }
    encoder_reset_times(e);
    for (size_t r = 0; r < o->reps; r++) {
        double t = seconds();
        encoder_embed(e, o->batch, offsets, ids, out);
        ms[r] = 1e3 * (seconds() - t);
    }
    qsort(ms, o->reps, sizeof *ms, compare_doubles);
    double median = ms[o->reps / 2];
    encoder_times split = encoder_get_times(e);
    double total = split.products + split.attention + split.rest;
    size_t threads = qmm_get_num_threads();
    if (o->csv) {
        printf("qmm,%zu,%zu,%zu,%.3f\n", threads, o->seq, o->batch, median);
    } else {
        printf("qmm-encode: seq %zu batch %zu threads %zu: %.3f ms (median of %zu)\n", o->seq,
               o->batch, threads, median, o->reps);
        printf("  split: products %.1f %%, attention %.1f %%, rest %.1f %%\n",
               100 * split.products / total, 100 * split.attention / total,
               100 * split.rest / total);
        printf("  peak RSS %.1f MiB\n", (double)encoder_peak_rss() / (1 << 20));
    }
    rc = 0;
done:
    free(ids);
    free(offsets);
    free(out);
    free(ms);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse_options(argc, argv, &o))
        return usage();
    if (o.threads && qmm_set_num_threads(o.threads) != QMM_OK) {
        fprintf(stderr, "qmm-encode: --threads %zu refused\n", o.threads);
        return 2;
    }
    encoder *e;
    char why[256];
    encoder_status st = encoder_load(o.model, &e, why, sizeof why);
    if (st != ENCODER_OK) {
        fprintf(stderr, "qmm-encode: %s: %s\n", encoder_status_str(st), why);
        return 1;
    }
    encoder_set_activations(e, o.activations);
    int rc = o.bench ? bench(e, &o) : encode_stdin(e);
    encoder_free(e);
    return rc;
}
