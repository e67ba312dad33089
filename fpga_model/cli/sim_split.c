/* mpifpga-sim under mpiexec -n K: one network's switches split among the
 * processes (net/domain.h) -- --traffic always, a sweep's collectives as
 * MPIFPGA_SPLIT says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sim_cli.h"
#include "cli/sim_mpi.h"
#include "net/domain.h"

/* Under mpiexec -n K with the switches split (--traffic, MPIFPGA_SPLIT):
 * this process simulates its K-th of n's switches (net/domain.h).  1 if
 * split, 0 without MPI. */
int sim_split_net(mf_net_t *n)
{
    char err[256];
    mf_dom_ops_t ops;
    mf_dom_partition_t part;
    if (sim_mpi_domain_ops(&ops))
        return 0;
    if (mf_dom_partition_parse(getenv("MPIFPGA_PARTITION"), &part, err, sizeof err))
        die2("%s", err); /* the same on every rank: one message, exit 2 */
    if (mf_dom_attach(n, &ops, &part, err, sizeof err)) {
        fprintf(stderr, "mpifpga-sim: %s\n", err);
        sim_mpi_abort(1); /* the others would wait in the first exchange */
    }
    return 1;
}

/* MPIFPGA_SPLIT for a sweep of npts sizes under mpiexec: 1 to split the
 * switches.  What cannot run split (net/domain.h) keeps the whole network
 * in one process: an error if asked for by name. */
int sim_split_mode(const opts_t *o, int npts)
{
    const char *s = getenv("MPIFPGA_SPLIT");
    if (s && *s && strcmp(s, "auto") && strcmp(s, "sizes") && strcmp(s, "switches"))
        die2("MPIFPGA_SPLIT='%s': expected auto (the default), sizes or switches", s);
    int asked = s && !strcmp(s, "switches"), sizes = s && !strcmp(s, "sizes");
    if (!asked && (sizes || npts != 1))
        return 0;
    const char *cannot = o->analytic ? "--analytic" : o->baseline ? "--baseline" : NULL;
    if (cannot && asked)
        die2("MPIFPGA_SPLIT=switches: %s cannot run split (a split network runs the "
             "offloaded calls only); use MPIFPGA_SPLIT=sizes", cannot);
    return !cannot;
}
