/*
 * libicount: a QEMU TCG plugin that counts executed guest instructions.
 *
 *   qemu-aarch64 -plugin ./libicount.so[,mode=tb|insn] -d plugin -D log.txt prog args
 *
 * At exit it writes one line to the plugin log (only with -d plugin):
 *
 *   icount insns=<decimal> mode=<tb|insn>
 *
 * mode=tb (default) adds a translation block's instruction count each time the
 * block starts; it is exact as long as no block is left halfway, which in user
 * mode only a fault or a signal in the middle of a block does. mode=insn adds 1
 * per executed instruction, exact in every case and several times slower; the
 * plugin test checks that both agree.
 *
 * Built for the host against the plugin API version 2 of QEMU 9.0 and later
 * (QEMU 10 accepts versions 2 to 4; version 1, QEMU 7.2's, is gone): inline
 * adds to a scoreboard entry per vCPU, summed at exit, so the counts of a
 * guest's threads are exact too. No qemu-plugin.h is installed with QEMU
 * (scripts/deps.sh builds qemu-aarch64 alone), so the few types and functions
 * used here are declared below, as in QEMU 10's include/qemu/qemu-plugin.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);
/* ---- end of the API ---- */

/* The plugin API version this plugin was written against; QEMU refuses
 * plugins whose version is outside [min, cur] of its own. */
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 2;

static qemu_plugin_u64 insns;  /* one uint64_t per vCPU */
static bool per_insn;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (!per_insn) {
        qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, insns, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
            qemu_plugin_tb_get_insn(tb, i), QEMU_PLUGIN_INLINE_ADD_U64, insns, 1);
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    char line[64];
    snprintf(line, sizeof line, "icount insns=%" PRIu64 " mode=%s\n", qemu_plugin_u64_sum(insns),
             per_insn ? "insn" : "tb");
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "mode=insn") == 0) {
            per_insn = true;
        } else if (strcmp(argv[i], "mode=tb") == 0) {
            per_insn = false;
        } else {
            fprintf(stderr, "libicount: unknown argument '%s' (mode=tb or mode=insn)\n",
                    argv[i]);
            return 1;
        }
    }
    insns = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
