/*
 * Topology front end: parsing of the topology option, torus shape selection,
 * dispatch to the torus (torus.c) and fat tree (fattree.c) builders and
 * routers, and the helpers common to both.
 */
#include "net/topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_FORMS "accepted: torus, torus:XxYxZ, fattree:RADIX, fattree:RADIX:OVERSUB"
#define TORUS_MAX_DIM 1024    /* coordinates are stored as int16_t */
#define FATTREE_MIN_RADIX 4   /* middle levels need k/2 >= 2 */
#define FATTREE_MAX_RADIX 127 /* peer_port is int8_t */
#define FATTREE_MAX_OVERSUB 64
#define DEFAULT_OVERSUB 3 /* 001 sec. 6: "default over-subscription of 3:1" */

/* ------------------------------------------------------------------ parse */

static int parse_fail(const char *s, const char *why, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "bad topology \"%s\": %s (" TOPO_FORMS ")", s, why);
    return -1;
}

/* Parse a decimal integer in [lo, hi] at *p, advancing *p past it. */
static int parse_int(const char **p, int lo, int hi, int *out)
{
    if (**p < '0' || **p > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (errno || v < lo || v > hi)
        return -1;
    *p = end;
    *out = (int)v;
    return 0;
}

static int parse_torus(const char *s, const char *p, mf_topo_spec_t *spec, char *err,
                       size_t errlen)
{
    if (*p == '\0')
        return 0; /* "torus": dims chosen from the node count */
    if (*p++ != ':')
        return parse_fail(s, "expected ':' after torus", err, errlen);
    int d[3];
    for (int i = 0; i < 3; i++) {
        if (i && *p++ != 'x')
            return parse_fail(s, "torus dims must be XxYxZ", err, errlen);
        if (parse_int(&p, 1, TORUS_MAX_DIM, &d[i]))
            return parse_fail(s, "torus dims must be XxYxZ with 1..1024 each", err, errlen);
    }
    if (*p)
        return parse_fail(s, "trailing text after torus dims", err, errlen);
    spec->x = d[0];
    spec->y = d[1];
    spec->z = d[2];
    return 0;
}

static int parse_fattree(const char *s, const char *p, mf_topo_spec_t *spec, char *err,
                         size_t errlen)
{
    if (*p++ != ':')
        return parse_fail(s, "fattree needs a radix", err, errlen);
    if (parse_int(&p, FATTREE_MIN_RADIX, FATTREE_MAX_RADIX, &spec->radix))
        return parse_fail(s, "fattree radix must be 4..127", err, errlen);
    if (*p == ':') {
        p++;
        if (parse_int(&p, 1, FATTREE_MAX_OVERSUB, &spec->oversub))
            return parse_fail(s, "oversubscription must be 1..64", err, errlen);
    }
    if (*p)
        return parse_fail(s, "trailing text after fattree radix", err, errlen);
    return 0;
}

int mf_topo_parse(const char *s, mf_topo_spec_t *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->oversub = 0; /* not given: the parameter set's (default 3) */
    if (!s)
        return parse_fail("", "empty", err, errlen);
    if (strncmp(s, "torus", 5) == 0) {
        spec->kind = MF_TOPO_TORUS;
        return parse_torus(s, s + 5, spec, err, errlen);
    }
    if (strncmp(s, "fattree", 7) == 0) {
        spec->kind = MF_TOPO_FATTREE;
        return parse_fattree(s, s + 7, spec, err, errlen);
    }
    return parse_fail(s, "unknown topology", err, errlen);
}

/* ------------------------------------------------------------ torus shape */

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; (long)d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static void set_dims(int dims[3], int x, int y, int z)
{
    dims[0] = x;
    dims[1] = y;
    dims[2] = z;
}

/* Exact factorisation X>=Y>=Z, X*Y*Z == n, minimising X-Z (then X). */
static void best_exact(int n, int dims[3])
{
    set_dims(dims, n, 1, 1);
    for (int z = 1; (long)z * z * z <= n; z++) {
        if (n % z)
            continue;
        int m = n / z;
        for (int y = z; (long)y * y <= m; y++) {
            if (m % y)
                continue;
            int x = m / y;
            if (x - z < dims[0] - dims[2] || (x - z == dims[0] - dims[2] && x < dims[0]))
                set_dims(dims, x, y, z);
        }
    }
}

/*
 * Smallest near-cubic box (X>=Y>=Z, X <= 2Z) with X*Y*Z >= n; ties go to
 * the smaller X-Z.  The cube ceil(cbrt n)^3 qualifies, so Z never needs to
 * exceed its side.
 */
static void best_box(int n, int dims[3])
{
    int c = 1;
    while ((long)c * c * c < n)
        c++;
    set_dims(dims, c, c, c);
    long best = (long)c * c * c;
    for (int z = 1; z <= c; z++) {
        for (int y = z; y <= 2 * z; y++) {
            long yz = (long)y * z;
            long x = (n + yz - 1) / yz;
            if (x < y)
                x = y;
            if (x > 2 * z)
                continue;
            long vol = x * yz;
            if (vol < best || (vol == best && x - z < dims[0] - dims[2])) {
                best = vol;
                set_dims(dims, (int)x, y, z);
            }
        }
    }
}

void mf_torus_dims_for(int nodes, int dims[3])
{
    if (nodes < 1)
        nodes = 1;
    best_exact(nodes, dims);
    /* A very elongated exact shape (or a prime's ring) has a large diameter:
     * accept a few empty switches instead. */
    if (dims[0] > 4 * dims[2] || is_prime(nodes))
        best_box(nodes, dims);
}

/* ------------------------------------------------------------------ build */

int mf_topo_alloc(mf_topo_t *t, int nswitches, int max_ports, int nnodes)
{
    size_t nlinks = (size_t)nswitches * (size_t)max_ports;
    t->nswitches = nswitches;
    t->max_ports = max_ports;
    t->peer_sw = malloc(nlinks * sizeof *t->peer_sw);
    t->peer_port = malloc(nlinks * sizeof *t->peer_port);
    t->node_sw = calloc((size_t)nnodes, sizeof *t->node_sw);
    t->node_slot = calloc((size_t)nnodes, sizeof *t->node_slot);
    t->sw_nodes = calloc((size_t)nswitches, sizeof *t->sw_nodes);
    t->sw_level = calloc((size_t)nswitches, sizeof *t->sw_level);
    if (!t->peer_sw || !t->peer_port || !t->node_sw || !t->node_slot || !t->sw_nodes ||
        !t->sw_level)
        return -1;
    for (size_t i = 0; i < nlinks; i++) {
        t->peer_sw[i] = -1;
        t->peer_port[i] = -1;
    }
    return 0;
}

int mf_topo_build(const mf_topo_spec_t *spec, int nnodes, int ppn, mf_topo_t *t, char *err,
                  size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (nnodes < 1 || ppn < 1 || (long)nnodes * ppn > 0x7fffffffL) {
        snprintf(err, errlen, "bad network size: %d nodes x %d ranks per node", nnodes, ppn);
        return -1;
    }
    t->kind = spec->kind;
    t->nnodes = nnodes;
    t->ppn = ppn;
    t->nranks = nnodes * ppn;
    int rc;
    switch (spec->kind) {
    case MF_TOPO_TORUS:
        rc = mf_torus_build(spec, nnodes, t, err, errlen);
        break;
    case MF_TOPO_FATTREE:
        rc = mf_fattree_build(spec, nnodes, t, err, errlen);
        break;
    default:
        snprintf(err, errlen, "unknown topology kind %d", (int)spec->kind);
        rc = -1;
    }
    if (!rc && !(t->rank_sw = malloc((size_t)t->nranks * sizeof *t->rank_sw))) {
        snprintf(err, errlen, "out of memory for the rank -> switch table (%d ranks)",
                 t->nranks);
        rc = -1;
    }
    if (rc) {
        mf_topo_free(t);
        return rc;
    }
    for (int r = 0; r < t->nranks; r++)
        t->rank_sw[r] = t->node_sw[r / ppn];
    return 0;
}

void mf_topo_free(mf_topo_t *t)
{
    free(t->peer_sw);
    free(t->peer_port);
    free(t->node_sw);
    free(t->rank_sw);
    free(t->node_slot);
    free(t->sw_nodes);
    free(t->sw_level);
    free(t->impl);
    memset(t, 0, sizeof *t);
}

void mf_topo_describe(const mf_topo_t *t, char *buf, size_t len)
{
    if (t->kind == MF_TOPO_TORUS) {
        snprintf(buf, len, "torus:%dx%dx%d", t->dims[0], t->dims[1], t->dims[2]);
        return;
    }
    int os = mf_fattree_oversub(t);
    if (os == DEFAULT_OVERSUB)
        snprintf(buf, len, "fattree:%d", t->radix);
    else
        snprintf(buf, len, "fattree:%d:%d", t->radix, os);
}

/* ---------------------------------------------------------------- routing */

int mf_topo_route(const mf_topo_t *t, int sw, int dst_sw, int *vc)
{
    if (t->kind == MF_TOPO_TORUS)
        return mf_torus_route(t, sw, dst_sw, MF_PORT_UNKNOWN, vc);
    return mf_fattree_route(t, sw, dst_sw);
}

int mf_topo_route_ex(const mf_topo_t *t, int sw, int dst_sw, int in_port, int *vc)
{
    if (t->kind == MF_TOPO_TORUS)
        return mf_torus_route(t, sw, dst_sw, in_port < 0 ? MF_PORT_NONE : in_port, vc);
    return mf_fattree_route(t, sw, dst_sw);
}

int mf_topo_hops(const mf_topo_t *t, int a, int b)
{
    if (a < 0 || b < 0 || a >= t->nswitches || b >= t->nswitches)
        return -1;
    int cur = a, in_port = MF_PORT_NONE, vc = 0;
    for (int hops = 0; hops <= t->nswitches; hops++) {
        int port = mf_topo_route_ex(t, cur, b, in_port, &vc);
        if (port == MF_PORT_NONE)
            return cur == b ? hops : -1;
        size_t link = (size_t)cur * (size_t)t->max_ports + (size_t)port;
        if (t->peer_sw[link] < 0)
            return -1;
        in_port = t->peer_port[link];
        cur = t->peer_sw[link];
    }
    return -1; /* routing loop: cannot happen for a consistent topology */
}

/* Up the fat tree's aggregation tree from switch a to its ancestor b: the
 * links climbed, or -1 if b is not above a. */
static int agg_levels_up(const mf_topo_t *t, int a, int b)
{
    for (int hops = 0, port; a >= 0; hops++, a = mf_fattree_agg_parent(t, a, &port))
        if (a == b)
            return hops;
    return -1;
}

int mf_topo_engine_hops(const mf_topo_t *t, int nranks, int ga, int gb)
{
    int a = mf_topo_engine_switch(t, nranks, ga), b = mf_topo_engine_switch(t, nranks, gb);
    if (t->kind == MF_TOPO_TORUS || (t->sw_level[a] == 0 && t->sw_level[b] == 0))
        return mf_topo_hops(t, a, b);
    /* an aggregation engine of an upper switch talks to its tree's children
     * and parent only (ccm_ftree.c): the aggregation tree's links */
    int up = agg_levels_up(t, a, b);
    return up >= 0 ? up : agg_levels_up(t, b, a);
}
