/* The process manager's view of this process, read before any MPI_Init
 * (sim_mpi.h): shared by mpifpga-sim and mpifpga-sim-mpi. */
#include <stdlib.h>

#include "cli/sim_mpi.h"

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int sim_mpi_env_rank(void) { return env_int("PMI_RANK", env_int("PMIX_RANK", 0)); }

/* PMI_SIZE (hydra); under PMIx alone the size is MPI's to tell: -1. */
int sim_mpi_env_size(void)
{
    int k = env_int("PMI_SIZE", 0);
    if (k > 0)
        return k;
    return getenv("PMIX_RANK") ? -1 : 1;
}
