/*
 * sim_mpi.h for the plain mpifpga-sim, which does not link MPI: MPICH pulls
 * in UCX, whose memory hooks (libucm) then wrap every malloc, mmap and
 * madvise of every run -- and crash a ThreadSanitizer build at thread exit.
 * Under mpiexec with a sweep to spread, sim_mpi_start replaces the process
 * with mpifpga-sim-mpi (the same program linked with MPI and sim_mpi.c),
 * with the same arguments: found beside this executable (the build tree),
 * else in PKGLIBEXECDIR (installed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/sim_mpi.h"

#define MPI_PROGRAM "mpifpga-sim-mpi"

/* dir/MPI_PROGRAM into buf if it is executable. */
static int try_dir(const char *dir, size_t dirlen, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%.*s/%s", (int)dirlen, dir, MPI_PROGRAM);
    return n > 0 && (size_t)n < len && access(buf, X_OK) == 0;
}

void sim_mpi_start(int *argc, char ***argv)
{
    (void)argc;
    char self[PATH_MAX], prog[PATH_MAX + sizeof MPI_PROGRAM + 1];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *slash = NULL;
    if (n > 0) {
        self[n] = '\0';
        slash = strrchr(self, '/');
    }
    int found = (slash && try_dir(self, (size_t)(slash - self), prog, sizeof prog)) ||
                try_dir(PKGLIBEXECDIR, strlen(PKGLIBEXECDIR), prog, sizeof prog);
    if (found) {
        fflush(NULL);
        execv(prog, *argv);
    }
    if (sim_mpi_env_rank() != 0)
        exit(1);
    if (found)
        fprintf(stderr, "mpifpga-sim: under mpiexec a sweep runs as %s: %s; run it without "
                "mpiexec, or reinstall mpifpga\n", prog, strerror(errno));
    else
        fprintf(stderr, "mpifpga-sim: under mpiexec a sweep runs as %s (beside %s or in %s): "
                "%s; run it without mpiexec, or reinstall mpifpga\n", MPI_PROGRAM,
                slash ? self : "mpifpga-sim", PKGLIBEXECDIR, strerror(ENOENT));
    exit(1);
}

int sim_mpi_active(void) { return 0; }
int sim_mpi_rank(void) { return sim_mpi_env_rank(); }
int sim_mpi_size(void)
{
    int k = sim_mpi_env_size();
    return k > 0 ? k : 1;
}

void sim_mpi_exit(int rc)
{
    fflush(stdout);
    exit(rc);
}

int sim_mpi_share_rc(int rc) { return rc; }

void sim_mpi_abort(int rc)
{
    fflush(stdout);
    exit(rc);
}

int sim_mpi_domain_ops(mf_dom_ops_t *ops)
{
    (void)ops;
    return -1; /* under mpiexec, sim_mpi_start has become mpifpga-sim-mpi */
}

/* Not reached: run_sweep calls it only once MPI is active. */
int sim_mpi_sweep(const sim_sweep_t *s, char *err, size_t len)
{
    (void)s;
    snprintf(err, len, "internal error: a sweep over MPI processes without MPI");
    return 1;
}
