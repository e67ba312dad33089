/* The engine's modeled baseline times, cached per distinct call; see
 * baseline_calls.h. */
#include "server/baseline_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "coll/run.h"
#include "params/host.h"
#include "params/params.h"

#define HOST_PARAMS "skx-opa" /* as mpifpga-sim --baseline's default */

/* One distinct call and its result.  members, counts and lat live in the
 * same allocation, after the struct. */
typedef struct entry {
    struct entry *next; /* bucket chain */
    uint64_t hash;
    uint8_t opcode, op, dtype;
    uint16_t root;
    uint32_t hdr_size;
    int size;
    int ok;             /* 0: the baseline cannot run this call (lat all 0) */
    uint64_t *lat;      /* [size], offload-network cycles */
    int *members;       /* [size] */
    uint32_t *counts;   /* [size], or NULL */
} entry_t;

struct mf_blc {
    const mf_net_t *offload;
    mf_blc_log_fn log;
    mf_net_t *net;          /* the baseline's own network; NULL until needed */
    mf_host_params_t host;
    int have_host;
    int broken;             /* network or host parameters cannot be had (logged once) */
    entry_t **bucket;       /* [nbucket], a power of two */
    size_t nbucket, nentry;
    unsigned long simulated;
};

uint64_t mf_blc_osu_bytes(mf_opcode_t opc, uint64_t hdr_size, int comm_size)
{
    if (opc == MF_OPC_BARRIER)
        return 0;
    if (opc == MF_OPC_REDUCE_SCATTER)
        return hdr_size * (uint64_t)comm_size;
    return hdr_size;
}

/* ---- create / destroy --------------------------------------------------- */

mf_blc_t *mf_blc_create(const mf_net_t *offload, mf_blc_log_fn log)
{
    mf_blc_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->nbucket = 64;
    b->bucket = calloc(b->nbucket, sizeof *b->bucket);
    if (!b->bucket) {
        free(b);
        return NULL;
    }
    b->offload = offload;
    b->log = log;
    return b;
}

void mf_blc_destroy(mf_blc_t *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nbucket; i++)
        for (entry_t *e = b->bucket[i], *nx; e; e = nx) {
            nx = e->next;
            free(e);
        }
    free(b->bucket);
    mf_net_destroy(b->net);
    free(b);
}

unsigned long mf_blc_simulated(const mf_blc_t *b) { return b->simulated; }

/* ---- the cache ---------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static uint64_t call_hash(const mf_blc_call_t *c)
{
    const mf_proc_hdr_t *h = &c->hdr;
    uint32_t f[6] = {h->opcode, h->op, h->dtype, h->root, h->size, (uint32_t)c->size};
    uint64_t x = fnv(1469598103934665603ull, f, sizeof f);
    x = fnv(x, c->members, (size_t)c->size * sizeof *c->members);
    if (c->counts)
        x = fnv(x, c->counts, (size_t)c->size * sizeof *c->counts);
    return x;
}

static int same_call(const entry_t *e, uint64_t hash, const mf_blc_call_t *c)
{
    const mf_proc_hdr_t *h = &c->hdr;
    size_t n = (size_t)c->size;
    if (e->hash != hash || e->size != c->size || e->opcode != h->opcode || e->op != h->op ||
        e->dtype != h->dtype || e->root != h->root || e->hdr_size != h->size ||
        !e->counts != !c->counts)
        return 0;
    if (memcmp(e->members, c->members, n * sizeof *c->members))
        return 0;
    return !c->counts || !memcmp(e->counts, c->counts, n * sizeof *c->counts);
}

static entry_t *lookup(const mf_blc_t *b, uint64_t hash, const mf_blc_call_t *c)
{
    for (entry_t *e = b->bucket[hash & (b->nbucket - 1)]; e; e = e->next)
        if (same_call(e, hash, c))
            return e;
    return NULL;
}

/* A new entry for call c (not yet in the table, lat all 0), or NULL. */
static entry_t *entry_new(uint64_t hash, const mf_blc_call_t *c)
{
    size_t n = (size_t)c->size;
    size_t bytes = sizeof(entry_t) + n * sizeof(uint64_t) + n * sizeof(int) +
                   (c->counts ? n * sizeof(uint32_t) : 0);
    entry_t *e = calloc(1, bytes);
    if (!e)
        return NULL;
    /* uint64_t first: the struct's size keeps it aligned, the rest follows */
    e->lat = (uint64_t *)(e + 1);
    e->members = (int *)(e->lat + n);
    memcpy(e->members, c->members, n * sizeof *e->members);
    if (c->counts) {
        e->counts = (uint32_t *)(e->members + n);
        memcpy(e->counts, c->counts, n * sizeof *e->counts);
    }
    e->hash = hash;
    e->opcode = c->hdr.opcode;
    e->op = c->hdr.op;
    e->dtype = c->hdr.dtype;
    e->root = c->hdr.root;
    e->hdr_size = c->hdr.size;
    e->size = c->size;
    return e;
}

/* Double the buckets once the chains average more than one entry; a
 * failed grow keeps the table as it is (just slower). */
static void maybe_grow(mf_blc_t *b)
{
    if (b->nentry <= b->nbucket)
        return;
    size_t n = 2 * b->nbucket;
    entry_t **nb = calloc(n, sizeof *nb);
    if (!nb)
        return;
    for (size_t i = 0; i < b->nbucket; i++)
        for (entry_t *e = b->bucket[i], *nx; e; e = nx) {
            nx = e->next;
            e->next = nb[e->hash & (n - 1)];
            nb[e->hash & (n - 1)] = e;
        }
    free(b->bucket);
    b->bucket = nb;
    b->nbucket = n;
}

static void insert(mf_blc_t *b, entry_t *e)
{
    entry_t **head = &b->bucket[e->hash & (b->nbucket - 1)];
    e->next = *head;
    *head = e;
    b->nentry++;
    maybe_grow(b);
}

/* ---- running the baseline ----------------------------------------------- */

/* The baseline network and host parameters, made on first use.  -1 (logged
 * once; every later call gets 0 quietly) if they cannot be had. */
static int ensure_model(mf_blc_t *b)
{
    char err[256];
    if (b->broken)
        return -1;
    if (!b->have_host) {
        if (mf_host_params_load(HOST_PARAMS, &b->host, err, sizeof err))
            goto fail;
        b->have_host = 1;
    }
    if (!b->net) {
        b->net = mf_net_create(mf_net_params(b->offload), mf_net_topo(b->offload), err,
                               sizeof err);
        if (!b->net)
            goto fail;
    }
    return 0;
fail:
    b->broken = 1;
    b->log("baseline times are not available (host parameters %s): %s; RESULTs carry "
           "baseline_cycles 0", HOST_PARAMS, err);
    return -1;
}

/* Baseline cycles -> offload-network cycles.  The baseline network copies
 * the offload network's parameters, so the clocks agree; convert anyway
 * should they ever differ. */
static void to_offload_clock(const mf_blc_t *b, uint64_t *lat, int size)
{
    double bl = mf_params_cycle_ns(mf_net_params(b->net));
    double off = mf_params_cycle_ns(mf_net_params(b->offload));
    if (bl == off)
        return;
    for (int i = 0; i < size; i++)
        lat[i] = (uint64_t)((double)lat[i] * bl / off + 0.5);
}

/* The spec mpifpga-sim --baseline would run for this call. */
static mf_coll_spec_t spec_of(const mf_blc_call_t *c)
{
    mf_opcode_t opc = (mf_opcode_t)c->hdr.opcode;
    if (opc == MF_OPC_ALLTOALLV && c->counts) { /* a uniform alltoall of the mean block */
        uint64_t sent = 0;
        for (int j = 0; j < c->size; j++)
            sent += c->counts[c->size + j];
        return (mf_coll_spec_t){.opc = MF_OPC_ALLTOALL, .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                                .bytes = sent / (uint64_t)c->size};
    }
    return (mf_coll_spec_t){.opc = opc, .op = (mf_op_t)c->hdr.op,
                            .dtype = (mf_dtype_t)c->hdr.dtype, .root = c->hdr.root,
                            .bytes = mf_blc_osu_bytes(opc, c->hdr.size, c->size),
                            .counts = opc == MF_OPC_REDUCE_SCATTER ? c->counts : NULL};
}

/* Simulate call c into e->lat; 0, or -1 with err. */
static int simulate(mf_blc_t *b, const mf_blc_call_t *c, entry_t *e, char *err, size_t len)
{
    mf_coll_spec_t spec = spec_of(c);
    mf_coll_timing_t t;
    if (ensure_model(b))
        return snprintf(err, len, "no baseline model"), -1;
    b->simulated++;
    if (mf_bl_coll_once(b->net, &b->host, &spec, c->size, c->members, mf_net_now(b->net),
                        e->lat, &t, err, len)) {
        /* The failed run may have left packets in flight: start the next
         * call on a fresh, idle network. */
        mf_net_destroy(b->net);
        b->net = NULL;
        memset(e->lat, 0, (size_t)c->size * sizeof *e->lat);
        return -1;
    }
    to_offload_clock(b, e->lat, c->size);
    return 0;
}

int mf_blc_latency(mf_blc_t *b, const mf_blc_call_t *c, uint64_t *lat)
{
    char err[256];
    size_t n = (size_t)c->size;
    uint64_t hash = call_hash(c);
    entry_t *e = lookup(b, hash, c);
    memset(lat, 0, n * sizeof *lat);
    if (!e) {
        e = entry_new(hash, c);
        if (!e) {
            b->log("baseline of %s on %d ranks: out of memory; RESULTs carry baseline_cycles 0",
                   mf_opcode_name((mf_opcode_t)c->hdr.opcode), c->size);
            return -1;
        }
        e->ok = simulate(b, c, e, err, sizeof err) == 0;
        if (!e->ok && !b->broken) /* broken: ensure_model said why */
            b->log("baseline of %s on %d ranks, %u bytes: cannot be modeled (%s); its RESULTs "
                   "carry baseline_cycles 0", mf_opcode_name((mf_opcode_t)c->hdr.opcode),
                   c->size, c->hdr.size, err);
        insert(b, e); /* a failure is remembered too: told once */
    }
    if (!e->ok)
        return -1;
    memcpy(lat, e->lat, n * sizeof *lat);
    return 0;
}
