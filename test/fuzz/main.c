/*
 * test_fuzz: the differential fuzzer. Random products through the public API
 * (one-shot row-major and strided calls, plans with concrete and symbolic n),
 * on random shapes, strides and values, valid calls and invalid ones; every
 * result compared with the naive reference, every refusal checked to leave C
 * untouched, on 1 to 4 threads (every product split over them, however small).
 * Each contender runs the same sequence of cases in a child
 * process of its own (the library reads QMM_KERNEL once): the selector's
 * choice, then every kernel this CPU supports, forced.
 *
 *   test_fuzz [--seed S] [--kernel NAME|auto] [--case I]
 *
 * QMM_FUZZ_SECONDS (default 20) is the time of the whole run, shared by the
 * contenders; each runs at least MIN_CASES cases. A failure prints the case
 * and the command that runs it again alone: --case I with its --kernel.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compute/partition.h"
#include "fuzz_case.h"
#include "fuzz_check.h"
#include "support/testlib.h"

enum {
    MIN_CASES = 20,          /* per contender, whatever the time */
    MAX_FAILED_CASES = 5,    /* a contender stops after so many */
    HANG_SECONDS = 120,      /* past its time, a contender is deemed hung */
    MAX_CONTENDERS = 64,
};

typedef struct options {
    uint64_t seed;
    const char *kernel;      /* "auto" (the selector), a kernel's name, or NULL for all */
    int one_case;
    uint64_t case_index;
    double seconds;
    const char *program;
} options;

/* What a contender's process tells its parent, in memory they share. */
typedef struct progress {
    uint64_t current;        /* the case under way, when in_case */
    int in_case;
    uint64_t cases;
    long failed_cases;
    fuzz_tally tally;
} progress;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void reproduce_line(const options *opt, const char *contender, uint64_t index)
{
    /* Under qemu-user (the aarch64 suite), the emulated CPU matters too. */
    const char *cpu = getenv("QEMU_CPU");
    if (cpu != NULL && cpu[0] == '\0')
        cpu = NULL;
    fprintf(stderr, "  reproduce: %s%s%s%s --seed %llu --kernel %s --case %llu\n",
            cpu != NULL ? "QEMU_CPU=" : "", cpu != NULL ? cpu : "",
            cpu != NULL ? " <emulator> " : "", opt->program, (unsigned long long)opt->seed,
            contender, (unsigned long long)index);
}

static void describe(uint64_t seed, uint64_t index)
{
    char text[512];
    fuzz_case fc = fuzz_case_make(seed, index);
    fuzz_case_describe(&fc, text, sizeof text);
    fprintf(stderr, "  %s\n", text);
}

/* Sets the environment for a contender, before any call into qmm; returns
 * the kernel forced, NULL for the selector. */
static const char *choose_contender(const char *contender)
{
    if (strcmp(contender, "auto") == 0) {
        unsetenv("QMM_KERNEL");
        return NULL;
    }
    setenv("QMM_KERNEL", contender, 1);
    return contender;
}

/* A contender's cases, in its own process, until its deadline. */
static int contender_child(const options *opt, const char *contender, double deadline,
                           progress *pr)
{
    const char *forced = choose_contender(contender);
    for (uint64_t i = 0; pr->failed_cases < MAX_FAILED_CASES; i++) {
        if (i >= MIN_CASES && now() >= deadline)
            break;
        pr->current = i;
        pr->in_case = 1;
        fuzz_case fc = fuzz_case_make(opt->seed, i);
        if (fuzz_case_check(&fc, forced, &pr->tally) != 0) {
            fprintf(stderr, "FAILED under %s:\n", contender);
            describe(opt->seed, i);
            reproduce_line(opt, contender, i);
            pr->failed_cases++;
        }
        pr->in_case = 0;
        pr->cases = i + 1;
    }
    return pr->failed_cases != 0;
}

/* Waits for a contender; kills it once it is HANG_SECONDS past its deadline.
 * Returns whether it ended by itself with status 0. */
static int wait_contender(pid_t pid, double deadline, const char *contender)
{
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
        if (now() > deadline + HANG_SECONDS) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "FAILED: %s hung (killed %d s past its time)\n", contender,
                    HANG_SECONDS);
            return 0;
        }
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
    if (got < 0) {
        perror("test_fuzz: waitpid");
        return 0;
    }
    if (WIFSIGNALED(status))
        fprintf(stderr, "FAILED: %s died of signal %d\n", contender, WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "FAILED: %s exited with status %d\n", contender, WEXITSTATUS(status));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Runs one contender in a child; returns the cases it ran. */
static long run_contender(const options *opt, const char *contender, double seconds,
                          progress *pr)
{
    memset(pr, 0, sizeof *pr);
    double deadline = now() + seconds;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("test_fuzz: fork");
        test_failures++;
        return 0;
    }
    /* exit, not _exit: LeakSanitizer checks at exit. */
    if (pid == 0)
        exit(contender_child(opt, contender, deadline, pr));
    int ok = wait_contender(pid, deadline, contender);
    CHECK(ok, "%s: %ld failed cases of %llu", contender, pr->failed_cases,
          (unsigned long long)pr->cases);
    if (!ok && pr->in_case) {
        fprintf(stderr, "  in case %llu:\n", (unsigned long long)pr->current);
        describe(opt->seed, pr->current);
        reproduce_line(opt, contender, pr->current);
    }
    printf("%-36s %6llu cases: %7ld exact results, %5ld refusals checked\n", contender,
           (unsigned long long)pr->cases, pr->tally.exact_calls, pr->tally.refused_calls);
    return (long)pr->cases;
}

static int usage(void)
{
    fprintf(stderr, "usage: test_fuzz [--seed S] [--kernel NAME|auto] [--case I]\n"
                    "  QMM_FUZZ_SECONDS: the whole run's time (default 20)\n");
    return 2;
}

static int parse_number(const char *text, uint64_t *out)
{
    char *end;
    if (text == NULL || *text == '\0' || *text == '-')
        return 0;
    *out = strtoull(text, &end, 0);
    return *end == '\0';
}

static int parse(int argc, char **argv, options *opt)
{
    *opt = (options){.seed = 1, .seconds = 20, .program = argv[0]};
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--seed") == 0 && parse_number(value, &opt->seed))
            i++;
        else if (strcmp(argv[i], "--case") == 0 && parse_number(value, &opt->case_index))
            opt->one_case = 1, i++;
        else if (strcmp(argv[i], "--kernel") == 0 && value != NULL)
            opt->kernel = value, i++;
        else
            return 0;
    }
    const char *s = getenv("QMM_FUZZ_SECONDS");
    if (s != NULL) {
        char *end;
        opt->seconds = strtod(s, &end);
        if (*end != '\0' || !(opt->seconds >= 0)) {
            fprintf(stderr, "test_fuzz: QMM_FUZZ_SECONDS=\"%s\" is not a number of seconds\n",
                    s);
            return 0;
        }
    }
    return !opt->one_case || opt->kernel != NULL;
}

/* One case, in this process, described first. */
static int run_one_case(const options *opt)
{
    const char *forced = choose_contender(opt->kernel);
    fprintf(stderr, "test_fuzz under %s:\n", opt->kernel);
    describe(opt->seed, opt->case_index);
    fuzz_case fc = fuzz_case_make(opt->seed, opt->case_index);
    fuzz_tally tally = {0};
    fuzz_case_check(&fc, forced, &tally);
    return test_finish("test_fuzz", 1);
}

int main(int argc, char **argv)
{
    options opt;
    if (!parse(argc, argv, &opt))
        return usage();
    qmm_partition_set_small_product(1);
    if (opt.one_case)
        return run_one_case(&opt);

    /* The contenders: the selector, and every kernel supported here. */
    const char *contenders[MAX_CONTENDERS];
    size_t count = 0;
    if (opt.kernel == NULL || strcmp(opt.kernel, "auto") == 0)
        contenders[count++] = "auto";
    for (size_t i = 0; i < qmm_kernel_count() && count < MAX_CONTENDERS; i++) {
        const qmm_kernel_info *k = qmm_kernel_at(i);
        if (k->supported_here && (opt.kernel == NULL || strcmp(opt.kernel, k->name) == 0))
            contenders[count++] = k->name;
    }
    if (count == 0) {
        fprintf(stderr, "test_fuzz: no kernel \"%s\" supported here\n", opt.kernel);
        return 2;
    }
    printf("test_fuzz: seed %llu, %g s over %zu contenders\n", (unsigned long long)opt.seed,
           opt.seconds, count);
    progress *pr = mmap(NULL, sizeof *pr, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (pr == MAP_FAILED) {
        perror("test_fuzz: mmap");
        return 1;
    }
    long cases = 0;
    for (size_t i = 0; i < count; i++)
        cases += run_contender(&opt, contenders[i], opt.seconds / (double)count, pr);
    munmap(pr, sizeof *pr);
    return test_finish("test_fuzz", cases);
}
