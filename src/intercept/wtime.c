/*
 * Modeled time (MPIFPGA_MODELED_TIME, mpifpga-run --modeled-time): each
 * rank has a virtual clock v, and MPI_Wtime returns it.  One clock, the
 * model's: v advances
 *   - through an offloaded call by exactly its modeled time: the call enters
 *     the model at the rank's v (COLL entry_ns; the engine enters members
 *     at cycles as far apart as their v) and v becomes v + the rank's
 *     modeled latency;
 *   - between MPI calls by the computation the rank does there: the
 *     thread's CPU time (1, cpu) times MPIFPGA_COMPUTE_SCALE, or nothing
 *     (none).  Thread CPU time does not run while the rank is descheduled
 *     or blocked, so time slicing and the core count do not enter; the
 *     host's speed on the work does (sibling cores, a VM's preempted vCPU);
 *   - through an intercepted call that does not run in the model (a
 *     fallback to MPICH, count 0) by the CPU time it takes: it is not
 *     modeled, and the report counts it.  MPI calls the plugin does not
 *     intercept (point-to-point, communicator constructors) count as
 *     computation too.
 * The clock's own cost is not charged: a read of the thread CPU clock is a
 * system call (~0.5 us on a VM), and OSU reads MPI_Wtime twice per
 * iteration.  The host clock is read once per boundary, and every charged
 * window, which lies between two reads, is charged less one read's cost
 * (measured when the clock starts, never below zero).  The plugin's own work in an offloaded call is not either: v
 * stops at the call's first instruction (mf_vclock_pause) and restarts
 * from the modeled exit.  `wall` runs v on the host wall clock
 * between calls instead -- host scheduling then leaks in; kept only to
 * compare.  The clock never runs backwards.  MPI_Wtick stays MPICH's.
 */
#include <stdlib.h>
#include <time.h>

#include "intercept/host.h"

static double v;      /* virtual time, s, at host clock reading `mark` */
static double mark;   /* host clock when v was last set */
static int started;
static int paused;    /* inside an intercepted MPI call: v is frozen */
static double pause_mark; /* host clock when the call began */
static int modeled_in_call; /* the call ran in the model (v already advanced) */

static int mode(void) { return mf_host.initialized ? mf_host.cfg.modeled_time : MF_MODELED_OFF; }

/* The clock whose progress is charged between MPI calls, s. */
static double host_clock(void)
{
    struct timespec t;
    switch (mode()) {
    case MF_MODELED_WALL:
        return PMPI_Wtime();
    case MF_MODELED_NONE:
        return 0;
    default:
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
            return PMPI_Wtime();
        return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    }
}

static double rate(void)
{
    return mode() == MF_MODELED_WALL ? 1.0 : mf_host.cfg.compute_scale;
}

static double read_cost; /* s of host clock that one read of it takes */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A charged window lies between two reads of the host clock and so holds
 * one read's worth of the clock's own cost (a system call for the thread
 * CPU clock): measured once, the median of 63 back-to-back reads. */
static double measure_read_cost(void)
{
    double t[64], d[63];
    for (int i = 0; i < 64; i++)
        t[i] = host_clock();
    for (int i = 0; i < 63; i++)
        d[i] = t[i + 1] - t[i];
    qsort(d, 63, sizeof d[0], cmp_double);
    return d[31];
}

/* Computation charged for the host clock running from a to b. */
static double charged(double a, double b)
{
    double d = b - a - read_cost;
    return d > 0 ? d * rate() : 0;
}

/* v now (frozen inside an intercepted call). */
static double vnow(void)
{
    if (paused)
        return v;
    if (!started) {
        started = 1;
        read_cost = measure_read_cost();
        mark = host_clock();
        v = 1e-9; /* entry_ns 0 means "no modeled time" on the wire */
    }
    double h = host_clock();
    double now = v + charged(mark, h);
    v = now;
    mark = h;
    return now;
}

MF_PUBLIC double MPI_Wtime(void)
{
    if (!mode())
        return PMPI_Wtime();
    return vnow();
}

double mf_vtime_enter(uint64_t *entry_ns)
{
    if (!mode()) {
        *entry_ns = 0;
        return 0;
    }
    double e = vnow();
    *entry_ns = e > 0 ? (uint64_t)(e * 1e9) : 0;
    if (*entry_ns == 0)
        *entry_ns = 1;
    return e;
}

void mf_vtime_leave(double entry, double rank_us)
{
    if (!mode())
        return;
    v = entry + rank_us * 1e-6;
    modeled_in_call = 1;
    if (!paused)
        mark = host_clock();
}

double mf_vtime_now(void)
{
    return mode() ? vnow() : 0;
}

void mf_vtime_hold(double t)
{
    if (!mode())
        return;
    v = t;
    modeled_in_call = 1;
    if (!paused)
        mark = host_clock();
}

void mf_vtime_at_least(double t)
{
    if (!mode())
        return;
    double now = vnow();
    if (t > now)
        v = t;
}

/* The boundaries of every intercepted MPI_ call (profile/callsite.h's
 * mf_site_begin / mf_site_end): the plugin's own work in a call is never
 * charged as computation; a call that did not run in the model (fallback,
 * count 0) is charged the CPU time it took, as computation is. */
void mf_vclock_pause(void)
{
    if (!mode() || paused)
        return;
    v = vnow();
    pause_mark = mark;
    modeled_in_call = 0;
    paused = 1;
}

void mf_vclock_resume(void)
{
    if (!mode() || !paused)
        return;
    double h = host_clock();
    paused = 0;
    if (!modeled_in_call)
        v += charged(pause_mark, h);
    mark = h;
}
