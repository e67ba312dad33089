/*
 * The engine's outgoing messages, per rank.  A rank that is not reading --
 * busy in MPI_Recv or computing while its nonblocking collectives are
 * outstanding -- must not stall the engine: every other rank may be
 * waiting for it.  A message the transport cannot take now
 * (mf_fab_try_send) waits here, in order behind that rank's earlier ones,
 * and goes out when the rank has read enough.
 */
#ifndef MF_OUTBOX_H
#define MF_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

#include "transport/fabric.h"

typedef struct mf_outbox mf_outbox_t;

/* For ranks 0..nranks-1; NULL if out of memory. */
mf_outbox_t *mf_outbox_create(mf_fab_t *fab, int nranks);
void mf_outbox_destroy(mf_outbox_t *o);

/* Send msg to rank g at `peer`, now or (copied) later.  0, or -1 with err
 * (the transport failed, or no memory to keep the message). */
int mf_outbox_send(mf_outbox_t *o, int g, mf_fab_peer_t peer, const uint8_t *msg, size_t len,
                   char *err, size_t errlen);

/* Send what waits, as far as the transport takes it.  The number of
 * messages still waiting, or -1 with err. */
long mf_outbox_flush(mf_outbox_t *o, char *err, size_t errlen);

#endif
