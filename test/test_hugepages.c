/*
 * mf_model_prefer_hugepages (fpga_model/sim/hugepages.c): the heap's
 * new memory -- small and large blocks, and blocks another thread
 * allocates -- lies in mappings marked for huge pages (VmFlags "hg" in
 * /proc/self/smaps: the mark, which does not depend on free huge pages
 * being there); MPIFPGA_HUGEPAGES=0 leaves the heap alone; an address-space
 * limit too small for the reserve leaves ordinary pages and a working
 * malloc.  Each case runs in a child forked before any call (the setting
 * is once per process).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpifpga/model.h"
#include "sim/sanitized.h" /* a sanitizer's malloc: the call returns -1 */
#include "tap.h"


/* 1 if addr's mapping is marked MADV_HUGEPAGE, 0 if not, -1 if not found. */
static int marked(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int in = 0, rc = -1;
    unsigned long a = (unsigned long)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = a >= lo && a < hi;
            continue;
        }
        if (in && !strncmp(line, "VmFlags:", 8)) {
            rc = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return rc;
}

static void *thread_block(void *arg)
{
    (void)arg;
    char *p = malloc(100000);
    if (p)
        memset(p, 7, 100000);
    return p;
}

/* Child exit codes: 0 as expected, else the first check that failed. */
static int child_on(void)
{
    if (mf_model_prefer_hugepages() != 0)
        return 10;
    if (mf_model_prefer_hugepages() != 0)
        return 11; /* once per process: the same answer */
    /* small blocks come first from what the heap held before the call
     * (unmarked); those after its first 4 MiB come from the reserve */
    char *small[20000] = {0};
    for (int i = 0; i < 20000; i++)
        if (!(small[i] = malloc(200)))
            return 12;
    char *large = malloc(8u << 20);
    void *other = NULL;
    pthread_t t;
    if (!large || pthread_create(&t, NULL, thread_block, NULL) ||
        pthread_join(t, &other) || !other)
        return 12;
    memset(large, 1, 8u << 20);
    if (marked(small[19999]) != 1)
        return 13;
    if (marked(large) != 1)
        return 14; /* below glibc's mmap ceiling: from the marked heap */
    if (marked(other) != 1)
        return 15; /* another thread allocates from the same heap */
    for (int i = 0; i < 20000; i++)
        free(small[i]);
    free(large);
    free(other);
    return 0;
}

static int child_off(void)
{
    setenv("MPIFPGA_HUGEPAGES", "0", 1);
    if (mf_model_prefer_hugepages() != 1)
        return 20;
    char *large = malloc(8u << 20);
    if (!large)
        return 21;
    return marked(large) == 0 ? 0 : 22; /* glibc's own mmap: not marked */
}

static int child_limited(void)
{
    /* room for what runs now and 256 MiB more: not for the 2 GiB reserve */
    struct rlimit rl = {0, 0};
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        return 30;
    fclose(f);
    rl.rlim_cur = rl.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) + (256ul << 20);
    if (setrlimit(RLIMIT_AS, &rl))
        return 31;
    if (mf_model_prefer_hugepages() != -1)
        return 32;
    /* malloc still works, as glibc's default */
    for (int i = 0; i < 64; i++) {
        char *p = malloc(1u << 20);
        if (!p)
            return 33;
        memset(p, i, 1u << 20);
        if (p[12345] != (char)i)
            return 34;
        free(p);
    }
    return 0;
}

static int run_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int main(void)
{
    unsetenv("MPIFPGA_HUGEPAGES");
    /* a kernel built without transparent huge pages refuses the mark: the
     * call says so (-1) instead; this machine's kernel decides which */
    int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
    int rc = run_child(child_on);
    if (thp && !MF_SANITIZED)
        ok(rc == 0, "small, large and other threads' blocks in the marked heap (child %d)",
           rc);
    else
        ok(rc == 10, "%s: the call returns -1 (child %d)",
           MF_SANITIZED ? "a sanitizer's allocator" : "no transparent huge pages in this kernel",
           rc);
    rc = run_child(child_off);
    ok(rc == 0, "MPIFPGA_HUGEPAGES=0: returns 1, the heap is not marked (child %d)", rc);
    rc = run_child(child_limited);
    ok(rc == 0, "an address-space limit below the reserve: -1, malloc works (child %d)", rc);
    return tap_done();
}
