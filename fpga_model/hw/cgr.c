/*
 * Configurable gather/reduction unit (001 sec. 4.3, fig. 7).  SA units per
 * switch; a collective holds one from its first reduction until it is done
 * (several collectives in flight contend for them).  The reduction table
 * entry counts processed bytes against the count (flow pos / len); the
 * vectorised AgLUs combine one datapath width of every input per cycle.
 */
#include "hw/aglu.h"
#include "hw/switch.h"

int mf_cgr_acquire(mf_switch_t *s, mf_coll_t *c)
{
    if (c->holds_cgr)
        return 1;
    if (s->cgr_free <= 0)
        return 0;
    s->cgr_free--;
    c->holds_cgr = 1;
    return 1;
}

void mf_cgr_release(mf_switch_t *s, mf_coll_t *c)
{
    if (!c->holds_cgr)
        return;
    c->holds_cgr = 0;
    s->cgr_free++;
    mf_switch_wake(s, s->net->sim.now + 1); /* a waiting reduction may start */
}

/* Reduce n bytes of every input of f into out (n is whole elements). */
size_t mf_cgr_reduce(mf_switch_t *s, mf_coll_t *c, mf_flow_t *f, uint8_t *out, size_t n)
{
    uint8_t tmp[n];
    mf_stream_take(s, &c->st[f->in[0]], out, n);
    for (int i = 1; i < f->nin; i++) {
        mf_stream_take(s, &c->st[f->in[i]], tmp, n);
        mf_aglu_combine(c->req.hdr.op, c->req.hdr.dtype, out, tmp, n);
    }
    return n;
}
