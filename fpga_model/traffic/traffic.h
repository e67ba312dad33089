/*
 * Synthetic unicast traffic (000 Table 5.1) to validate the router and to
 * measure the model's speed: each node injects packets of `pkt_phits` phits
 * as a Bernoulli process at `rate` phits (flits) per node per cycle; the
 * destinations follow the pattern.  BookSim-style measurement: warm up,
 * measure packets created in the window, drain them.
 */
#ifndef MF_TRAFFIC_H
#define MF_TRAFFIC_H

#include <stdint.h>
#include "mpifpga/model.h"

typedef enum {
    MF_TR_UNIFORM = 0, MF_TR_TRANSPOSE, MF_TR_BITCOMP, MF_TR_NEIGHBOR, MF_TR_TORNADO,
    MF_TR_COUNT
} mf_traffic_pattern_t;

typedef struct {
    mf_traffic_pattern_t pattern;
    double rate;            /* phits per node per cycle */
    unsigned pkt_phits;     /* 1 .. net_pkt_phits */
    uint64_t warmup, measure; /* cycles */
    uint64_t drain_limit;   /* give up draining after this many extra cycles */
    uint64_t seed;
} mf_traffic_cfg_t;

typedef struct {
    uint64_t measured_pkts, delivered_pkts;
    double avg_latency_cycles, max_latency_cycles;
    double offered, accepted; /* phits per node per cycle */
    int saturated;            /* measured packets not drained within the limit */
    uint64_t cycles;          /* simulated */
    double wall_s;
    double router_cycles_per_s;
} mf_traffic_result_t;

int mf_traffic_parse(const char *s, mf_traffic_pattern_t *p);
const char *mf_traffic_name(mf_traffic_pattern_t p);
/* Destination node of `src` (rng used for uniform / neighbour). */
int mf_traffic_dest(const struct mf_topo *t, mf_traffic_pattern_t p, int src, uint64_t *rng);
int mf_traffic_run(mf_net_t *n, const mf_traffic_cfg_t *cfg, mf_traffic_result_t *res,
                   char *err, size_t errlen);

#endif
