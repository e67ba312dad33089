/*
 * Domain decomposition (issue 23): the switches of one network split among
 * K domains -- MPI processes under `mpiexec -n K mpifpga-sim --traffic`
 * (cli/sim_mpi.c) or anything else that can move bytes.  Every domain
 * builds the whole network; it runs only its own switches (by default a
 * range of switch numbers; mf_dom_partition_t), and keeps copies of the
 * others' links and FIFOs that its switches read.
 *
 * What crosses a domain boundary is timestamped at least a link latency
 * ahead: a packet put on a link arrives `latency` cycles after it left,
 * and a FIFO's stop / resume reaches its upstream `latency` cycles after
 * it was recorded.  So the domains run windows of L <= latency - 1 cycles
 * each and then exchange what crossed (the lookahead): a packet sent in a
 * window arrives after it, a transition recorded in it is seen after it,
 * and a stop view read in it never reaches past what the window's start
 * has settled (hw/fifo.c, known_before).  Every figure is the same for any
 * K, any partition and any thread count (test/sim_domains.sh,
 * test/test_domains.c).
 *
 * Collectives (domain_coll.c): the engines show one another how far they
 * have taken each stream through the partner port (hw/ports.h), read a
 * cycle after it changes, not a link latency (doc/model.md sections 5 and
 * 9c).  So a collective runs windows of one active cycle: after each, a
 * domain sends the others what its engines show that changed (a copy of
 * each other domain's engines' is kept here), the credits returned to and
 * the wake-ups of their engines, and the posts of a fat tree's children to
 * their aggregation engines.  Packets cross with their payload, so calls
 * with data run split as they run whole.
 */
#ifndef MF_NET_DOMAIN_H
#define MF_NET_DOMAIN_H

#include <stddef.h>
#include <stdint.h>
#include "hw/pkt.h"

struct mf_net;
typedef struct mf_dom mf_dom_t;

/* One thing crossing to another domain.  A packet travels as its fields,
 * followed by its payload in records of MF_DOM_DATA_BYTES (kind PKT, the
 * packet's to, id, cycle and sent, state 1, 2, ...), unless it has none
 * (a header-only packet, or one whose payload is all zero: `zero`). */
#define MF_DOM_DATA_BYTES 40
typedef struct {
    uint32_t kind;  /* MF_DOM_PKT or MF_DOM_STOP (and domain_coll.c's) */
    uint32_t to;    /* the domain it goes to */
    uint32_t id;    /* PKT: the link (sender switch x max ports + port);
                     * STOP: the FIFO (owner switch x max ports x VCs + in VC) */
    uint32_t state; /* STOP: 1 stop, 0 resume; PKT: 0 the packet, k >= 1
                     * the payload's bytes [(k - 1) x MF_DOM_DATA_BYTES, ...) */
    uint64_t cycle; /* PKT: head arrival; STOP: when recorded */
    uint64_t sent;  /* PKT: when it left (one packet a link a cycle) */
    union {
        struct {
            mf_net_hdr_t h;
            uint16_t src, nphits;
            uint8_t in_vc, zero;
            uint32_t len;
            uint64_t tail_fx, born;
        };
        uint8_t data[MF_DOM_DATA_BYTES]; /* a payload record */
    };
} mf_dom_msg_t;

/* VIEW: engine id's state on a context (state: ctx | running << 8 | tag
 * << 16, tag 255 none; sent: its seq; tail_fx: bytes taken of the tag's
 * stream); RETURNED: engine id's credits on NET stream `state`
 * (mf_stream_id) came back in cycle - 1; WAKE: run engine id's switch at cycle; AGG: child engine `state`
 * posts its call (header in data, seq in sent) to fat-tree aggregation
 * engine id, from cycle on. */
enum {
    MF_DOM_PKT = 1,
    MF_DOM_STOP = 2,
    MF_DOM_VIEW = 3,
    MF_DOM_RETURNED = 4,
    MF_DOM_WAKE = 5,
    MF_DOM_AGG = 6
};
enum { MF_DOM_MIN = 0, MF_DOM_MAX, MF_DOM_SUM };

/* x and y combined with op (MF_DOM_MIN, MAX, SUM): what a reduction does
 * to two domains' values. */
static inline uint64_t mf_dom_combine(int op, uint64_t x, uint64_t y)
{
    if (op == MF_DOM_SUM)
        return x + y;
    return (op == MF_DOM_MIN) == (y < x) ? y : x;
}

/* Which switches each domain gets (MPIFPGA_PARTITION).  range: domain i
 * of K the switches [nsw i / K, nsw (i + 1) / K) (slabs of a torus, fewest
 * links crossing); cyclic: switch s to domain s mod K (every link
 * crosses); random[:SEED]: ranges of a shuffle (seed 1 by default).  The
 * other two are there to check that the split does not change a figure. */
typedef struct {
    enum { MF_DOM_RANGE, MF_DOM_CYCLIC, MF_DOM_RANDOM } kind;
    uint64_t seed;
} mf_dom_partition_t;

/* spec (NULL or "" = range) into *p; 0, or -1 with a message in err. */
int mf_dom_partition_parse(const char *spec, mf_dom_partition_t *p, char *err, size_t errlen);

/* How the domains talk: the MPI implementation is cli/sim_mpi.c. */
typedef struct {
    int ndomains, self;
    /* Send out[0 .. nout) (sorted by .to) and return what the others sent
     * here in *in (malloc'ed, the caller frees) and *nin; in the same
     * order on every run.  0, or -1 with a message in err. */
    int (*exchange)(void *ctx, const mf_dom_msg_t *out, size_t nout, mf_dom_msg_t **in,
                    size_t *nin, char *err, size_t errlen);
    /* v[0 .. n) combined over all domains with op[i] (MF_DOM_MIN, MAX, SUM),
     * the result on every domain.  0 or -1. */
    int (*reduce)(void *ctx, uint64_t *v, const int *op, int n, char *err, size_t errlen);
    void *ctx;
} mf_dom_ops_t;

/* Make n's domain self of ops->ndomains, its switches as part says (NULL:
 * range), before anything runs.  The other switches must never run here:
 * one that is woken fails the run, naming it.  0, or -1 with a message in
 * err (out of memory). */
int mf_dom_attach(struct mf_net *n, const mf_dom_ops_t *ops, const mf_dom_partition_t *part,
                  char *err, size_t errlen);
void mf_dom_free(struct mf_net *n);
/* Did the run fail in this domain (not only in another one)? */
int mf_dom_failed_here(const struct mf_net *n);
/* This domain's number (0 without domains). */
int mf_dom_self(const struct mf_net *n);
/* Is switch sw simulated here? (1 without domains) */
int mf_dom_local(const struct mf_net *n, int sw);
/* Cycles a window may last. */
uint64_t mf_dom_lookahead(const struct mf_net *n);
/* After the window that ends before cycle `end`: hand over what crossed,
 * take in what came (wakes the switches it is for).  Every domain calls
 * it after every window; a failure here (out of memory) fails the network
 * (n->failed), for the caller to share.  0, or -1 when ops->exchange
 * failed (err). */
int mf_dom_exchange(struct mf_net *n, uint64_t end, char *err, size_t errlen);
/* Run the posted collectives to completion (or to cycle `until`) over the
 * domains, windows of one active cycle: mf_net_run of a split network,
 * the same figures as the one-process run.  Every domain calls it. */
int mf_dom_run(struct mf_net *n, uint64_t until, char *err, size_t errlen);
/* Fail the run in this domain (the first message stays; any thread). */
void mf_dom_fail(struct mf_net *n, const char *msg);
/* A run's failure, shared by a reduction (MF_DOM_MAX) after each window:
 * mf_dom_failed_vote is what this domain puts in (0: it has not failed;
 * else 1 + its number), and mf_dom_failure turns the reduced value into
 * the run's message (this domain's own, or which domain failed).  -1. */
uint64_t mf_dom_failed_vote(const struct mf_net *n);
int mf_dom_failure(const struct mf_net *n, uint64_t failed, char *err, size_t errlen);
/* Combine values over the domains (mf_dom_ops_t.reduce); without domains,
 * nothing to do. */
int mf_dom_reduce(struct mf_net *n, uint64_t *v, const int *op, int nv, char *err,
                  size_t errlen);
#endif
