/*
 * TAP output for the MPI test programs (the programs in test/mpi/): one line per check
 * whose verdict must hold on every rank.  The verdict is combined with
 * PMPI_Allreduce(MIN) -- PMPI_, so libmpifpga neither offloads nor counts
 * the test's own bookkeeping -- and rank 0 prints "ok N - ..." or
 * "not ok N - ...".  mpi_tap_finish() prints the plan and gives the exit
 * status.
 */
#ifndef MF_TEST_MPI_TAP_H
#define MF_TEST_MPI_TAP_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

static int mpi_tap_n, mpi_tap_failed;

static int mpi_tap_rank(void)
{
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* One check; returns the verdict combined over the ranks. */
static int mpi_tap_ok(int good, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static int mpi_tap_ok(int good, const char *fmt, ...)
{
    int mine = good ? 1 : 0, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        all = 0;
    mpi_tap_n++;
    mpi_tap_failed += !all;
    if (mpi_tap_rank() == 0) {
        va_list ap;
        va_start(ap, fmt);
        printf("%s %d - ", all ? "ok" : "not ok", mpi_tap_n);
        vprintf(fmt, ap);
        printf("\n");
        fflush(stdout);
        va_end(ap);
    }
    return all;
}

/* A check that cannot run here (printed by rank 0, counted as passed). */
static void mpi_tap_skip(const char *desc, const char *why) __attribute__((unused));
static void mpi_tap_skip(const char *desc, const char *why)
{
    mpi_tap_n++;
    if (mpi_tap_rank() == 0) {
        printf("ok %d - %s # SKIP %s\n", mpi_tap_n, desc, why);
        fflush(stdout);
    }
}

/* The plan line; 0 if every check passed, else 1 (call before MPI_Finalize). */
static int mpi_tap_finish(void)
{
    if (mpi_tap_rank() == 0) {
        printf("1..%d\n", mpi_tap_n);
        fflush(stdout);
    }
    return mpi_tap_failed ? 1 : 0;
}

#endif
