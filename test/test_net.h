/* Test helper: a network on a topology string, reporting failures as TAP
 * diagnostics (needs tap.h). */
#ifndef MF_TEST_NET_H
#define MF_TEST_NET_H

#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"

static inline mf_net_t *test_make_net(const mf_params_t *p, const char *topo, int nodes, int ppn,
                                      mf_topo_t *t)
{
    char err[256];
    mf_topo_spec_t spec;
    if (mf_topo_parse(topo, &spec, err, sizeof err) ||
        mf_topo_build(&spec, nodes, ppn, t, err, sizeof err)) {
        diag("topology: %s", err);
        return NULL;
    }
    mf_net_t *n = mf_net_create(p, t, err, sizeof err);
    if (!n)
        diag("net: %s", err);
    return n;
}

#endif
