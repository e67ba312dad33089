/*
 * Modeled time (MPIFPGA_MODELED_TIME, mpifpga-run --modeled-time):
 * MPI_Wtime returns a host clock plus a shift.  Outside offloaded calls the
 * clock runs at host speed; an offloaded call enters the model at the
 * rank's virtual time and leaves at its modeled completion, so the call
 * appears to take exactly its modeled time.  The clock never runs
 * backwards: after a call it reads the modeled exit time, and the host
 * clock only moves forward from there.
 *
 * The host clock is MPICH's wall clock (MPIFPGA_MODELED_TIME=1 or wall),
 * or the calling thread's CPU time (cpu): with more ranks than cores, time
 * a rank spends descheduled would otherwise count as its own and skew
 * every collective it joins.  MPI_Wtick stays MPICH's (1 ns).
 */
#include <time.h>

#include "intercept/host.h"

static double shift; /* seconds: virtual time - host clock */

static int mode(void) { return mf_host.initialized ? mf_host.cfg.modeled_time : MF_MODELED_OFF; }

static double host_clock(void)
{
    struct timespec t;
    if (mode() != MF_MODELED_CPU || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
        return PMPI_Wtime();
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

MF_PUBLIC double MPI_Wtime(void)
{
    return mode() ? host_clock() + shift : PMPI_Wtime();
}

double mf_vtime_enter(uint64_t *entry_ns)
{
    if (!mode()) {
        *entry_ns = 0;
        return 0;
    }
    double v = host_clock() + shift;
    *entry_ns = v > 0 ? (uint64_t)(v * 1e9) : 0;
    if (*entry_ns == 0)
        *entry_ns = 1; /* 0 means "no modeled time" on the wire */
    return v;
}

void mf_vtime_leave(double entry, double rank_us)
{
    if (mode())
        shift = entry + rank_us * 1e-6 - host_clock();
}
