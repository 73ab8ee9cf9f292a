/* mkstemp, posix_spawnp and waitpid are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine.h"

extern char **environ;  /* POSIX: the program declares it */

#define GNUPLOT "gnuplot"

/* Errors of exactly 0 have no place on a log scale: drawn here instead. */
#define ZERO_ERROR_DRAWN_AT 1e-18
/* Double's unit roundoff 2^-53, drawn as a line when the errors reach it. */
#define DOUBLE_ROUNDOFF 0x1p-53

/* The figure: panels of PANEL_WIDTH x PANEL_HEIGHT pixels, two per row (one
 * for a single distribution), and the keys in a column on the right. */
#define PANEL_WIDTH 640
#define PANEL_HEIGHT 500
#define KEY_WIDTH 400
#define TITLE_HEIGHT 50

/* Filled square, circle, triangles up and down, diamond, pentagon, then
 * their open forms: the shapes' point types in order, repeating after 12. */
static const int point_types[] = {5, 7, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14};
#define POINT_TYPES (sizeof point_types / sizeof point_types[0])

/* A method family's colour and key text. The families with a count
 * (qmm_dgemm_i8's slices, the CRT functions' moduli) have a line too, in a
 * lighter colour, joining their points per shape, and a label giving the
 * count; the others have no line colour. */
typedef struct family {
    compare_method_kind kind;
    qmm_per granularity;
    const char *colour;
    const char *line_colour;
    const char *title;
} family;

static const family families[] = {
    {COMPARE_BLAS_SGEMM, QMM_PER_MATRIX, "#d95f02", NULL, "OpenBLAS cblas_sgemm (FP32)"},
    {COMPARE_QMM_SGEMM_I8, QMM_PER_MATRIX, "#e7298a", NULL, "qmm_sgemm_i8 per tensor"},
    {COMPARE_QMM_SGEMM_I8, QMM_PER_ROW_COL, "#1b9e77", NULL, "qmm_sgemm_i8 per channel"},
    {COMPARE_QMM_SGEMM_CRT, QMM_PER_ROW_COL, "#7b3fa8", "#cdb6e0",
     "qmm_sgemm_crt (label: moduli)"},
    {COMPARE_QMM_DGEMM_I8, QMM_PER_ROW_COL, "#1f5fbf", "#a8c4ec",
     "qmm_dgemm_i8 per channel (label: slices)"},
    {COMPARE_QMM_DGEMM_CRT, QMM_PER_ROW_COL, "#a6761d", "#e3cfa6",
     "qmm_dgemm_crt (label: moduli)"},
};
#define FAMILIES (sizeof families / sizeof families[0])

/* The most slices or moduli a point can be labelled with. */
#define MOST_COUNT (QMM_MAX_SLICES > QMM_CRT_MAX_MODULI ? QMM_MAX_SLICES : QMM_CRT_MAX_MODULI)

static int counted(size_t f)
{
    return families[f].line_colour != NULL;
}

int compare_gnuplot_found(void)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/bin:/usr/bin";  /* what posix_spawnp searches then */
    while (1) {
        size_t length = strcspn(path, ":");
        char candidate[4096];
        /* An empty entry is the current directory. */
        int written = snprintf(candidate, sizeof candidate, "%.*s%s" GNUPLOT, (int)length, path,
                               length == 0 ? "" : "/");
        if (written > 0 && (size_t)written < sizeof candidate && access(candidate, X_OK) == 0)
            return 1;
        if (path[length] == '\0')
            return 0;
        path += length + 1;
    }
}

static int is_family(const compare_record *r, const family *f)
{
    return r->method.kind == f->kind &&
           (f->kind == COMPARE_BLAS_SGEMM || r->method.granularity == f->granularity);
}

typedef struct point {
    double x, y;
} point;

/* Where r goes: its end-to-end time over cblas_dgemm's, and its error. */
static point place(const compare_record *r, int *zero_seen)
{
    point p = {r->end_to_end_seconds / r->reference_seconds, r->error.relative_l2};
    if (p.y == 0) {
        p.y = ZERO_ERROR_DRAWN_AT;
        *zero_seen = 1;
    }
    return p;
}

static int plotted(const compare_record *r)
{
    return r->status == QMM_OK && r->method.kind != COMPARE_BLAS_DGEMM &&
           isfinite(r->error.relative_l2) && r->end_to_end_seconds > 0 &&
           r->reference_seconds > 0;
}

/* One panel's data of family f: "x y point_type count" per point; for a
 * family with a count, the shapes' runs apart by blank lines, so that the
 * line joining one shape's points breaks before the next. */
static void write_data(FILE *out, const char *name, const compare_record *records, size_t count,
                       compare_dist d, size_t f, int *zero_seen)
{
    fprintf(out, "$%s << EOD\n", name);
    size_t last_shape = (size_t)-1;
    for (size_t i = 0; i < count; i++) {
        const compare_record *r = &records[i];
        if (r->dist != d || !is_family(r, &families[f]) || !plotted(r))
            continue;
        if (counted(f) && last_shape != (size_t)-1 && r->shape_index != last_shape)
            fprintf(out, "\n");
        last_shape = r->shape_index;
        point p = place(r, zero_seen);
        fprintf(out, "%.6e %.6e %d %u\n", p.x, p.y,
                point_types[r->shape_index % POINT_TYPES], compare_method_count(&r->method));
    }
    /* gnuplot refuses to plot an empty block: one point it never draws. */
    fprintf(out, "NaN NaN 1 0\nEOD\n");
}

/* One label per count (slices or moduli) of family f in the panel of d,
 * "x y count", at the rightmost of the shapes' points with that count: the
 * shapes' curves run side by side, and a label on every point would cover
 * them. */
static void write_count_labels(FILE *out, const char *name, const compare_record *records,
                               size_t count, compare_dist d, size_t f)
{
    fprintf(out, "$%s << EOD\n", name);
    for (unsigned n = 1; n <= MOST_COUNT; n++) {
        point rightmost = {0, 0};
        int zero_seen = 0;
        for (size_t i = 0; i < count; i++) {
            const compare_record *r = &records[i];
            if (r->dist != d || !is_family(r, &families[f]) || !plotted(r) ||
                compare_method_count(&r->method) != n)
                continue;
            point p = place(r, &zero_seen);
            if (p.x > rightmost.x)
                rightmost = p;
        }
        if (rightmost.x > 0)
            fprintf(out, "%.6e %.6e %u\n", rightmost.x, rightmost.y, n);
    }
    fprintf(out, "NaN NaN 0\nEOD\n");
}

/* The ranges all panels share, so that they compare at a glance; nonzero
 * when the errors come down far enough for double's roundoff to be drawn. */
static int write_ranges(FILE *out, const compare_record *records, size_t count)
{
    double x_lo = 1, x_hi = 1, y_lo = (double)INFINITY, y_hi = 0;
    int ignored = 0;
    for (size_t i = 0; i < count; i++) {
        if (!plotted(&records[i]))
            continue;
        point p = place(&records[i], &ignored);
        x_lo = fmin(x_lo, p.x);
        x_hi = fmax(x_hi, p.x);
        y_lo = fmin(y_lo, p.y);
        y_hi = fmax(y_hi, p.y);
    }
    if (y_hi == 0)  /* nothing to draw */
        y_lo = 1e-8, y_hi = 1;
    fprintf(out, "set xrange [%.6e:%.6e]\nset yrange [%.6e:%.6e]\n", x_lo / 1.6, x_hi * 1.6,
            y_lo / 8, y_hi * 8);
    if (y_lo / 8 >= DOUBLE_ROUNDOFF)
        return 0;
    fprintf(out, "set arrow 2 from graph 0, first %.6e to graph 1, first %.6e nohead "
                 "dt 3 lc rgb 'gray50'\n",
            DOUBLE_ROUNDOFF, DOUBLE_ROUNDOFF);
    return 1;
}

/* Where the panels go: columns of them (two, or one for a single
 * distribution), in screen fractions beside the key column. */
typedef struct layout {
    size_t columns, rows;
    double key_share, panel_width, panel_height;
} layout;

static layout lay_out(size_t panels)
{
    layout l;
    l.columns = panels == 1 ? 1 : 2;
    l.rows = (panels + 1) / 2;
    l.key_share = (double)KEY_WIDTH / (double)(l.columns * PANEL_WIDTH + KEY_WIDTH);
    const double top_share =
        (double)TITLE_HEIGHT / (double)(l.rows * PANEL_HEIGHT + TITLE_HEIGHT);
    l.panel_width = (1 - l.key_share) / (double)l.columns;
    l.panel_height = (1 - top_share) / (double)l.rows;
    return l;
}

/* s between single quotes, as gnuplot reads them: a quote doubled. */
static void write_quoted(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputc('\'', out);
        fputc(*s, out);
    }
    fputc('\'', out);
}

static void write_panel(FILE *out, compare_dist d, size_t panel, const layout *l)
{
    fprintf(out, "set origin %.4f, %.4f\nset size %.4f, %.4f\n",
            (double)(panel % l->columns) * l->panel_width,
            (double)(l->rows - 1 - panel / l->columns) * l->panel_height, l->panel_width,
            l->panel_height);
    fprintf(out, "set title ");
    write_quoted(out, compare_dist_descriptions[d]);
    fprintf(out, " noenhanced\n");
    const char *next = "plot ";
    /* The families with a count first, so that the single points of the
     * others are drawn over their lines. */
    for (size_t f = 0; f < FAMILIES; f++) {
        if (!counted(f))
            continue;
        const char *colour = families[f].colour;
        fprintf(out, "%s$s%zu_%zu using 1:2 with lines lw 1.2 lc rgb '%s' notitle, \\\n"
                     "  $s%zu_%zu using 1:2:3 with points pt variable ps 1.3 lc rgb '%s' "
                     "notitle, \\\n"
                     "  $s%zu_%zu_labels using 1:2:(sprintf('%%d', $3)) with labels left "
                     "offset char 0.9, 0 font ',9' tc rgb '%s' notitle",
                next, panel, f, families[f].line_colour, panel, f, colour, panel, f, colour);
        next = ", \\\n  ";
    }
    for (size_t f = 0; f < FAMILIES; f++) {
        if (counted(f))
            continue;
        fprintf(out, "%s$s%zu_%zu using 1:2:3 with points pt variable ps 1.6 "
                     "lc rgb '%s' notitle",
                next, panel, f, families[f].colour);
        next = ", \\\n  ";
    }
    fprintf(out, "\n");
}

/* The keys: the methods' colours, then the shapes' point types, each in a
 * plot of its own in the column on the right, drawing nothing but its key. */
static void write_keys(FILE *out, const compare_options *opt, const layout *l,
                       int roundoff_drawn)
{
    const double key_share = l->key_share;
    fprintf(out, "unset arrow\nunset title\nunset xlabel\nunset ylabel\nunset logscale\n"
                 "unset border\nunset tics\nunset grid\nset xrange [0:1]\nset yrange [0:1]\n"
                 "set key inside left top Left reverse noenhanced samplen 2 spacing 1.4 "
                 "width 2\n");
    fprintf(out, "set origin %.4f, 0.5\nset size %.4f, 0.45\n", 1 - key_share, key_share);
    fprintf(out, "set key title 'methods' left\n");
    fprintf(out, "plot NaN with lines dt 2 lw 1.5 lc rgb 'gray30' "
                 "title 'x = 1: cblas_dgemm (the FP64 reference)'");
    if (roundoff_drawn)
        fprintf(out, ", \\\n  NaN with lines dt 3 lc rgb 'gray50' title 'y = 2^-53: double''s "
                     "unit roundoff'");
    for (size_t f = 0; f < FAMILIES; f++)
        fprintf(out, ", \\\n  NaN with %s pt 7 ps 1.5 lc rgb '%s' title '%s'",
                counted(f) ? "linespoints" : "points", families[f].colour,
                families[f].title);
    fprintf(out, "\nset origin %.4f, 0.0\nset size %.4f, 0.5\n", 1 - key_share, key_share);
    fprintf(out, "set key title 'shapes (MxKxN)' left\nplot ");
    for (size_t i = 0; i < opt->shape_count; i++) {
        char shape[BENCH_SHAPE_TEXT_SIZE];
        bench_format_shape(opt->shapes[i], shape);
        fprintf(out, "%sNaN with points pt %d ps 1.5 lc rgb 'black' title '%s'",
                i == 0 ? "" : ", \\\n  ", point_types[i % POINT_TYPES], shape);
    }
    fprintf(out, "\n");
}

static void write_script(FILE *out, const char *png, const compare_options *opt,
                         const compare_record *records, size_t count)
{
    const layout l = lay_out(opt->dist_count);
    int zero_seen = 0;
    fprintf(out, "# qmm-compare --plot\n");
    for (size_t p = 0; p < opt->dist_count; p++)
        for (size_t f = 0; f < FAMILIES; f++) {
            char name[32];
            snprintf(name, sizeof name, "s%zu_%zu", p, f);
            write_data(out, name, records, count, opt->dists[p], f, &zero_seen);
        }
    for (size_t p = 0; p < opt->dist_count; p++)
        for (size_t f = 0; f < FAMILIES; f++) {
            if (!counted(f))
                continue;
            char name[32];
            snprintf(name, sizeof name, "s%zu_%zu_labels", p, f);
            write_count_labels(out, name, records, count, opt->dists[p], f);
        }
    /* Debian's gnuplot-nox has pngcairo; a build without cairo has libgd's png. */
    const unsigned width = (unsigned)l.columns * PANEL_WIDTH + KEY_WIDTH;
    const unsigned height = (unsigned)l.rows * PANEL_HEIGHT + TITLE_HEIGHT;
    fprintf(out,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %u, %u font 'Sans,10'\n"
            "} else {\n"
            "  set terminal png size %u, %u\n"
            "}\n",
            width, height, width, height);
    fprintf(out, "set output ");
    write_quoted(out, png);
    char cpu[256], title[512];
    compare_cpu_model(cpu, sizeof cpu);
    snprintf(title, sizeof title,
             "qmm-compare: relative L2 error against FP64 vs. end-to-end time;  %s, %zu "
             "thread%s%s",
             cpu, opt->threads, opt->threads == 1 ? "" : "s",
             zero_seen ? ";  errors of 0 drawn at 1e-18" : "");
    fprintf(out, "\nset multiplot title ");
    write_quoted(out, title);
    fprintf(out, " font ',12' noenhanced\n");
    fprintf(out, "set logscale xy\nset grid xtics ytics mxtics mytics lc rgb 'gray85'\n"
                 "set format y '10^{%%L}'\nset format x '%%g'\nunset key\n"
                 "set xlabel 'end-to-end time / cblas_dgemm''s on the same case' "
                 "offset 0, 0.3 noenhanced\n"
                 "set ylabel 'relative L2 error' offset 1, 0\n"
                 "set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead dt 2 lw 1.5 "
                 "lc rgb 'gray30'\n");
    const int roundoff_drawn = write_ranges(out, records, count);
    for (size_t p = 0; p < opt->dist_count; p++)
        write_panel(out, opt->dists[p], p, &l);
    write_keys(out, opt, &l, roundoff_drawn);
    fprintf(out, "unset multiplot\n");
}

/* Runs gnuplot on script, its stdout sent to stderr so that a table or CSV
 * on stdout stays clean. */
static int run_gnuplot(const char *script)
{
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return 0;
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    char *argv[] = {GNUPLOT, (char *)script, NULL};
    pid_t pid;
    int error = posix_spawnp(&pid, GNUPLOT, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
        fprintf(stderr, "qmm-compare: --plot: cannot run " GNUPLOT ": %s\n", strerror(error));
        return 0;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("qmm-compare: --plot: waitpid");
            return 0;
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "qmm-compare: --plot: " GNUPLOT " failed (%s %d)\n",
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return 0;
    }
    return 1;
}

int compare_plot(const char *png, const compare_options *opt, const compare_record *records,
                 size_t count)
{
    const char *dir = getenv("TMPDIR");
    char script[4096];
    snprintf(script, sizeof script, "%s/qmm-compare-XXXXXX", dir != NULL && *dir ? dir : "/tmp");
    int fd = mkstemp(script);
    FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
    if (out == NULL) {
        fprintf(stderr, "qmm-compare: --plot: cannot write a script in %s: %s\n",
                dir != NULL && *dir ? dir : "/tmp", strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    write_script(out, png, opt, records, count);
    int ok = fclose(out) == 0;
    if (!ok)
        fprintf(stderr, "qmm-compare: --plot: writing %s: %s\n", script, strerror(errno));
    ok = ok && run_gnuplot(script);
    struct stat st;
    if (ok && (stat(png, &st) != 0 || st.st_size == 0)) {
        fprintf(stderr, "qmm-compare: --plot: " GNUPLOT " left no image in %s\n", png);
        ok = 0;
    }
    if (ok)
        unlink(script);
    else
        fprintf(stderr, "qmm-compare: --plot: the gnuplot script is kept in %s\n", script);
    return ok;
}
