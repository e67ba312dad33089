/*
 * Direct network: 3D torus, one FPGA switch per node (001 sec. 2.3), six
 * network ports (000 sec. 4.2.2, Figure 4.4): 0 X+, 1 X-, 2 Y+, 3 Y-, 4 Z+,
 * 5 Z-.  A dimension of size 1 has no links; in a dimension of size 2 the
 * + and - ports are two distinct links to the same neighbour (A.X+ <-> B.X-,
 * A.X- <-> B.X+).  Switch id = x + X * (y + Y * z).  When the box has more
 * switches than nodes, switches nnodes.. have no processor (sw_nodes = 0).
 *
 * Routing (000 sec. 5.1.1): dimension order X, Y, Z; in each dimension the
 * shorter direction, a tie (distance exactly half the ring) goes to +.  The
 * direction is stable along the path: after one + hop the remaining +
 * distance shrinks and the - distance grows, so the choice never flips.
 *
 * Dateline VC classes (000 sec. 4.2.2, Figure 4.8): the dateline of a
 * dimension is its wraparound link (between coordinates size-1 and 0).  On
 * entering a dimension (including injection) a packet takes class 0 for a +
 * direction and 1 for a - direction; the class toggles on the hop that
 * crosses the dateline (the wraparound link itself carries the toggled
 * class).  Minimal routing crosses each dateline at most once, so in the +
 * ring class 0 never uses the wraparound link and class 1 only uses the
 * links from the wraparound up to the destination: neither class can close
 * the ring, and DOR makes dimension changes acyclic.
 *
 * "Entering a dimension" is known exactly when the caller supplies the port
 * the packet arrived on (mf_topo_route_ex: arrival port in the same
 * dimension = continuing).  Without it (mf_topo_route) the router infers
 * "continuing after the dateline" when the input class is the toggled one
 * and the switch lies between the dateline and the destination (+: c < dst,
 * -: c > dst).  That inference is exact for packets already travelling in the
 * dimension; a packet entering the dimension with the other class may then
 * keep it, but only on links that do not lead to the wraparound (the path
 * c..dst does not wrap), so the wraparound link still carries only the
 * toggled class and the argument above still holds.
 */
#include "net/topo.h"

#include <stdio.h>
#include <stdlib.h>

#define TORUS_PORTS 6

typedef struct {
    int dims[3];
    int16_t coord[][3]; /* per switch */
} torus_impl_t;

static int torus_id(const int dims[3], int x, int y, int z)
{
    return x + dims[0] * (y + dims[1] * z);
}

static void choose_dims(const mf_topo_spec_t *spec, int nnodes, int dims[3])
{
    if (spec->x > 0 && spec->y > 0 && spec->z > 0) {
        dims[0] = spec->x;
        dims[1] = spec->y;
        dims[2] = spec->z;
    } else {
        mf_torus_dims_for(nnodes, dims);
    }
}

static void link_ports(mf_topo_t *t, int a, int pa, int b, int pb)
{
    t->peer_sw[a * TORUS_PORTS + pa] = b;
    t->peer_port[a * TORUS_PORTS + pa] = (int8_t)pb;
}

/* + and - neighbours of every switch; dimension of size 1: no links. */
static void wire(mf_topo_t *t, const torus_impl_t *ti)
{
    for (int s = 0; s < t->nswitches; s++) {
        for (int d = 0; d < 3; d++) {
            int n = ti->dims[d];
            if (n < 2)
                continue;
            int c[3] = {ti->coord[s][0], ti->coord[s][1], ti->coord[s][2]};
            int self = c[d];
            c[d] = (self + 1) % n;
            link_ports(t, s, 2 * d, torus_id(ti->dims, c[0], c[1], c[2]), 2 * d + 1);
            c[d] = (self + n - 1) % n;
            link_ports(t, s, 2 * d + 1, torus_id(ti->dims, c[0], c[1], c[2]), 2 * d);
        }
    }
}

int mf_torus_build(const mf_topo_spec_t *spec, int nnodes, mf_topo_t *t, char *err,
                   size_t errlen)
{
    int dims[3];
    choose_dims(spec, nnodes, dims);
    long nsw = (long)dims[0] * dims[1] * dims[2];
    if (dims[0] > 1024 || dims[1] > 1024 || dims[2] > 1024 || nsw > (1L << 24)) {
        snprintf(err, errlen, "torus %dx%dx%d is too large", dims[0], dims[1], dims[2]);
        return -1;
    }
    if (nnodes > nsw) {
        snprintf(err, errlen, "torus:%dx%dx%d has %ld switches, fewer than the %d nodes",
                 dims[0], dims[1], dims[2], nsw, nnodes);
        return -1;
    }
    if (mf_topo_alloc(t, (int)nsw, TORUS_PORTS, nnodes))
        goto oom;
    torus_impl_t *ti = malloc(sizeof *ti + (size_t)nsw * sizeof ti->coord[0]);
    if (!ti)
        goto oom;
    t->impl = ti;
    for (int d = 0; d < 3; d++)
        ti->dims[d] = t->dims[d] = dims[d];
    for (int s = 0; s < nsw; s++) {
        ti->coord[s][0] = (int16_t)(s % dims[0]);
        ti->coord[s][1] = (int16_t)(s / dims[0] % dims[1]);
        ti->coord[s][2] = (int16_t)(s / (dims[0] * dims[1]));
    }
    wire(t, ti);
    for (int i = 0; i < nnodes; i++) {
        t->node_sw[i] = i;
        t->node_slot[i] = 0;
        t->sw_nodes[i] = 1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory building torus %dx%dx%d", dims[0], dims[1], dims[2]);
    return -1;
}

/*
 * DOR step.  in_port: arrival port at sw, MF_PORT_NONE when injected here,
 * MF_PORT_UNKNOWN when the caller does not know (see the header comment).
 */
int mf_torus_route(const mf_topo_t *t, int sw, int dst_sw, int in_port, int *vc)
{
    const torus_impl_t *ti = t->impl;
    const int16_t *cs = ti->coord[sw], *cd = ti->coord[dst_sw];
    int d = 0;
    while (d < 3 && cs[d] == cd[d])
        d++;
    if (d == 3)
        return MF_PORT_NONE;
    int n = ti->dims[d], a = cs[d], b = cd[d];
    int fwd = b >= a ? b - a : b - a + n;
    int plus = 2 * fwd <= n; /* tie -> + */
    int base = plus ? 0 : 1;
    int wrap = plus ? a == n - 1 : a == 0; /* this hop crosses the dateline */
    int continuing;
    if (in_port >= 0)
        continuing = in_port / 2 == d;
    else if (in_port == MF_PORT_NONE)
        continuing = 0;
    else /* unknown: only the post-dateline case needs telling apart */
        continuing = *vc != base && (plus ? a < b : a > b);
    *vc = (continuing ? *vc : base) ^ wrap;
    return 2 * d + !plus;
}

void mf_torus_coord(const mf_topo_t *t, int sw, int c[3])
{
    if (t->kind != MF_TOPO_TORUS) {
        c[0] = c[1] = c[2] = 0;
        return;
    }
    const torus_impl_t *ti = t->impl;
    for (int d = 0; d < 3; d++)
        c[d] = ti->coord[sw][d];
}

int mf_torus_switch(const mf_topo_t *t, const int c[3])
{
    if (t->kind != MF_TOPO_TORUS)
        return -1;
    for (int d = 0; d < 3; d++)
        if (c[d] < 0 || c[d] >= t->dims[d])
            return -1;
    return torus_id(t->dims, c[0], c[1], c[2]);
}
