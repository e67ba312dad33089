/*
 * mpifpga-sim's progress line: one line on stderr while a sweep runs, only
 * when stderr is a terminal (a log or pipe gets none of it).  A size that
 * runs for seconds also shows, every MPIFPGA_SIM_PROGRESS seconds (default
 * 1), the modeled time its network has reached.  It only observes: the
 * host's clock here decides when a line is printed, never a figure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/sim_cli.h"
#include "cli/sim_mpi.h"

static struct {
    int tty;               /* -1: not yet known */
    const opts_t *o;
    uint64_t bytes;
    double start, shown;   /* host wall clock, s: the size's start, the last line */
    double every;          /* s between lines (MPIFPGA_SIM_PROGRESS, default 1) */
} prog = {.tty = -1, .every = 1};

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int progress_tty(void)
{
    if (prog.tty >= 0)
        return prog.tty;
    prog.tty = isatty(STDERR_FILENO) && sim_mpi_size() == 1;
    const char *e = getenv("MPIFPGA_SIM_PROGRESS");
    if (e && *e) {
        char *end;
        prog.every = strtod(e, &end);
        if (*end || !(prog.every >= 0 && prog.every < 1e9))
            die2("MPIFPGA_SIM_PROGRESS: '%s' is not a number of seconds >= 0", e);
    }
    return prog.tty;
}

static void progress_line(const mf_net_t *n, uint64_t cycle)
{
    fprintf(stderr, "\r\033[K# mpifpga-sim: %s %llu B (up to %llu B) ...",
            mf_opcode_name(prog.o->coll), (unsigned long long)prog.bytes,
            (unsigned long long)prog.o->max);
    if (cycle)
        fprintf(stderr, " %.1f us of modeled time simulated, %.0f s",
                mf_net_cycles_to_us(n, cycle), prog.shown - prog.start);
    fflush(stderr);
}

void sim_progress(const opts_t *o, uint64_t bytes)
{
    if (!progress_tty())
        return;
    prog.bytes = bytes;
    if (!bytes) {
        fputs("\r\033[K", stderr);
        return;
    }
    prog.o = o;
    prog.start = prog.shown = wall_s();
    progress_line(NULL, 0);
}

/* mf_net_set_progress's hook: it only prints. */
static void progress_tick(void *net, uint64_t cycle)
{
    double now = wall_s();
    if (!prog.bytes || now - prog.shown < prog.every)
        return;
    prog.shown = now;
    progress_line(net, cycle);
}

void sim_progress_watch(mf_net_t *n)
{
    if (!progress_tty())
        return;
    mf_net_set_progress(n, progress_tick, n);
}
