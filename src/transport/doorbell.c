/* Named-FIFO doorbells (doorbell.h). */
#include "transport/doorbell.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* FNV-1a of the endpoint name: the FIFO's path, in MPIFPGA_BELL_DIR (set by
 * mpifpga-run to its job directory, so that a killed process's FIFO goes
 * with it), else TMPDIR, else /tmp.  Every process of a job must agree. */
static void bell_path(const void *name, size_t n, char *path, size_t len)
{
    const uint8_t *p = name;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    const char *tmp = getenv("MPIFPGA_BELL_DIR");
    if (!tmp || !*tmp)
        tmp = getenv("TMPDIR");
    snprintf(path, len, "%s/mpifpga-bell-%016llx", tmp && *tmp ? tmp : "/tmp",
             (unsigned long long)h);
}

int mf_bell_open(mf_bell_t *b, const void *name, size_t n)
{
    memset(b, 0, sizeof *b);
    bell_path(name, n, b->path, sizeof b->path);
    unlink(b->path);
    if (mkfifo(b->path, 0600) || (b->fd = open(b->path, O_RDWR | O_NONBLOCK)) < 0) {
        b->fd = -1;
        b->path[0] = 0;
        return -1;
    }
    return 0;
}

void mf_bell_close(mf_bell_t *b)
{
    for (size_t i = 0; i < b->npeers; i++)
        if (b->peer_fd[i] >= 0)
            close(b->peer_fd[i]);
    free(b->peer_fd);
    free(b->due);
    if (b->fd >= 0)
        close(b->fd);
    if (b->path[0])
        unlink(b->path);
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

void mf_bell_add_peer(mf_bell_t *b, uint64_t idx, const void *name, size_t n)
{
    char path[96];
    if (idx >= b->npeers) {
        size_t m = idx + 16;
        int *p = realloc(b->peer_fd, m * sizeof *p);
        if (!p)
            return;
        b->peer_fd = p;
        uint8_t *d = realloc(b->due, m);
        if (!d)
            return;
        b->due = d;
        for (size_t i = b->npeers; i < m; i++)
            p[i] = -1, d[i] = 0;
        b->npeers = m;
    }
    if (b->peer_fd[idx] >= 0)
        close(b->peer_fd[idx]);
    bell_path(name, n, path, sizeof path);
    /* Read-write, though only written: the FIFO then always has a reader,
     * so a ring to a peer that died fills it (EAGAIN) instead of raising
     * SIGPIPE in the application -- no signal mask around each ring. */
    b->peer_fd[idx] = open(path, O_RDWR | O_NONBLOCK);
}

/* Ring peer idx: one byte, non-blocking (a full FIFO has been rung). */
void mf_bell_ring(mf_bell_t *b, uint64_t idx)
{
    if (idx < b->npeers && b->peer_fd[idx] >= 0) {
        ssize_t w = write(b->peer_fd[idx], "", 1); /* fails only when full: rung already */
        (void)w;
    }
}

void mf_bell_unlink(mf_bell_t *b)
{
    if (b->path[0])
        unlink(b->path);
    b->path[0] = 0;
}

void mf_bell_defer(mf_bell_t *b, uint64_t idx)
{
    if (idx < b->npeers)
        b->due[idx] = 1;
}

void mf_bell_flush(mf_bell_t *b)
{
    for (size_t i = 0; i < b->npeers; i++)
        if (b->due[i]) {
            b->due[i] = 0;
            mf_bell_ring(b, i);
        }
}

void mf_bell_wait(mf_bell_t *b, int timeout_ms)
{
    struct pollfd p = {.fd = b->fd, .events = POLLIN};
    char buf[256];
    if (b->fd < 0 || poll(&p, 1, timeout_ms) <= 0)
        return;
    while (read(b->fd, buf, sizeof buf) > 0)
        ;
}
