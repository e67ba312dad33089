/* Starting mpifpga-switchd from rank 0 (engine_spawn.h). */
#define _GNU_SOURCE
#include "device/engine_spawn.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The engine program: MPIFPGA_SWITCHD, else next to this library (build
 * tree: .libs/../mpifpga-switchd; installed: lib/../bin/), else PATH. */
static void find_switchd(const mf_config_t *cfg, char *path, size_t len)
{
    Dl_info info;
    if (strcmp(cfg->switchd, "auto")) {
        snprintf(path, len, "%s", cfg->switchd);
        return;
    }
    if (dladdr((void *)find_switchd, &info) && info.dli_fname) {
        char lib[512];
        snprintf(lib, sizeof lib, "%s", info.dli_fname);
        const char *dir = dirname(lib);
        const char *cand[] = {"../mpifpga-switchd", "../bin/mpifpga-switchd", "mpifpga-switchd"};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
            snprintf(path, len, "%s/%s", dir, cand[i]);
            if (access(path, X_OK) == 0)
                return;
        }
    }
    snprintf(path, len, "mpifpga-switchd");
}

static int read_addr(const char *file, char *addr, size_t len)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    int ok = fgets(addr, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    addr[strcspn(addr, "\r\n")] = 0;
    return addr[0] ? 0 : -1;
}

/* Poll for the address file while the engine runs (it appears atomically). */
static int wait_addr(pid_t pid, const char *file, int timeout_s, char *addr, size_t len,
                     char *err, size_t errlen)
{
    for (int ms = 0; ms < timeout_s * 1000; ms += 20) {
        int st;
        if (read_addr(file, addr, len) == 0)
            return 0;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            snprintf(err, errlen, "the switch engine exited at start-up (%s %d); its message is "
                     "above", WIFEXITED(st) ? "status" : "signal",
                     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            return -1;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGTERM);
    snprintf(err, errlen, "the switch engine did not publish its address within %d s "
             "(MPIFPGA_CONNECT_TIMEOUT)", timeout_s);
    return -1;
}

int mf_engine_spawn(const mf_config_t *cfg, int nranks, const char *prov, mf_engine_loc_t *loc,
                    char *err, size_t errlen)
{
    char prog[600], dir[] = "/tmp/mpifpga-XXXXXX", file[64], nr[16], ppn[16], watch[16];
    find_switchd(cfg, prog, sizeof prog);
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a directory in /tmp for the engine address: %s",
                 strerror(errno));
        return -1;
    }
    snprintf(file, sizeof file, "%s/addr", dir);
    snprintf(nr, sizeof nr, "%d", nranks);
    snprintf(ppn, sizeof ppn, "%d", cfg->ppn);
    snprintf(watch, sizeof watch, "%d", (int)getpid());
    char *argv[20];
    int a = 0;
    argv[a++] = prog;
    argv[a++] = "--nranks", argv[a++] = nr;
    argv[a++] = "--ppn", argv[a++] = ppn;
    argv[a++] = "--params", argv[a++] = (char *)cfg->params;
    argv[a++] = "--provider", argv[a++] = (char *)prov;
    argv[a++] = "--addr-file", argv[a++] = file;
    argv[a++] = "--watch-pid", argv[a++] = watch;
    if (cfg->verbose < 2)
        argv[a++] = "--quiet";
    if (strcmp(cfg->topology, "auto"))
        argv[a++] = "--topology", argv[a++] = (char *)cfg->topology;
    argv[a] = NULL;
    pid_t pid;
    int rc = posix_spawnp(&pid, prog, NULL, NULL, argv, environ);
    if (rc) {
        snprintf(err, errlen, "cannot start the switch engine '%s': %s; set MPIFPGA_SWITCHD to "
                 "its path, or run through mpifpga-run", prog, strerror(rc));
        rmdir(dir);
        return -1;
    }
    rc = wait_addr(pid, file, cfg->connect_timeout, loc->addr, sizeof loc->addr, err, errlen);
    unlink(file);
    rmdir(dir);
    if (rc)
        return -1;
    loc->pid = (int)pid;
    gethostname(loc->host, sizeof loc->host - 1);
    return 0;
}

void mf_engine_reap(int pid, int timeout_s)
{
    for (int ms = 0; ms < timeout_s * 1000; ms += 10) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}
