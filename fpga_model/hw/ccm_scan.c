/*
 * MPI_Scan / MPI_Exscan in the switch: MPICH's recursive doubling
 * (scan_intra_recursive_doubling.c, exscan_intra_recursive_doubling.c).
 * At step k rank r exchanges its partial reduction with dst = r ^ 2^k when
 * dst < P: the partner is up[k] (bit k clear: r + 2^k) or down[k] (bit k
 * set: r - 2^k), so the CT entry's binomial partners suffice.  What comes
 * from a lower rank enters both the partial reduction and the result;
 * what comes from a higher one only the partial.  Exscan's result starts
 * empty, so rank 0 writes nothing (its receive buffer is undefined).
 * Data a rank would only fold into a partial it never uses again is not
 * sent (below), so every stream the schedule opens is drained.
 */
#include "hw/ccm_build.h"

static int scan_dst(const bld_t *b, int r, int k)
{
    int dst = r ^ (1 << k);
    return dst < b->P ? dst : -1;
}

/* Rank r's last step with a partner: the partial it has after that step is
 * never used, so nothing is sent to r for it (MPICH sends and reduces it
 * anyway; in the switch that would be a stream nobody drains). */
static int last_step(const bld_t *b, int r)
{
    int last = -1;
    for (int k = 0; (1 << k) < b->P; k++)
        if (scan_dst(b, r, k) >= 0)
            last = k;
    return last;
}

static uint16_t scan_partner(const bld_t *b, int k)
{
    return b->r & (1 << k) ? b->ct->down[k] : b->ct->up[k];
}

static int reduce2(bld_t *b, int first, int second)
{
    int in[2] = {first, second};
    return ccm_flow(b, MF_FLOW_REDUCE, b->n, 2, in);
}

/* The result, made steps ago, waits for the next lower rank's piece while
 * the partial moves on: the switch holds all of it (as MPICH holds recvbuf),
 * else the flow that made it, blocked on a full window, would stop the
 * partial that the partner needs first -- a circular wait once the vector
 * exceeds a few windows. */
static int held(bld_t *b, int result)
{
    int st = ccm_to_stream(b, result, 0, b->n);
    if (!b->fail)
        b->c->st[st].extra_win = b->n;
    return st;
}

void ccm_scan(bld_t *b, int exclusive)
{
    int last = last_step(b, b->r);
    int partial = ccm_copy_of(b, ccm_host_src(b, 0, b->n));
    int result = exclusive ? -1 : partial;
    for (int k = 0; k <= last; k++) {
        int dst = scan_dst(b, b->r, k);
        if (dst < 0)
            continue;
        /* send what dst uses: its result (we are lower) or a later partial */
        if (b->r < dst || k < last_step(b, dst))
            ccm_to_net(b, partial, 0, b->n, scan_partner(b, k), k);
        if (dst > b->r) { /* a higher rank's data: the partial only */
            if (k < last)
                partial = reduce2(b, ccm_to_stream(b, partial, 0, b->n), ccm_net_in(b, k, b->n));
            continue;
        }
        int tmp = ccm_net_in(b, k, b->n);
        if (result == partial) { /* both become tmp op partial: one CGR flow */
            partial = result = reduce2(b, tmp, ccm_to_stream(b, partial, 0, b->n));
            continue;
        }
        int t = ccm_copy_of(b, tmp); /* tmp feeds the result and the partial */
        int new_result = result < 0 ? t : reduce2(b, ccm_to_stream(b, t, 0, b->n), held(b, result));
        if (k < last)
            partial = reduce2(b, ccm_to_stream(b, t, 0, b->n), ccm_to_stream(b, partial, 0, b->n));
        result = new_result;
    }
    if (result >= 0)
        ccm_to_host(b, result, 0, b->n, 0);
}
