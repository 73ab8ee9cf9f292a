/*
 * AMX's permission, checked by the OS itself: the library may execute a tile
 * instruction only on a CPU with AMX, and only after Linux granted the process
 * tile data (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), asked once
 * by platform/cpu_x86_64.c). Linux answers a tile instruction without that
 * permission with SIGILL, as a CPU without AMX does, so a process that
 * survives its products ran none. One mode per process, as the library
 * detects features once:
 *
 *   test_amx_permission refused   a seccomp filter traps every request; the
 *       SIGSYS handler counts it and makes it fail with EPERM. The library
 *       must ask exactly once where the CPU has AMX (read here, apart from the
 *       library) and never elsewhere, say why under QMM_VERBOSE, keep every
 *       other feature, report the AMX kernel unsupported, and compute every
 *       product exactly, selected or forced, on 1 and 2 threads.
 *   test_amx_permission disabled  the same filter, with QMM_DISABLE set by
 *       the caller. AMX is in effect only with the tiers below it (avx2 <
 *       avx512vnni < amx): naming amx or a tier below it means not a single
 *       request; naming anything else (fma) leaves the request, refused as
 *       above. Either way the other features follow the tiers, QMM_VERBOSE
 *       says why AMX is not in effect, and the AMX kernel is unsupported.
 *   test_amx_permission granted   no filter: where the CPU has AMX, the
 *       process holds no tile data before its first call and holds it after,
 *       and the AMX kernel is supported and exact; elsewhere the kernel is
 *       unsupported, never selected, and no tile data is held.
 *   test_amx_permission sigill    the negative control: the AMX kernel's own
 *       code, run in a child before anything was detected, dies of SIGILL on
 *       every CPU (no AMX: an unknown instruction; AMX: no permission yet), so
 *       the modes above would see a tile instruction if one ran.
 */
#define _GNU_SOURCE /* REG_RAX, syscall */
#include <asm/prctl.h>
#include <cpuid.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "cpuinfo_x86.h"

#include "compute/gemm.h"
#include "compute/partition.h"
#include "dispatch/choose.h"
#include "dispatch/registry.h"
#include "platform/cpu.h"
#include "support/testlib.h"

/* The state component of tile data (Linux's xfeatures; no header has it). */
enum { XFEATURE_XTILEDATA = 18 };

static const char amx_name[] = "x86_64_mmm_i8i32_32x32_amx";

static long checks;

/* ---- what the CPU and the OS say, apart from the library ----------------- */

/* The x86 tiers as cpu_features reports them: AVX2, AVX-512 F/BW/VL/VNNI,
 * and AMX-TILE with AMX-INT8 (only when XCR0 enables tile state) with CPUID
 * leaf 0x1D's palette 1. */
typedef struct x86_tiers {
    int avx2, vnni, amx;
} x86_tiers;

static x86_tiers cpu_tiers(void)
{
    const X86Info info = GetX86Info();
    const X86Features f = info.features;
    unsigned palettes = 0, ebx, ecx, edx;
    if (__get_cpuid_max(0, NULL) >= 0x1d)
        __cpuid_count(0x1d, 0, palettes, ebx, ecx, edx);
    const x86_tiers t = {
        f.avx2 != 0,
        f.avx512f != 0 && f.avx512bw != 0 && f.avx512vl != 0 && f.avx512vnni != 0,
        f.amx_tile != 0 && f.amx_int8 != 0 && palettes >= 1,
    };
    return t;
}

/* AMX is in effect only with the tiers below it, avx2 < avx512vnni < amx
 * (stated here apart from the library's table): whether tile data is to be
 * asked for, with the features in `off` switched off. */
static int amx_wanted(unsigned off)
{
    const x86_tiers t = cpu_tiers();
    return t.avx2 && t.vnni && t.amx &&
           !(off & (QMM_CPU_AVX2 | QMM_CPU_AVX512VNNI | QMM_CPU_AMX));
}

/* The features in effect with `off` switched off and tile data refused: the
 * hardware's less `off`, less each tier above one missing, less AMX. */
static unsigned expected_features(unsigned off)
{
    unsigned f = qmm_cpu_detect_hardware() & ~off;
    if (!(f & QMM_CPU_AVX2))
        f &= ~QMM_CPU_AVX512VNNI;
    return f & ~QMM_CPU_AMX;
}

/* What QMM_VERBOSE's amx line says with `off` switched off, under the filter. */
static const char *amx_said(unsigned off, char *buf, size_t size)
{
    const x86_tiers t = cpu_tiers();
    const char *vnni = !t.vnni                           ? "absent"
                       : (off & QMM_CPU_AVX512VNNI)        ? "disabled by environment"
                       : !t.avx2 || (off & QMM_CPU_AVX2)   ? "not in effect"
                                                           : NULL;
    if (!t.amx)
        return "absent";
    if (off & QMM_CPU_AMX)
        return "disabled by environment";
    if (vnni == NULL)
        return "present, not in effect: refused by the OS (said above)";
    snprintf(buf, size, "present, not in effect: needs avx512vnni (%s)", vnni);
    return buf;
}

/* Whether this process holds tile data: ARCH_GET_XCOMP_PERM's mask (a
 * kernel before 5.16 knows no such request, and grants none). */
static int tile_data_granted(void)
{
    unsigned long long mask = 0;
    return syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask) == 0 &&
           (mask >> XFEATURE_XTILEDATA & 1) != 0;
}

/* ---- the filter that refuses the permission ----------------------------- */

static atomic_int requests;

/* SIGSYS from the filter's trap: the request is counted and fails with
 * EPERM, as a kernel or a container's own filter refusing it answers. */
static void refuse(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)info;
    atomic_fetch_add(&requests, 1);
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

/* Traps arch_prctl(ARCH_REQ_XCOMP_PERM, ...) on every thread of the process,
 * those a run-time started before main included (TSYNC), and on those
 * started later. Only the first argument's low 32 bits are compared: the
 * kernel reads an int. A call of another ABI, whose numbers name other
 * calls, ends the process: the library makes none. */
static void install_filter(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_REQ_XCOMP_PERM, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
    struct sigaction sa = {.sa_sigaction = refuse, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        perror("test_amx_permission: installing the seccomp filter");
        exit(1);
    }
}

/* ---- products ------------------------------------------------------------ */

/* m, n, k: whole AMX tiles, edges in every direction, a single row, a GEMV.
 * A is row-major with lda == k, so kernels that can read it in place do. */
static const size_t shapes[][3] = {
    {64, 64, 64}, {33, 65, 130}, {1, 64, 300}, {100, 1, 70}, {7, 5, 3},
};

/* One product, on the kernel forced or (NULL) through the public call,
 * against the reference. */
static void product_exact(const qmm_kernel *forced, const size_t *shape, size_t threads)
{
    const size_t m = shape[0], n = shape[1], k = shape[2];
    test_matrix a = test_matrix_new(m, k, 1, LAYOUT_ROW, 0);
    test_matrix b = test_matrix_new(k, n, 1, LAYOUT_ROW, 0);
    test_matrix c = test_matrix_new(m, n, 4, LAYOUT_ROW, 0);
    test_matrix_fill_random_i8(&a);
    test_matrix_fill_random_i8(&b);
    int32_t *ref = malloc(m * n * sizeof *ref);
    if (ref == NULL)
        abort();
    test_reference(&a, &b, ref);
    qmm_status st =
        forced != NULL
            ? qmm_product(forced, m, n, k, a.base, a.rs, a.cs, b.base, b.rs, b.cs, c.base, c.rs,
                          c.cs)
            : qmm_i8_i32(m, n, k, a.base, k, b.base, n, c.base, n);
    char label[128];
    snprintf(label, sizeof label, "%s %zux%zux%zu on %zu thread(s)",
             forced != NULL ? forced->name : "selected", m, n, k, threads);
    CHECK(st == QMM_OK, "%s: %s", label, qmm_status_str(st));
    if (st == QMM_OK)
        test_compare(label, &c, ref);
    checks++;
    free(ref);
    test_matrix_free(&a);
    test_matrix_free(&b);
    test_matrix_free(&c);
}

/* Every shape on the selected kernels and on each kernel supported here, on
 * one thread, then on two with every product split (the small-product
 * threshold lowered): a tile instruction on any thread ends the process. */
static void products(void)
{
    for (size_t threads = 1; threads <= 2; threads++) {
        CHECK(qmm_set_num_threads(threads) == QMM_OK, "%zu threads refused", threads);
        qmm_partition_set_small_product(threads == 1 ? 0 : 1);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            product_exact(NULL, shapes[s], threads);
            for (size_t i = 0; i < qmm_registry_count(); i++)
                if (qmm_registry_at(i)->is_supported_here())
                    product_exact(qmm_registry_at(i), shapes[s], threads);
        }
    }
    qmm_partition_set_small_product(0);
    qmm_set_num_threads(0);
}

/* ---- the AMX kernel ------------------------------------------------------ */

/* Its descriptor, found without detecting anything. */
static const qmm_kernel *amx_kernel(void)
{
    const qmm_kernel *amx = qmm_registry_find(amx_name);
    CHECK(amx != NULL && amx->begin != NULL && amx->end != NULL,
          "%s is not in the registry with its job hooks", amx_name);
    return amx;
}

/* Its index in the public list. */
static size_t public_index(void)
{
    size_t i = 0;
    while (i < qmm_kernel_count() && strcmp(qmm_kernel_at(i)->name, amx_name) != 0)
        i++;
    return i;
}

/* No shape gets it, from a plan's choice or a one-shot call's. */
static void never_chosen(const qmm_kernel *amx)
{
    static const size_t ms[] = {1, 2, 31, 32, 33, 64, 1000};
    static const size_t ns[] = {1, 2, 32, 33, 1000, QMM_SYMBOLIC};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            const qmm_kernel *k = NULL;
            int transposed;
            CHECK(qmm_choose_kernel(ms[i], ns[j], &k) == QMM_OK && k != amx,
                  "a plan for m=%zu n=%zu runs %s", ms[i], ns[j], k ? k->name : "nothing");
            CHECK(ns[j] == QMM_SYMBOLIC ||
                      (qmm_choose_for_call(ms[i], ns[j], &k, &transposed) == QMM_OK && k != amx),
                  "a one-shot call for m=%zu n=%zu runs %s", ms[i], ns[j],
                  k ? k->name : "nothing");
            checks++;
        }
}

/* The AMX kernel cannot run: unsupported in the registry and in the public
 * list, refused by name (what QMM_KERNEL gets), never selected. */
static void amx_unsupported(void)
{
    const qmm_kernel *amx = amx_kernel(), *k;
    const size_t i = public_index();
    if (amx == NULL || i == qmm_kernel_count())
        return;
    CHECK(!amx->is_supported_here() && !qmm_kernel_at(i)->supported_here,
          "%s is supported here", amx_name);
    CHECK(qmm_kernel_by_name(amx_name, &k) == QMM_ERR_UNSUPPORTED, "%s forced by name is not refused",
          amx_name);
    checks += 2;
    never_chosen(amx);
}

/* Refused or disabled, AMX is gone, and the other features follow the tiers
 * from what is disabled. */
static void features_without_amx(unsigned off)
{
    const unsigned got = qmm_cpu_features(), want = expected_features(off);
    CHECK(got == want, "features 0x%x in effect, hardware 0x%x, expected 0x%x", got,
          qmm_cpu_detect_hardware(), want);
    checks++;
    amx_unsupported();
}

/* ---- the modes ----------------------------------------------------------- */

/* In a child, so that this process detects on its own afterwards: the
 * detection under QMM_VERBOSE=1, with `off` switched off, says why AMX is not
 * in effect, and names the failed request exactly when tile data was asked
 * for. */
static void amx_line_said(unsigned off)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        checks = 0;
        setenv("QMM_VERBOSE", "1", 1);
        FILE *log = tmpfile();
        const int saved = dup(STDERR_FILENO);
        if (log == NULL || saved < 0 || dup2(fileno(log), STDERR_FILENO) < 0)
            _exit(2);
        qmm_cpu_features();
        dup2(saved, STDERR_FILENO);
        char text[4096], buf[128];
        rewind(log);
        text[fread(text, 1, sizeof text - 1, log)] = '\0';
        const char *want = amx_said(off, buf, sizeof buf);
        const int asked = amx_wanted(off);
        CHECK(test_feature_said(text, "amx", want) &&
                  (strstr(text, "ARCH_REQ_XCOMP_PERM") != NULL) == asked,
              "QMM_VERBOSE=1 said, where amx should say \"%s\" and tile data %s asked for:\n%s",
              want, asked ? "be" : "not be", text);
        checks++;
        const int rc = test_finish("QMM_VERBOSE=1", checks);
        fflush(stdout);
        _exit(rc);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "the QMM_VERBOSE child failed (status %d)", status);
    checks++;
}

/* Under the filter, with `off` switched off: the request made exactly once
 * where AMX stays in effect (refused, then), never elsewhere. */
static void under_filter(unsigned off)
{
    install_filter();
    const int asked = amx_wanted(off);
    printf("tile data to be asked for %s\n", asked ? "once" : "never");
    amx_line_said(off);
    features_without_amx(off);
    products();
    CHECK(atomic_load(&requests) == asked, "%d tile data request(s), expected %d",
          atomic_load(&requests), asked);
    checks++;
}

static void refused(void)
{
    under_filter(0);
}

static void disabled(void)
{
    const char *off = getenv("QMM_DISABLE");
    unsigned bits = 0;
    char unknown[32];
    CHECK(off != NULL && qmm_cpu_parse_feature_list(off, &bits, unknown, sizeof unknown) == 0 &&
              bits != 0,
          "QMM_DISABLE must name features (the caller sets it)");
    under_filter(bits);
}

static void granted(void)
{
    const int amx = amx_wanted(0);
    const qmm_kernel *kern = amx_kernel();
    printf("granted: CPU %s AMX\n", amx ? "with" : "without");
    CHECK(!tile_data_granted(), "tile data held before the library asked");
    const size_t i = public_index(); /* the first call: it detects */
    CHECK(i < qmm_kernel_count(), "%s is not in the public list", amx_name);
    CHECK(tile_data_granted() == amx, "%s",
          amx ? "tile data not granted after the first call (refused by this OS, or by a "
                "filter around the test?)"
              : "tile data held on a CPU without AMX");
    checks += 3;
    if (amx && kern != NULL && i < qmm_kernel_count()) {
        CHECK(kern->is_supported_here() && qmm_kernel_at(i)->supported_here,
              "%s unsupported on a CPU with AMX", amx_name);
        checks++;
    } else {
        amx_unsupported();
    }
    products();
}

/* The AMX kernel's code as a job runs it, begin, one tile, end, on zero
 * panels of depth 64, in a child that must die of SIGILL. */
static void sigill(void)
{
    const qmm_kernel *amx = amx_kernel();
    if (amx == NULL)
        return;
    enum { KP = 64 };
    void *a = calloc((size_t)amx->mr * KP, 1), *b = calloc((size_t)amx->nr * KP, 1);
    int32_t *c = calloc((size_t)amx->mr * amx->nr, sizeof *c);
    if (a == NULL || b == NULL || c == NULL)
        abort();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        const struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* the death is expected: no core file */
        amx->begin();
        amx->run(KP, a, b, c, amx->nr, 1);
        amx->end();
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
              WTERMSIG(status) == SIGILL,
          "the AMX kernel run before any permission did not die of SIGILL (status 0x%x): "
          "the other modes could not see a tile instruction", status);
    checks++;
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = {
        {"refused", refused},
        {"disabled", disabled},
        {"granted", granted},
        {"sigill", sigill},
    };
    test_seed(0x616d7870);
    for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i].name) == 0) {
            modes[i].run();
            return test_finish(argv[1], checks);
        }
    fprintf(stderr, "usage: test_amx_permission refused|disabled|granted|sigill\n");
    return 2;
}
