/*
 * Configurable gather/reduction unit (001 sec. 4.3, fig. 7).  SA units per
 * switch, shared by time slotting (001 sec. 4.3): each cycle at most SA
 * reductions with data ready advance, one datapath width of every input
 * each; collectives in flight on one switch contend for them.  A unit is
 * never held across cycles, so reductions waiting for partners cannot block
 * each other.  The reduction table entry counts processed bytes against
 * the count (flow pos / len).
 */
#include "hw/aglu.h"
#include "hw/cgr.h"

/* Reduce n bytes of every input of f into out (n is whole elements). */
size_t mf_cgr_reduce(mf_stream_pool_t *p, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n,
                     int *zero)
{
    /* zeros reduce to zeros: only the bytes are taken */
    *zero = mf_aglu_zero_closed(c->req.hdr.op, c->req.hdr.dtype, n);
    for (int i = 0; i < f->nin && *zero; i++)
        *zero = !c->st[f->in[i]].stored;
    if (*zero) {
        for (int i = 0; i < f->nin; i++)
            mf_stream_take(p, &c->st[f->in[i]], NULL, n);
        return n;
    }
    uint8_t tmp[n];
    mf_stream_take(p, &c->st[f->in[0]], out, n);
    for (int i = 1; i < f->nin; i++) {
        mf_stream_take(p, &c->st[f->in[i]], tmp, n);
        mf_aglu_combine(c->req.hdr.op, c->req.hdr.dtype, out, tmp, n);
    }
    return n;
}
