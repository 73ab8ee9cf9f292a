/*
 * libicount: a QEMU TCG plugin that counts executed guest instructions.
 *
 *   qemu-aarch64 -plugin ./libicount.so[,mode=tb|insn|sym] -d plugin -D log.txt prog args
 *
 * At exit it writes one line to the plugin log (only with -d plugin):
 *
 *   icount insns=<decimal> mode=<tb|insn|sym>
 *
 * mode=tb (default) adds a translation block's instruction count each time the
 * block starts; it is exact as long as no block is left halfway, which in user
 * mode only a fault or a signal in the middle of a block does. mode=insn adds 1
 * per executed instruction, exact in every case and several times slower; the
 * plugin test checks that both agree.
 *
 * mode=sym counts as mode=tb does, per function: a block's instructions go to
 * the symbol of its first instruction (blocks end at branches, so a block
 * holds one function's code unless a function falls through into the next).
 * Before the total line it writes, for each symbol that ran,
 *
 *   icount-sym <decimal> <symbol>
 *
 * QEMU knows the function symbols (.symtab) of the program and of its ELF
 * interpreter only, and only when it logs (-d plugin): code without one, that
 * of the shared libraries and the PLT stubs, goes to its file's name in
 * brackets, e.g. [libc.so.6], or to [?] when no file is mapped there.
 *
 * Built for the host against the plugin API version 2 of QEMU 9.0 and later
 * (QEMU 10 accepts versions 2 to 4; version 1, QEMU 7.2's, is gone): inline
 * adds to a scoreboard entry per vCPU, summed at exit, so the counts of a
 * guest's threads are exact too. No qemu-plugin.h is installed with QEMU
 * (scripts/deps.sh builds qemu-aarch64 alone), so the few types and functions
 * used here are declared below, as in QEMU 10's include/qemu/qemu-plugin.h.
 */
#define _POSIX_C_SOURCE 200809L  /* strdup */

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* ---- QEMU plugin API, version 2 (QEMU 10 include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_op {
    QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
struct qemu_plugin_scoreboard;
typedef struct {
    struct qemu_plugin_scoreboard *score;
    size_t offset;
} qemu_plugin_u64;
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
                                                       enum qemu_plugin_op op,
                                                       qemu_plugin_u64 entry, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(struct qemu_plugin_insn *insn,
                                                         enum qemu_plugin_op op,
                                                         qemu_plugin_u64 entry, uint64_t imm);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);
/* ---- end of the API ---- */

/* The plugin API version this plugin was written against; QEMU refuses
 * plugins whose version is outside [min, cur] of its own. */
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 2;

enum mode { MODE_TB, MODE_INSN, MODE_SYM };
static const char *const mode_args[] = {"mode=tb", "mode=insn", "mode=sym"};
#define MODES (sizeof mode_args / sizeof *mode_args)
static enum mode mode = MODE_TB;

static qemu_plugin_u64 insns;  /* one uint64_t per vCPU; tb and insn modes */

/* mode=sym: a scoreboard per symbol, found by name in an open-addressing
 * table that doubles when half full. Translation may run on several vCPU
 * threads, hence the lock; execution only adds inline. */
typedef struct {
    char *name;
    qemu_plugin_u64 count;
} symbol;
static symbol *symbols;
static size_t symbols_size, symbols_used;
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t name_hash(const char *s)
{
    size_t h = 14695981039346656037u;  /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static symbol *symbol_slot(symbol *table, size_t size, const char *name)
{
    size_t i = name_hash(name) & (size - 1);
    while (table[i].name && strcmp(table[i].name, name) != 0)
        i = (i + 1) & (size - 1);
    return &table[i];
}

/* The counter of name, made on first sight; the caller holds the lock. */
static qemu_plugin_u64 symbol_count(const char *name)
{
    if (2 * (symbols_used + 1) > symbols_size) {
        size_t size = symbols_size ? 2 * symbols_size : 256;
        symbol *table = calloc(size, sizeof *table);
        if (!table)
            abort();
        for (size_t i = 0; i < symbols_size; i++)
            if (symbols[i].name)
                *symbol_slot(table, size, symbols[i].name) = symbols[i];
        free(symbols);
        symbols = table, symbols_size = size;
    }
    symbol *s = symbol_slot(symbols, symbols_size, name);
    if (!s->name) {
        s->name = strdup(name);
        if (!s->name)
            abort();
        s->count = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
        symbols_used++;
    }
    return s->count;
}

/* "[file]" for code without a symbol: the name of the file that QEMU's
 * host mapping of the guest code at haddr maps, as the guest mapped it
 * there. The caller holds the lock. */
static const char *mapped_file(const void *haddr)
{
    static char name[256];
    uintptr_t a = (uintptr_t)haddr;
    snprintf(name, sizeof name, "[?]");
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return name;
    char line[4096];
    while (fgets(line, sizeof line, maps)) {
        uintptr_t start, end;
        int path = 0;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %n", &start, &end, &path) < 2 ||
            a < start || a >= end)
            continue;
        line[strcspn(line, "\n")] = '\0';
        const char *slash = strrchr(line + path, '/');
        if (slash)
            snprintf(name, sizeof name, "[%.250s]", slash + 1);
        break;
    }
    fclose(maps);
    return name;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    switch (mode) {
    case MODE_TB:
        qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, insns, n);
        break;
    case MODE_INSN:
        for (size_t i = 0; i < n; i++)
            qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
                qemu_plugin_tb_get_insn(tb, i), QEMU_PLUGIN_INLINE_ADD_U64, insns, 1);
        break;
    case MODE_SYM: {
        struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);
        const char *name = qemu_plugin_insn_symbol(first);
        pthread_mutex_lock(&symbols_lock);
        if (!name)
            name = mapped_file(qemu_plugin_insn_haddr(first));
        qemu_plugin_u64 count = symbol_count(name);
        pthread_mutex_unlock(&symbols_lock);
        qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, count, n);
        break;
    }
    }
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    uint64_t total = 0;
    if (mode == MODE_SYM) {
        for (size_t i = 0; i < symbols_size; i++) {
            if (!symbols[i].name)
                continue;
            uint64_t n = qemu_plugin_u64_sum(symbols[i].count);
            char line[320];
            snprintf(line, sizeof line, "icount-sym %" PRIu64 " %.290s\n", n, symbols[i].name);
            qemu_plugin_outs(line);
            total += n;
        }
    } else {
        total = qemu_plugin_u64_sum(insns);
    }
    char line[64];
    snprintf(line, sizeof line, "icount insns=%" PRIu64 " %s\n", total, mode_args[mode]);
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        size_t m = 0;
        while (m < MODES && strcmp(argv[i], mode_args[m]) != 0)
            m++;
        if (m == MODES) {
            fprintf(stderr, "libicount: unknown argument '%s' (mode=tb, mode=insn or mode=sym)\n",
                    argv[i]);
            return 1;
        }
        mode = (enum mode)m;
    }
    insns = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
