/* The in-memory "MPI" of a split network's tests; see dom_hub.h. */
#include "dom_hub.h"

#include <stdlib.h>
#include <string.h>

int hub_init(hub_t *h, int k, const char *partition, char *err, size_t errlen)
{
    *h = (hub_t){.k = k};
    if (k < 1 || k > HUB_MAXK || mf_dom_partition_parse(partition, &h->part, err, errlen))
        return -1;
    pthread_barrier_init(&h->bar, NULL, (unsigned)k);
    return 0;
}

void hub_fini(hub_t *h) { pthread_barrier_destroy(&h->bar); }

/* Each domain posts what it sends, then takes what is addressed to it from
 * every sender in domain order. */
static int hub_exchange(void *ctx, const mf_dom_msg_t *out, size_t nout, mf_dom_msg_t **in,
                        size_t *nin, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    hub_member_t *d = ctx;
    hub_t *h = d->hub;
    h->out[d->self] = out;
    h->nout[d->self] = nout;
    pthread_barrier_wait(&h->bar);
    size_t n = 0;
    for (int s = 0; s < h->k; s++)
        for (size_t i = 0; i < h->nout[s]; i++)
            n += h->out[s][i].to == (uint32_t)d->self;
    mf_dom_msg_t *got = malloc((n ? n : 1) * sizeof *got);
    if (!got)
        abort(); /* the others would wait at the barrier */
    n = 0;
    for (int s = 0; s < h->k; s++)
        for (size_t i = 0; i < h->nout[s]; i++)
            if (h->out[s][i].to == (uint32_t)d->self)
                got[n++] = h->out[s][i];
    __atomic_add_fetch(&h->exchanged, n, __ATOMIC_RELAXED);
    pthread_barrier_wait(&h->bar); /* the senders free their out after this */
    *in = got;
    *nin = n;
    return 0;
}

static int hub_reduce(void *ctx, uint64_t *v, const int *op, int n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    hub_member_t *d = ctx;
    hub_t *h = d->hub;
    uint64_t *x = malloc((n ? (size_t)n : 1) * sizeof *x);
    if (!x)
        abort();
    h->red[d->self] = v;
    pthread_barrier_wait(&h->bar);
    for (int i = 0; i < n; i++) {
        x[i] = h->red[0][i];
        for (int s = 1; s < h->k; s++)
            x[i] = mf_dom_combine(op[i], x[i], h->red[s][i]);
    }
    pthread_barrier_wait(&h->bar); /* everyone has read every v */
    memcpy(v, x, (size_t)n * sizeof *v);
    free(x);
    return 0;
}

mf_dom_ops_t hub_ops(hub_member_t *m)
{
    return (mf_dom_ops_t){.ndomains = m->hub->k, .self = m->self, .exchange = hub_exchange,
                          .reduce = hub_reduce, .ctx = m};
}
