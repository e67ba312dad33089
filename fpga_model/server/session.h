/*
 * The switch engine's logic, independent of the transport: it consumes
 * host -> engine messages (include/mpifpga/engine_msg.h) and produces
 * engine -> host messages through a callback, driving the modeled network.
 * mpifpga-switchd (switchd.c) feeds it from libfabric; test_session.c
 * feeds it packed messages directly.
 *
 * A collective call is collected from every member of its communicator
 * (named by CT row ctx and the global rank of comm rank 0), checked for
 * votes and argument mismatches, then run in the model; each member gets
 * its result as DATA chunks followed by a RESULT.  doc/protocol.md,
 * "Engine messages", describes the exchange.
 */
#ifndef MF_SERVER_SESSION_H
#define MF_SERVER_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "mpifpga/engine_msg.h"
#include "mpifpga/model.h"

typedef struct mf_session mf_session_t;

/* Send msg (len bytes, a packed engine message) to global rank `grank`.
 * Returns 0, or -1 if it could not be sent (the session logs it). */
typedef int (*mf_session_out_fn)(void *user, int grank, const uint8_t *msg, size_t len);

/* A session for a job of `nranks` ranks (MPI_COMM_WORLD size) on `net`,
 * which must have at least nranks rank slots (rank r on node r / ppn).
 * The session does not own net.  NULL (message on stderr) on failure. */
mf_session_t *mf_session_create(mf_net_t *net, int nranks, mf_session_out_fn out, void *user);
void mf_session_destroy(mf_session_t *s);
/* Accept only ranks whose HELLO carries this secret (issue 19: job isolation). */
void mf_session_set_secret(mf_session_t *s, const uint8_t secret[MF_EM_SECRET_BYTES]);

/* What the session does to its network.  By default the mf_net_* calls
 * on it; the engine split among MPI processes (server/split.h) hands them
 * to every domain instead.  comm_size: how many counts req->counts holds. */
typedef struct {
    int (*ct_config)(void *ctx, int grank, int row, const mf_ct_entry_t *e, char *err,
                     size_t len);
    int (*ct_free)(void *ctx, int grank, int row);
    int (*post)(void *ctx, int grank, const mf_coll_req_t *req, int comm_size, char *err,
                size_t len);
    int (*run)(void *ctx, char *err, size_t len);
    void *ctx;
} mf_session_net_t;
void mf_session_set_net(mf_session_t *s, const mf_session_net_t *ops);

/* 1: print a line on stderr per HELLO / BYE / refused call. */
void mf_session_set_verbose(mf_session_t *s, int verbose);

/* Handle one message from a rank.  Returns 0, or -1 if the message was
 * malformed or a reply could not be sent or allocated (logged on stderr;
 * the session stays usable). */
int mf_session_handle(mf_session_t *s, const uint8_t *msg, size_t len);

/* The libfabric endpoint name rank `grank` sent in its accepted HELLO.
 * 0, or -1 if that rank has not been accepted. */
int mf_session_peer_name(const mf_session_t *s, int grank, const uint8_t **addr, size_t *len);

/* 1 once at least one rank said HELLO and every rank that did said BYE. */
int mf_session_done(const mf_session_t *s);

/* Baseline simulations run for calls with MF_EM_F_BASELINE (the rest came
 * from the cache, baseline_calls.h). */
unsigned long mf_session_baseline_simulated(const mf_session_t *s);

#endif
