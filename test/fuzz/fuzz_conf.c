/*
 * Fuzz target: parameter files (fpga_model/params/conf.c through params.c
 * and host.c) -- the switch model's and the baseline hosts' .conf sets, as
 * a file (mpifpga-sim --params FILE, MPIFPGA_PARAMS) or as `key=value`
 * overrides.  Byte 0 picks the schema (bit 0) and the way in (bit 1); the
 * rest is the text.  The file is a memfd reached as /proc/self/fd/N, so
 * the real loader (fopen) runs and nothing is written to disk.
 *
 * Invariants: a loaded set passes the whole-set check, and printing it
 * and loading the print gives the same set, bit for bit.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "params/host.h"
#include "params/params.h"

typedef union {
    mf_params_t sw;
    mf_host_params_t host;
} any_set_t;

static int conf_fd = -1;
static char conf_path[64];

/* The memfd holds exactly text[0..n). */
static int put_text(const char *text, size_t n)
{
    if (conf_fd < 0) {
        conf_fd = memfd_create("mf_fuzz_conf", MFD_CLOEXEC);
        FUZZ_CHECK(conf_fd >= 0, "memfd_create for the parameter file");
        snprintf(conf_path, sizeof conf_path, "/proc/self/fd/%d", conf_fd);
    }
    return ftruncate(conf_fd, 0) == 0 && pwrite(conf_fd, text, n, 0) == (ssize_t)n ? 0 : -1;
}

static int load(int host, any_set_t *s, char *err, size_t len)
{
    memset(s, 0, sizeof *s);
    return host ? mf_host_params_load(conf_path, &s->host, err, len)
                : mf_params_load(conf_path, &s->sw, err, len);
}

/* A valid set printed and loaded again is the same set. */
static void print_reload(int host, const any_set_t *s)
{
    char *text = NULL, err[1024];
    size_t n = 0;
    any_set_t again;
    FILE *f = open_memstream(&text, &n);
    FUZZ_CHECK(f != NULL, "open_memstream");
    if (host)
        mf_host_params_print(&s->host, f);
    else
        mf_params_print(&s->sw, f);
    FUZZ_CHECK(fclose(f) == 0, "printing the set");
    FUZZ_CHECK(put_text(text, n) == 0, "writing the printed set");
    if (load(host, &again, err, sizeof err)) {
        fprintf(stderr, "printed set:\n%s\nreload: %s\n", text, err);
        FUZZ_CHECK(0, "a printed set loads again");
    }
    free(text);
    size_t size = host ? sizeof s->host : sizeof s->sw;
    FUZZ_CHECK(memcmp(&again, s, size) == 0, "print + load gives the same set");
}

/* Each line of text as one "key=value" override of the built-in base set. */
static int overrides(int host, char *text, any_set_t *s)
{
    char err[1024];
    memset(s, 0, sizeof *s);
    int rc = host ? mf_host_params_load("skx-opa", &s->host, err, sizeof err)
                  : mf_params_load("u280", &s->sw, err, sizeof err);
    FUZZ_CHECK(rc == 0, "the built-in base set loads");
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        (void)(host ? mf_host_params_set(&s->host, line, NULL, err, sizeof err)
                    : mf_params_set(&s->sw, line, NULL, err, sizeof err));
    return host ? mf_host_params_check(&s->host, err, sizeof err)
                : mf_params_check(&s->sw, err, sizeof err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 16384)
        return 0;
    int host = data[0] & 1, as_overrides = data[0] & 2;
    char *text = malloc(size);
    char err[1024];
    any_set_t s;
    FUZZ_CHECK(text != NULL, "malloc");
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    int rc;
    if (as_overrides) {
        rc = overrides(host, text, &s);
    } else {
        FUZZ_CHECK(put_text((const char *)data + 1, size - 1) == 0, "writing the parameter file");
        rc = load(host, &s, err, sizeof err);
        FUZZ_CHECK(rc != 0 || (host ? mf_host_params_check(&s.host, err, sizeof err)
                                    : mf_params_check(&s.sw, err, sizeof err)) == 0,
                   "a loaded set passes the whole-set check");
    }
    if (rc == 0)
        print_reload(host, &s);
    free(text);
    return 0;
}
