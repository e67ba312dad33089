/* A board's H2C / C2H queue pair (board_queue.h). */
#include "device/board_queue.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DRAIN_CHUNK 65536

static void node_path(char *out, size_t n, const char *prefix, const char *dir, int q)
{
    snprintf(out, n, "%s_%s_%d", prefix, dir, q);
}

/* Non-blocking: a FIFO nobody reads fails at once (ENXIO) instead of
 * waiting for a reader that may never come. */
static int open_queue(const char *path, int flags)
{
    return open(path, flags | O_NONBLOCK | O_CLOEXEC);
}

int mf_bq_open(mf_bq_t *q, const char *prefix, int queue, char *err, size_t len)
{
    q->h2c = q->c2h = -1;
    node_path(q->h2c_path, sizeof q->h2c_path, prefix, "h2c", queue);
    node_path(q->c2h_path, sizeof q->c2h_path, prefix, "c2h", queue);
    q->h2c = open_queue(q->h2c_path, O_WRONLY);
    if (q->h2c < 0) {
        snprintf(err, len, "cannot open the board's H2C queue %s: %s%s", q->h2c_path,
                 strerror(errno),
                 errno == ENXIO ? " (a FIFO nobody reads: is mpifpga-fpga-emu running?)" : "");
        return -1;
    }
    q->c2h = open_queue(q->c2h_path, O_RDONLY);
    if (q->c2h < 0) {
        snprintf(err, len, "cannot open the board's C2H queue %s: %s", q->c2h_path,
                 strerror(errno));
        close(q->h2c);
        q->h2c = -1;
        return -1;
    }
    return 0;
}

/* write(2) with SIGPIPE held back: a board (emulator) that went away is an
 * error to report, not a signal that kills the rank. */
static ssize_t write_nosig(int fd, const void *buf, size_t n)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w = write(fd, buf, n);
    int saved = errno;
    if (w < 0 && errno == EPIPE) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero); /* the pending SIGPIPE, if it was ours */
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return w;
}

static int closed_msg(const mf_bq_t *q, const char *which, char *err, size_t len)
{
    snprintf(err, len, "the board closed its %s queue (%s): the card or its emulator went away",
             which, which[0] == 'H' ? q->h2c_path : q->c2h_path);
    return -1;
}

/* C2H bytes to the sink while a write waits. */
static int drain(mf_bq_t *q, mf_bq_sink_fn sink, void *ctx, char *err, size_t len)
{
    unsigned char buf[DRAIN_CHUNK];
    ssize_t n = read(q->c2h, buf, sizeof buf);
    if (n == 0)
        return closed_msg(q, "C2H", err, len);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR
                   ? 0
                   : (snprintf(err, len, "reading %s: %s", q->c2h_path, strerror(errno)), -1);
    return sink(ctx, buf, (size_t)n, err, len);
}

int mf_bq_write(mf_bq_t *q, const void *buf, size_t n, mf_bq_sink_fn sink, void *ctx,
                char *err, size_t len)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t w = write_nosig(q->h2c, p, n);
        if (w > 0) {
            p += w, n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EPIPE)
            return closed_msg(q, "H2C", err, len);
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return snprintf(err, len, "writing %s: %s", q->h2c_path, strerror(errno)), -1;
        struct pollfd pf[2] = {{.fd = q->h2c, .events = POLLOUT}, {.fd = q->c2h, .events = POLLIN}};
        if (poll(pf, 2, -1) < 0 && errno != EINTR)
            return snprintf(err, len, "poll on the board's queues: %s", strerror(errno)), -1;
        if ((pf[1].revents & (POLLIN | POLLHUP)) && drain(q, sink, ctx, err, len))
            return -1;
    }
    return 0;
}

ssize_t mf_bq_read(mf_bq_t *q, void *buf, size_t cap, int timeout_ms, char *err, size_t len)
{
    struct pollfd pf = {.fd = q->c2h, .events = POLLIN};
    int rc = poll(&pf, 1, timeout_ms);
    if (rc < 0 && errno != EINTR)
        return snprintf(err, len, "poll on %s: %s", q->c2h_path, strerror(errno)), -1;
    if (rc <= 0)
        return 0;
    ssize_t n = read(q->c2h, buf, cap);
    if (n == 0)
        return closed_msg(q, "C2H", err, len);
    if (n < 0 && errno != EAGAIN && errno != EINTR)
        return snprintf(err, len, "reading %s: %s", q->c2h_path, strerror(errno)), -1;
    return n < 0 ? 0 : n;
}

void mf_bq_close(mf_bq_t *q)
{
    if (q->h2c >= 0)
        close(q->h2c);
    if (q->c2h >= 0)
        close(q->c2h);
    q->h2c = q->c2h = -1;
}
