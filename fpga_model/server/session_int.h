/*
 * The switch engine's message handling, split by concern (session.h is
 * the interface):
 *   session.c        ranks: HELLO, CT_CONFIG / CT_FREE, BYE, SHMBUF, dispatch
 *   session_calls.c  calls: COLL / DATA collected into records, the model
 *                    run, RESULT / DATA back, FETCH of deferred results
 *   session_check.c  comparing the members' calls, and saying how they differ
 * This header is theirs alone: the state they share and their helpers.
 */
#ifndef MF_SESSION_INT_H
#define MF_SESSION_INT_H

#include <stdint.h>

#include "mpifpga/engine_msg.h"
#include "server/baseline_calls.h"
#include "server/session.h"
#include "transport/shmbuf.h"

#define LOG_PREFIX "mpifpga-switchd: "

/* What a rank's CT row holds, as far as the engine checks calls against it. */
typedef struct {
    uint16_t size, rank, global0;
    uint8_t valid;
} ct_row_t;

typedef struct member member_t;
typedef struct record record_t;

typedef struct {
    int bye;
    uint32_t pid;             /* from HELLO: reaches the rank's payload buffer */
    mf_shmbuf_t shm;          /* the rank's payload buffer (SHMBUF), or none */
    uint16_t addrlen;
    uint8_t addr[MF_EM_ADDR_MAX];
    ct_row_t ct[MF_MAX_CTX];
    char *ct_err[MF_MAX_CTX]; /* failed CT_CONFIG / CT_FREE, told with the next COLL */
    member_t *calls;          /* this rank's outstanding calls (rank_next list) */
} rank_t;

/* One member's call in a pending record. */
struct member {
    int present, arrived;
    int grank;
    uint32_t seq;
    int want_baseline; /* COLL flag MF_EM_F_BASELINE */
    int defer;         /* COLL flag MF_EM_F_DEFER: DATA of the result on FETCH */
    int in_shm;        /* COLL flag MF_EM_F_SHMBUF: send / recv point into it */
    mf_em_coll_t c;   /* c.counts -> counts below */
    uint32_t *counts;
    uint8_t *send;    /* send_bytes of DATA, collected */
    uint64_t got;
    char err[MF_EM_TEXT_MAX]; /* set: the call failed on this member */
    record_t *rec;
    member_t *rank_next;
    /* model run */
    uint8_t *recv;
    uint64_t at;      /* cycle it enters the model */
    uint64_t complete;
    int status;
    char merr[160];
};

/* The result of a deferred call, kept until its rank sends FETCH. */
typedef struct held {
    int grank;
    uint32_t seq;
    uint8_t *buf;
    uint64_t len;
    struct held *next;
} held_t;

/* The calls of one communicator's members, collected until all arrived. */
struct record {
    uint8_t ctx;
    uint16_t global0;
    int size, narrived;
    member_t *m; /* [size], indexed by comm rank */
    record_t *next;
};

struct mf_session {
    mf_net_t *net;
    mf_session_net_t ops; /* what changes net goes through these */
    int nranks;
    int have_secret;                      /* only HELLOs with this secret get in */
    uint8_t secret[MF_EM_SECRET_BYTES];
    rank_t **ranks; /* [nranks], allocated by an accepted HELLO */
    record_t *recs;
    held_t *held;   /* deferred results waiting for FETCH */
    mf_session_out_fn out;
    void *user;
    int verbose;
    mf_blc_t *blc;  /* modeled baseline times (MF_EM_F_BASELINE) */
    /* Set when a model run failed: the calls it held never leave the model,
     * so no later run can complete. */
    char broken[MF_EM_TEXT_MAX];
    uint8_t buf[MF_EM_MAX]; /* outgoing message */
};

/* snprintf for messages: cutting a long one short is intended. */
int ses_textf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ses_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ses_mpi_name(unsigned opc);
const char *ses_alg_name(unsigned alg);
double ses_cycle_ns(const mf_session_t *s);

/* Output to rank grank (message n bytes in s->buf; what: for the log). */
int ses_emit(mf_session_t *s, int grank, size_t n, const char *what);
int ses_send_result(mf_session_t *s, int grank, uint32_t seq, const mf_em_result_t *r);
int ses_send_error(mf_session_t *s, int grank, uint32_t seq, const char *text);
int ses_send_data(mf_session_t *s, int grank, uint32_t seq, const uint8_t *buf, uint64_t len);

/* The state of an accepted rank, or NULL (logged) if g has not said HELLO. */
rank_t *ses_live_rank(mf_session_t *s, const mf_em_hdr_t *h);

/* session_calls.c */
void ses_member_release(member_t *m);
void ses_record_free(mf_session_t *s, record_t *rec);
int ses_on_coll(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len);
int ses_on_data(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len);
int ses_on_fetch(mf_session_t *s, const mf_em_hdr_t *h);

/* session_check.c: 0 if the members' calls agree; else 1 with text saying
 * how they differ, or -1 out of memory. */
int ses_args_differ(const record_t *rec, char *text, size_t len);

#endif
