#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/testlib.h"
#include "test_amx_model.h"
#include "tile_model.h"

/* The configuration of a product tmm2 += tmm0 . tmm1, shapes as given. */
static void configure(unsigned c_rows, unsigned c_colsb, unsigned a_rows, unsigned a_colsb,
                      unsigned b_rows, unsigned b_colsb)
{
    const unsigned rows[] = {a_rows, b_rows, c_rows}, colsb[] = {a_colsb, b_colsb, c_colsb};
    uint8_t config[64] = {1};
    for (int t = 0; t < 3; t++) {
        config[16 + 2 * t] = (uint8_t)colsb[t];
        config[48 + t] = (uint8_t)rows[t];
    }
    tile_model_loadconfig(config);
}

/* ldtilecfg on a valid configuration of 16 x 64 tmm0 with one byte changed. */
static void config_with(unsigned byte, uint8_t value)
{
    uint8_t config[64] = {1};
    config[16] = 64;
    config[48] = 16;
    config[byte] = value;
    tile_model_loadconfig(config);
}

static void palette_2(void)
{
    config_with(0, 2);
}

static void start_row(void)
{
    config_with(1, 3);
}

static void reserved_low(void)
{
    config_with(9, 1);
}

static void reserved_middle(void)
{
    config_with(40, 1);
}

static void reserved_high(void)
{
    config_with(63, 0x80);
}

static void rows_17(void)
{
    config_with(48, 17);
}

static void colsb_65(void)
{
    config_with(16, 65);
}

static void rows_without_colsb(void)
{
    config_with(49, 4);
}

static void colsb_without_rows(void)
{
    config_with(18, 4);
}

static int8_t memory[16 * 64];

static void load_unconfigured(void)
{
    tile_model_loadd(0, memory, 64);
}

static void load_unused_tile(void)
{
    configure(16, 64, 16, 64, 16, 64);
    tile_model_loadd(3, memory, 64);
}

static void store_unused_tile(void)
{
    configure(16, 64, 16, 64, 16, 64);
    tile_model_stored(5, memory, 64);
}

static void zero_after_release(void)
{
    configure(16, 64, 16, 64, 16, 64);
    tile_model_release();
    tile_model_zero(0);
}

static void dpbssd_dst_is_a(void)
{
    configure(16, 64, 16, 64, 16, 64);
    tile_model_dpbssd(0, 0, 1);
}

static void dpbssd_a_is_b(void)
{
    configure(16, 64, 16, 64, 16, 64);
    tile_model_dpbssd(2, 1, 1);
}

static void dpbssd_columns(void)
{
    configure(16, 64, 16, 64, 16, 60);
    tile_model_dpbssd(2, 0, 1);
}

static void dpbssd_rows(void)
{
    configure(15, 64, 16, 64, 16, 64);
    tile_model_dpbssd(2, 0, 1);
}

static void dpbssd_depth(void)
{
    configure(16, 64, 16, 60, 16, 64);
    tile_model_dpbssd(2, 0, 1);
}

static void dpbssd_partial_dword(void)
{
    configure(16, 62, 16, 64, 16, 62);
    tile_model_dpbssd(2, 0, 1);
}

static void dpbssd_unconfigured(void)
{
    tile_model_dpbssd(2, 0, 1);
}

typedef struct fault_case {
    const char *name;
    void (*run)(void);
    const char *says;  /* the start of the model's message */
} fault_case;

#define GP_LDTILECFG "tile model: #GP in ldtilecfg: "
#define UD_IN(instruction) "tile model: #UD in " instruction ": "
static const fault_case cases[] = {
    {"palette 2", palette_2, GP_LDTILECFG "palette 2"},
    {"start_row", start_row, GP_LDTILECFG "start_row 3"},
    {"reserved byte 9", reserved_low, GP_LDTILECFG "reserved byte 9"},
    {"reserved byte 40", reserved_middle, GP_LDTILECFG "reserved byte 40"},
    {"reserved byte 63", reserved_high, GP_LDTILECFG "reserved byte 63"},
    {"17 rows", rows_17, GP_LDTILECFG "tmm0 has 17 rows"},
    {"65 bytes per row", colsb_65, GP_LDTILECFG "tmm0 has 65 bytes per row"},
    {"rows without bytes", rows_without_colsb, GP_LDTILECFG "tmm1 has 4 rows of 0 bytes"},
    {"bytes without rows", colsb_without_rows, GP_LDTILECFG "tmm1 has 0 rows of 4 bytes"},
    {"tileloadd unconfigured", load_unconfigured, UD_IN("tileloadd") "tiles not configured"},
    {"tileloadd unused tile", load_unused_tile, UD_IN("tileloadd") "tmm3 is unused"},
    {"tilestored unused tile", store_unused_tile, UD_IN("tilestored") "tmm5 is unused"},
    {"tilezero released", zero_after_release, UD_IN("tilezero") "tiles not configured"},
    {"tdpbssd dst == a", dpbssd_dst_is_a, UD_IN("tdpbssd") "tmm0, tmm0, tmm1"},
    {"tdpbssd a == b", dpbssd_a_is_b, UD_IN("tdpbssd") "tmm2, tmm1, tmm1"},
    {"tdpbssd C and B columns", dpbssd_columns,
     UD_IN("tdpbssd") "tmm2 has 64 bytes per row, tmm1 60"},
    {"tdpbssd C and A rows", dpbssd_rows, UD_IN("tdpbssd") "tmm2 has 15 rows, tmm0 16"},
    {"tdpbssd A columns, B rows", dpbssd_depth,
     UD_IN("tdpbssd") "tmm0 has 15 dwords per row, tmm1 16 rows"},
    {"tdpbssd partial dword", dpbssd_partial_dword, UD_IN("tdpbssd") "bytes per row 62, 64, 62"},
    {"tdpbssd unconfigured", dpbssd_unconfigured, UD_IN("tdpbssd") "tiles not configured"},
};

/* Runs c in a child whose stderr comes back here: it must die of abort()
 * with the expected message. */
static void expect_fault(const fault_case *c)
{
    int pipe_fds[2];
    char said[512] = "";
    fflush(stdout);
    fflush(stderr);
    if (pipe(pipe_fds) != 0) {
        CHECK(0, "%s: no pipe", c->name);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fds[0]);
        dup2(pipe_fds[1], STDERR_FILENO);
        c->run();
        _exit(0);
    }
    close(pipe_fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got < sizeof said - 1 && (n = read(pipe_fds[0], said + got, sizeof said - 1 - got)) > 0)
        got += (size_t)n;
    said[got] = '\0';
    close(pipe_fds[0]);
    int status = 0;
    const int reaped = pid > 0 && waitpid(pid, &status, 0) == pid;
    CHECK(reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
          "%s: the model did not abort (status %d)", c->name, status);
    CHECK(strncmp(said, c->says, strlen(c->says)) == 0, "%s: the model said \"%s\", not \"%s...\"",
          c->name, said, c->says);
}

long model_fault_tests(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_fault(&cases[i]);
    return (long)(sizeof cases / sizeof cases[0]);
}
