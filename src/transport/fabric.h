/*
 * Message transport between ranks and the switch engine, over libfabric
 * (FI_EP_RDM, FI_MSG).  Used by libmpifpga and by mpifpga-switchd.
 *
 * Provider: FI_PROVIDER if set, else the one named by the caller (NULL
 * picks the default, MF_FAB_DEFAULT_PROV).  An endpoint's address is
 * carried as a string "<provider>/<hex of fi_getname>", which is what
 * MPIFPGA_ENGINE holds and mpifpga-switchd --addr-file writes.
 *
 * Waiting never spins: mf_fab_recv / mf_fab_send block in fi_cq_sread on
 * the completion queue's wait object when the provider has one; for a
 * provider without one (shm in libfabric 1.17) they poll with growing
 * sleeps (doc/architecture.md, "Waiting").
 *
 * Messages are at most MF_EM_MAX bytes.  Sends are copied into bounce
 * buffers, so the caller's buffer is free when mf_fab_send returns.
 */
#ifndef MF_TRANSPORT_FABRIC_H
#define MF_TRANSPORT_FABRIC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MF_FAB_DEFAULT_PROV "tcp;ofi_rxm"
#define MF_FAB_ADDRSTR_MAX 640

typedef struct mf_fab mf_fab_t;
typedef uint64_t mf_fab_peer_t;

/* Open an endpoint.  nrx receive buffers of MF_EM_MAX bytes are posted
 * (the engine wants many, a rank a few). */
int mf_fab_open(const char *prov, int nrx, mf_fab_t **out, char *err, size_t errlen);
void mf_fab_close(mf_fab_t *f);

/* This endpoint's address as a string; its raw name for HELLO. */
int mf_fab_addr_string(mf_fab_t *f, char *buf, size_t len);
int mf_fab_name(mf_fab_t *f, void *buf, size_t *len);
const char *mf_fab_provider(const mf_fab_t *f);
/* 1 if waits block on a wait object, 0 if they poll with sleeps. */
int mf_fab_blocking(const mf_fab_t *f);

/* Peers: from an address string (rank -> engine) or a raw name (engine,
 * from HELLO).  The provider part of the string must match this
 * endpoint's. */
int mf_fab_peer_from_string(mf_fab_t *f, const char *addr, mf_fab_peer_t *peer, char *err,
                            size_t errlen);
int mf_fab_peer_from_name(mf_fab_t *f, const void *name, size_t len, mf_fab_peer_t *peer,
                          char *err, size_t errlen);

/* Bound how long mf_fab_send may wait for the provider to take a message
 * (0: no bound, the default); and a check, run about once a second while
 * it waits, that returns nonzero (with a message) when the peer is known
 * to be gone. */
void mf_fab_set_send_timeout(mf_fab_t *f, int ms);
typedef int (*mf_fab_gone_fn)(void *ctx, char *err, size_t errlen);
void mf_fab_set_gone_check(mf_fab_t *f, mf_fab_gone_fn fn, void *ctx);

/* A wait for completions (mf_fab_recv, mf_fab_flush) ends as soon as
 * *flag is nonzero -- a signal handler's stop flag -- as if its time were
 * up, instead of polling the provider to the end of its timeout. */
void mf_fab_set_interrupt(mf_fab_t *f, const volatile sig_atomic_t *flag);


/* Send one message (len <= MF_EM_MAX).  Blocks only while every bounce
 * buffer is in flight or the provider is busy (see above).  0, or -1 with
 * a message. */
int mf_fab_send(mf_fab_t *f, mf_fab_peer_t peer, const void *msg, size_t len, char *err,
                size_t errlen);

/* Send one message if the provider takes it now: 0 sent, 1 not now (every
 * bounce buffer busy, PEER_TX_MAX sends to this peer still in flight, or
 * the provider full) -- the caller keeps it and tries again later -- or
 * -1 with a message.  For the engine, which must not stall on a rank that
 * is not reading while others wait for it. */
int mf_fab_try_send(mf_fab_t *f, mf_fab_peer_t peer, const void *msg, size_t len, char *err,
                    size_t errlen);

/* Between hold(1) and hold(0), sends do not wake their receivers one by
 * one: hold(0) wakes each once (a call's header and data, or the results
 * to every member of a call, are one wake-up).  No effect with a wait
 * object. */
void mf_fab_hold_wakeups(mf_fab_t *f, int hold);

/* Every peer that will send to this endpoint has found it: drop the
 * doorbell's name (doorbell.h), so a killed process leaves nothing behind. */
void mf_fab_peers_known(mf_fab_t *f);

/* Receive one message, waiting at most timeout_ms (-1: no limit).
 * Returns its length (> 0) with *msg pointing at it (valid until
 * mf_fab_release(f, *token)), 0 on timeout, -1 on an error. */
ssize_t mf_fab_recv(mf_fab_t *f, int timeout_ms, const uint8_t **msg, void **token, char *err,
                    size_t errlen);
void mf_fab_release(mf_fab_t *f, void *token);

/* Wait until every send has completed (before closing). */
int mf_fab_flush(mf_fab_t *f, int timeout_ms, char *err, size_t errlen);

/* Load libfabric now (it is loaded on first use, fi_lazy.c): a rank does
 * it while the engine it will connect to is still starting.  0 if loaded. */
int mf_fab_preload(void);

#endif
