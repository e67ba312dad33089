/*
 * The domains of a split network (net/domain.h) without MPI, for tests: K
 * copies of one network in one process, a thread each, handing over what
 * crosses through memory (a barrier per exchange and per reduction).
 */
#ifndef MF_TEST_DOM_HUB_H
#define MF_TEST_DOM_HUB_H

#include <pthread.h>
#include <stddef.h>
#include "net/domain.h"

#define HUB_MAXK 4

typedef struct {
    int k;
    mf_dom_partition_t part;
    pthread_barrier_t bar;
    const mf_dom_msg_t *out[HUB_MAXK];
    size_t nout[HUB_MAXK];
    const uint64_t *red[HUB_MAXK];
    size_t exchanged; /* messages that crossed, over the run */
} hub_t;

/* One domain's end of the hub: mf_dom_ops_t's ctx. */
typedef struct {
    hub_t *hub;
    int self;
} hub_member_t;

/* k domains split as partition says (MPIFPGA_PARTITION's values); 0, or -1
 * with a message in err. */
int hub_init(hub_t *h, int k, const char *partition, char *err, size_t errlen);
void hub_fini(hub_t *h);
/* The ops of member m (hub and self filled in). */
mf_dom_ops_t hub_ops(hub_member_t *m);

#endif
