/*
 * Topology tests: option parsing, torus shape selection, torus wiring, DOR
 * routing and dateline VC classes (000 sec. 4.2.2 / 5.1.1) including a
 * channel-dependency-graph deadlock check, and fat tree wiring and up*-then-down*
 * routing (001 sec. 2.3 / 4.4).
 */
#include <stdlib.h>
#include <string.h>

#include "net/topo.h"
#include "tap.h"

/* ------------------------------------------------------------- helpers */

static int build(const char *s, int nnodes, mf_topo_t *t)
{
    mf_topo_spec_t spec;
    char err[256];
    if (mf_topo_parse(s, &spec, err, sizeof err) ||
        mf_topo_build(&spec, nnodes, 1, t, err, sizeof err)) {
        diag("%s", err);
        return -1;
    }
    return 0;
}

static int peer(const mf_topo_t *t, int s, int p) { return t->peer_sw[s * t->max_ports + p]; }
static int peer_port(const mf_topo_t *t, int s, int p)
{
    return t->peer_port[s * t->max_ports + p];
}

/* Channel dependency graph over (switch, port, class) nodes. */
typedef struct {
    int n;
    unsigned char *adj; /* n x n */
} cdg_t;

static int cdg_init(cdg_t *g, int n)
{
    g->n = n;
    g->adj = calloc((size_t)n * (size_t)n, 1);
    return g->adj ? 0 : -1;
}

static void cdg_edge(cdg_t *g, int a, int b) { g->adj[(size_t)a * g->n + b] = 1; }

/* Kahn's algorithm: acyclic iff every node can be removed. */
static int cdg_acyclic(const cdg_t *g)
{
    int n = g->n, removed = 0, head = 0, tail = 0;
    int *indeg = calloc((size_t)n, sizeof *indeg), *queue = malloc((size_t)n * sizeof *queue);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            indeg[b] += g->adj[(size_t)a * n + b];
    for (int a = 0; a < n; a++)
        if (!indeg[a])
            queue[tail++] = a;
    while (head < tail) {
        int a = queue[head++];
        removed++;
        for (int b = 0; b < n; b++)
            if (g->adj[(size_t)a * n + b] && --indeg[b] == 0)
                queue[tail++] = b;
    }
    free(indeg);
    free(queue);
    return removed == n;
}

/* ---------------------------------------------------------------- parse */

static void test_parse(void)
{
    mf_topo_spec_t s;
    char err[256];
    ok(mf_topo_parse("torus:4x4x4", &s, err, sizeof err) == 0 && s.kind == MF_TOPO_TORUS &&
           s.x == 4 && s.y == 4 && s.z == 4,
       "parse torus:4x4x4");
    ok(mf_topo_parse("torus:3x5x2", &s, err, sizeof err) == 0 && s.x == 3 && s.y == 5 &&
           s.z == 2,
       "parse torus:3x5x2");
    ok(mf_topo_parse("torus", &s, err, sizeof err) == 0 && s.kind == MF_TOPO_TORUS &&
           s.x == 0 && s.y == 0 && s.z == 0,
       "parse torus (dims from node count)");
    ok(mf_topo_parse("fattree:16", &s, err, sizeof err) == 0 && s.kind == MF_TOPO_FATTREE &&
           s.radix == 16 && s.oversub == 0,
       "parse fattree:16 (oversubscription left to the parameter set)");
    ok(mf_topo_parse("fattree:28:3", &s, err, sizeof err) == 0 && s.radix == 28 &&
           s.oversub == 3,
       "parse fattree:28:3");
    ok(mf_topo_parse("fattree:8:1", &s, err, sizeof err) == 0 && s.radix == 8 &&
           s.oversub == 1,
       "parse fattree:8:1");
    static const char *bad[] = {"",           "mesh",          "torus:",      "torus:4x4",
                                "torus:4x4x", "torus:4x4x4x2", "torus:0x4x4", "torus:4x-4x4",
                                "torus4x4x4", "torus:4x4x4 ",  "fattree",     "fattree:",
                                "fattree:3",  "fattree:abc",   "fattree:16:", "fattree:16:0",
                                "fattree:16x", "fattree:16:3:1", "Torus:4x4x4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = mf_topo_parse(bad[i], &s, err, sizeof err);
        ok(rc != 0 && strstr(err, bad[i]) && strstr(err, "torus:XxYxZ") &&
               strstr(err, "fattree:RADIX") && !strchr(err, '\n'),
           "reject \"%s\" (%s)", bad[i], err);
    }
}

/* ------------------------------------------------------------- dims_for */

static void test_dims_for(void)
{
    static const int cases[][4] = {{64, 4, 4, 4}, {8, 2, 2, 2},    {32, 4, 4, 2}, {128, 8, 4, 4},
                                   {2, 2, 1, 1},  {12, 3, 2, 2},   {1, 1, 1, 1},  {27, 3, 3, 3},
                                   {5, 2, 2, 2},  {2048, 16, 16, 8}, {588, 12, 7, 7}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int d[3];
        mf_torus_dims_for(cases[i][0], d);
        ok(d[0] == cases[i][1] && d[1] == cases[i][2] && d[2] == cases[i][3],
           "dims_for(%d) = %dx%dx%d (got %dx%dx%d)", cases[i][0], cases[i][1], cases[i][2],
           cases[i][3], d[0], d[1], d[2]);
    }
    int bad = 0;
    for (int n = 1; n <= 1000; n++) {
        int d[3];
        mf_torus_dims_for(n, d);
        long vol = (long)d[0] * d[1] * d[2];
        if (d[0] < d[1] || d[1] < d[2] || d[2] < 1 || vol < n || d[0] > 4 * d[2] ||
            vol > 2L * n) {
            if (!bad++)
                diag("dims_for(%d) = %dx%dx%d", n, d[0], d[1], d[2]);
        }
    }
    ok(!bad, "dims_for(1..1000): X>=Y>=Z, fits, X <= 4Z, at most 2x the nodes");
}

/* ---------------------------------------------------------------- torus */

static int ring_dist(int a, int b, int n)
{
    int f = ((b - a) % n + n) % n;
    return f < n - f ? f : n - f;
}

static int torus_dist(const mf_topo_t *t, int a, int b)
{
    int ca[3], cb[3], h = 0;
    mf_torus_coord(t, a, ca);
    mf_torus_coord(t, b, cb);
    for (int d = 0; d < 3; d++)
        h += ring_dist(ca[d], cb[d], t->dims[d]);
    return h;
}

static void check_torus_links(const mf_topo_t *t, const char *name)
{
    int asym = 0, geom = 0, coord = 0;
    for (int s = 0; s < t->nswitches; s++) {
        int c[3];
        mf_torus_coord(t, s, c);
        coord += mf_torus_switch(t, c) != s;
        for (int p = 0; p < 6; p++) {
            int d = p / 2, n = t->dims[d], q = peer(t, s, p);
            if (n == 1) {
                geom += q != -1;
                continue;
            }
            if (q < 0 || peer(t, q, peer_port(t, s, p)) != s ||
                peer_port(t, q, peer_port(t, s, p)) != p || peer_port(t, s, p) != (p ^ 1)) {
                asym++;
                continue;
            }
            int cq[3];
            mf_torus_coord(t, q, cq);
            int want = (c[d] + (p & 1 ? n - 1 : 1)) % n;
            for (int e = 0; e < 3; e++)
                geom += e == d ? cq[e] != want : cq[e] != c[e];
        }
    }
    ok(!coord, "%s: coordinates round-trip", name);
    ok(!asym, "%s: links symmetric, X+ pairs with X- etc.", name);
    ok(!geom, "%s: ports reach the +/-1 neighbour, size-1 dims unlinked", name);
}

typedef struct {
    int hops, dist_bad, dor_bad, first_bad, keep_bad, hops_fn_bad, tie_bad;
} path_stats_t;

/*
 * Walk every pair with the exact router, check distance, DOR order and the
 * dateline class rules, and record the channel dependencies.
 */
static void walk_exact(const mf_topo_t *t, int a, int b, cdg_t *g, path_stats_t *st)
{
    int cur = a, in_port = MF_PORT_NONE, vc = 0, prev_dim = -1, prev_node = -1, hops = 0;
    while (hops <= t->nswitches) {
        int port = mf_topo_route_ex(t, cur, b, in_port, &vc);
        if (port == MF_PORT_NONE)
            break;
        int d = port / 2, n = t->dims[d], c[3];
        mf_torus_coord(t, cur, c);
        int wrap = (port & 1) ? c[d] == 0 : c[d] == n - 1;
        int cb[3];
        mf_torus_coord(t, b, cb);
        if (d != prev_dim && 2 * (((cb[d] - c[d]) % n + n) % n) == n && (port & 1))
            st->tie_bad++;
        int prev_vc = prev_node >= 0 ? prev_node & 1 : -1;
        if (d < prev_dim)
            st->dor_bad++;
        if (d != prev_dim && vc != ((port & 1) ^ wrap))
            st->first_bad++;
        if (d == prev_dim && vc != (prev_vc ^ wrap))
            st->keep_bad++;
        int node = (cur * 6 + port) * 2 + vc;
        if (prev_node >= 0)
            cdg_edge(g, prev_node, node);
        prev_node = node;
        prev_dim = d;
        in_port = peer_port(t, cur, port);
        cur = peer(t, cur, port);
        hops++;
    }
    if (cur != b || hops != torus_dist(t, a, b))
        st->dist_bad++;
    if (mf_topo_hops(t, a, b) != hops)
        st->hops_fn_bad++;
}

/* The port-less router: same ports, deadlock-free classes. */
static int walk_plain(const mf_topo_t *t, int a, int b, int vc, cdg_t *g)
{
    int cur = a, prev_node = -1, hops = 0, port;
    while (hops <= t->nswitches && (port = mf_topo_route(t, cur, b, &vc)) != MF_PORT_NONE) {
        int node = (cur * 6 + port) * 2 + vc;
        if (prev_node >= 0)
            cdg_edge(g, prev_node, node);
        if (vc < 0 || vc > 1)
            return -1;
        prev_node = node;
        cur = peer(t, cur, port);
        hops++;
    }
    return cur == b && hops == torus_dist(t, a, b) ? 0 : -1;
}

static void check_torus_routes(const mf_topo_t *t, const char *name, int check_cdg)
{
    path_stats_t st = {0};
    cdg_t exact, plain;
    int n = t->nswitches, plain_bad = 0;
    if (cdg_init(&exact, n * 12) || cdg_init(&plain, n * 12)) {
        ok(0, "%s: out of memory", name);
        return;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            walk_exact(t, a, b, &exact, &st);
            plain_bad += walk_plain(t, a, b, 0, &plain) != 0;
            plain_bad += walk_plain(t, a, b, 1, &plain) != 0;
        }
    ok(!st.dist_bad, "%s: every pair arrives in the minimal torus distance", name);
    ok(!st.hops_fn_bad, "%s: mf_topo_hops matches the routed path", name);
    ok(!st.dor_bad, "%s: dimension order X, Y, Z", name);
    ok(!st.tie_bad, "%s: half-ring distance goes the + way", name);
    ok(!st.first_bad, "%s: first hop in a dimension has class 0 (+) / 1 (-), toggled on a wrap",
       name);
    ok(!st.keep_bad, "%s: class changes inside a dimension only on the wraparound link", name);
    ok(!plain_bad, "%s: mf_topo_route (no arrival port) takes the same minimal paths", name);
    if (check_cdg) {
        ok(cdg_acyclic(&exact), "%s: channel dependency graph acyclic (exact dateline rule)",
           name);
        ok(cdg_acyclic(&plain), "%s: channel dependency graph acyclic (mf_topo_route)", name);
    }
    free(exact.adj);
    free(plain.adj);
}

static void test_torus_shape(const char *s, int nnodes, int check_cdg)
{
    mf_topo_t t;
    char name[64];
    snprintf(name, sizeof name, "%s/%d", s, nnodes);
    if (!ok(build(s, nnodes, &t) == 0, "%s: builds", name))
        return;
    ok(t.kind == MF_TOPO_TORUS && t.max_ports == 6 &&
           t.nswitches == t.dims[0] * t.dims[1] * t.dims[2] && t.nranks == nnodes,
       "%s: %dx%dx%d, 6 ports", name, t.dims[0], t.dims[1], t.dims[2]);
    int attach = 0;
    for (int i = 0; i < t.nnodes; i++)
        attach += t.node_sw[i] != i || t.node_slot[i] != 0;
    for (int s2 = 0; s2 < t.nswitches; s2++)
        attach += t.sw_nodes[s2] != (s2 < nnodes) || t.sw_level[s2] != 0;
    ok(!attach, "%s: node i on switch i, empty switches beyond the nodes", name);
    check_torus_links(&t, name);
    check_torus_routes(&t, name, check_cdg);
    mf_topo_free(&t);
}

static void test_torus(void)
{
    test_torus_shape("torus:4x4x4", 64, 1);
    test_torus_shape("torus:3x3x3", 27, 1);
    test_torus_shape("torus:5x2x1", 10, 1);
    test_torus_shape("torus:3x5x2", 30, 1);
    test_torus_shape("torus:2x2x2", 8, 1);
    test_torus_shape("torus:6x1x1", 6, 1);
    test_torus_shape("torus", 5, 1); /* 2x2x2 with 3 empty switches */

    mf_topo_t t;
    char buf[64];
    if (build("torus", 128, &t) == 0) {
        mf_topo_describe(&t, buf, sizeof buf);
        ok(strcmp(buf, "torus:8x4x4") == 0, "torus for 128 nodes is %s", buf);
        mf_topo_free(&t);
    }
    mf_topo_spec_t spec;
    char err[256] = "";
    mf_topo_parse("torus:2x2x2", &spec, err, sizeof err);
    ok(mf_topo_build(&spec, 9, 1, &t, err, sizeof err) != 0 && strstr(err, "2x2x2") &&
           t.peer_sw == NULL,
       "9 nodes do not fit torus:2x2x2 (%s)", err);
    if (build("torus:2x2x2", 8, &t) == 0) {
        int pp = 1;
        for (int s = 0; s < 8; s++)
            for (int d = 0; d < 3; d++)
                pp &= peer(&t, s, 2 * d) == peer(&t, s, 2 * d + 1) && peer(&t, s, 2 * d) != s;
        ok(pp, "torus:2x2x2: + and - ports are two links to the same neighbour");
        mf_topo_free(&t);
    }
}

/* ------------------------------------------------------------- fat tree */

static int expected_levels(int leaves, int k)
{
    if (leaves <= 1)
        return 1;
    if (leaves <= k)
        return 2;
    long cap = k;
    int L = 2;
    while (cap < leaves) {
        cap *= k / 2;
        L++;
    }
    return L;
}

/* up[s]: list of switches reachable by going up only from leaf s. */
static void mark_ancestors(const mf_topo_t *t, int s, unsigned char *anc)
{
    anc[s] = 1;
    for (int p = 0; p < t->max_ports; p++) {
        int q = peer(t, s, p);
        if (q >= 0 && t->sw_level[q] > t->sw_level[s] && !anc[q])
            mark_ancestors(t, q, anc);
    }
}

static void check_fattree_links(const mf_topo_t *t, const char *name)
{
    int asym = 0, lvl = 0, hostp = 0;
    for (int s = 0; s < t->nswitches; s++) {
        int l = t->sw_level[s];
        for (int p = 0; p < t->max_ports; p++) {
            int q = peer(t, s, p);
            if (l == 0 && p < t->down) {
                hostp += q != -1;
                continue;
            }
            if (l == 0 && t->levels > 1)
                hostp += q < 0; /* every leaf uplink is wired */
            if (q < 0)
                continue;
            int qp = peer_port(t, s, p);
            asym += q == s || peer(t, q, qp) != s || peer_port(t, q, qp) != p;
            lvl += abs(t->sw_level[q] - l) != 1;
        }
    }
    ok(!asym, "%s: links symmetric", name);
    ok(!lvl, "%s: links join adjacent levels", name);
    ok(!hostp, "%s: leaf ports 0..down-1 host-facing, uplinks wired", name);
}

static void check_fattree_nodes(const mf_topo_t *t, const char *name)
{
    int bad = 0, leaves = 0;
    int *count = calloc((size_t)t->nswitches, sizeof *count);
    unsigned char *used = calloc((size_t)t->nswitches * (size_t)t->down, 1);
    for (int n = 0; n < t->nnodes; n++) {
        int s = t->node_sw[n], slot = t->node_slot[n];
        if (s < 0 || s >= t->nswitches || t->sw_level[s] != 0 || slot < 0 || slot >= t->down ||
            used[(size_t)s * t->down + slot]++) {
            bad++;
            continue;
        }
        count[s]++;
    }
    for (int s = 0; s < t->nswitches; s++) {
        bad += count[s] != t->sw_nodes[s];
        leaves += t->sw_level[s] == 0;
    }
    ok(!bad, "%s: nodes on leaves, unique slots, sw_nodes consistent", name);
    ok(leaves == (t->nnodes + t->down - 1) / t->down, "%s: %d leaves for %d nodes", name,
       leaves, t->nnodes);
    free(count);
    free(used);
}

/* Walk s -> b counting visits in through[]; returns hops, or -1 if the path
 * is not up*-then-down*. */
static int walk_updown(const mf_topo_t *t, int s, int b, int *through)
{
    int cur = s, hops = 0, going_down = 0, vc = 0, port;
    while (hops <= t->nswitches && (port = mf_topo_route(t, cur, b, &vc)) != MF_PORT_NONE) {
        int q = peer(t, cur, port);
        if (q < 0 || vc != 0)
            return -1;
        int down = t->sw_level[q] < t->sw_level[cur];
        if (going_down && !down)
            return -1;
        going_down |= down;
        cur = q;
        if (through)
            through[cur]++;
        hops++;
    }
    return cur == b ? hops : -1;
}

static void check_fattree_routes(const mf_topo_t *t, const char *name)
{
    int n = t->nswitches, bad = 0, hbad = 0, anybad = 0;
    unsigned char *anc = calloc((size_t)n * (size_t)n, 1);
    int *through = calloc((size_t)n, sizeof *through);
    for (int s = 0; s < n; s++)
        if (t->sw_level[s] == 0)
            mark_ancestors(t, s, anc + (size_t)s * n);
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            if (t->sw_level[b] != 0)
                continue;
            int h = walk_updown(t, a, b, t->sw_level[a] == 0 ? through : NULL);
            if (t->sw_level[a] != 0) {
                anybad += h < 0;
                continue;
            }
            int lca = a == b ? 0 : 1 << 30;
            for (int u = 0; u < n; u++)
                if (anc[(size_t)a * n + u] && anc[(size_t)b * n + u] && t->sw_level[u] < lca)
                    lca = t->sw_level[u];
            if (h != 2 * lca) {
                if (!bad++)
                    diag("%s: leaf %d -> %d: %d hops, common ancestor level %d", name, a, b, h,
                         lca);
            }
            hbad += mf_topo_hops(t, a, b) != h;
        }
    }
    ok(!bad, "%s: every leaf pair routed up*-then-down* in 2 x common-ancestor-level hops", name);
    ok(!hbad, "%s: mf_topo_hops matches the routed path", name);
    ok(!anybad, "%s: upper switches reach every leaf down*-only or up*-then-down*", name);
    /* destination-mod-k: top switch = leaf index mod (number of top switches),
     * digit-reversed, so min(tops, leaves) of them carry traffic */
    int tops = 0, used = 0, leaves = 0;
    for (int s = 0; s < n; s++) {
        leaves += t->sw_level[s] == 0;
        if (t->levels > 1 && t->sw_level[s] == t->levels - 1) {
            tops++;
            used += through[s] > 0;
        }
    }
    ok(used == (tops < leaves ? tops : leaves), "%s: %d of %d top switches carry traffic", name,
       used, tops);
    free(through);
    free(anc);
}

static void test_fattree_one(int k, int nnodes)
{
    char spec[32], name[64];
    mf_topo_t t;
    snprintf(spec, sizeof spec, "fattree:%d", k);
    snprintf(name, sizeof name, "%s/%d", spec, nnodes);
    if (!ok(build(spec, nnodes, &t) == 0, "%s: builds", name))
        return;
    int down = k * 3 / 4, leaves = (nnodes + down - 1) / down;
    /* 001 sec. 6: 3:1 oversubscription -> 6/2, 12/4, 21/7 */
    ok(t.kind == MF_TOPO_FATTREE && t.radix == k && t.max_ports == k && t.down == down &&
           t.up == k - down && t.down == 3 * t.up,
       "%s: leaves %d down / %d up (3:1)", name, t.down, t.up);
    ok(t.levels == expected_levels(leaves, k), "%s: %d levels, %d switches", name, t.levels,
       t.nswitches);
    if (t.levels == 2)
        ok(t.nswitches == leaves + t.up, "%s: spine-leaf with %d spines", name, t.up);
    check_fattree_links(&t, name);
    check_fattree_nodes(&t, name);
    check_fattree_routes(&t, name);
    mf_topo_free(&t);
}

static void test_fattree(void)
{
    static const int radix[] = {8, 16, 28};
    static const int nodes[] = {16, 48, 64, 128, 588};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 5; j++)
            test_fattree_one(radix[i], nodes[j]);

    mf_topo_t t;
    char buf[64];
    if (build("fattree:16", 64, &t) == 0) {
        mf_topo_describe(&t, buf, sizeof buf);
        ok(strcmp(buf, "fattree:16") == 0, "describe %s", buf);
        mf_topo_free(&t);
    }
    if (build("fattree:8:1", 64, &t) == 0) {
        mf_topo_describe(&t, buf, sizeof buf);
        ok(strcmp(buf, "fattree:8:1") == 0 && t.down == 4 && t.up == 4, "describe %s (4/4)",
           buf);
        check_fattree_links(&t, "fattree:8:1/64");
        check_fattree_routes(&t, "fattree:8:1/64");
        mf_topo_free(&t);
    }
    if (build("fattree:8", 2048, &t) == 0) {
        check_fattree_links(&t, "fattree:8/2048");
        check_fattree_routes(&t, "fattree:8/2048");
        mf_topo_free(&t);
    }
}

int main(void)
{
    test_parse();
    test_dims_for();
    test_torus();
    test_fattree();
    return tap_done();
}
