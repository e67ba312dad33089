/* The engine's outgoing messages, per rank; see outbox.h. */
#include "server/outbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg {
    struct msg *next;
    size_t len;
    uint8_t data[];
} msg_t;

typedef struct {
    msg_t *head, *tail;
    mf_fab_peer_t peer;
} queue_t;

struct mf_outbox {
    mf_fab_t *fab;
    int nranks;
    queue_t *q;      /* [nranks] */
    int *waiting;    /* ranks with a non-empty queue, nwaiting of them */
    int nwaiting;
    long held;       /* messages waiting in all queues */
};

mf_outbox_t *mf_outbox_create(mf_fab_t *fab, int nranks)
{
    mf_outbox_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->fab = fab;
    o->nranks = nranks;
    o->q = calloc((size_t)nranks, sizeof *o->q);
    o->waiting = calloc((size_t)nranks, sizeof *o->waiting);
    if (!o->q || !o->waiting) {
        mf_outbox_destroy(o);
        return NULL;
    }
    return o;
}

void mf_outbox_destroy(mf_outbox_t *o)
{
    if (!o)
        return;
    for (int g = 0; o->q && g < o->nranks; g++)
        for (msg_t *m = o->q[g].head, *next; m; m = next) {
            next = m->next;
            free(m);
        }
    free(o->q);
    free(o->waiting);
    free(o);
}

static int keep(mf_outbox_t *o, int g, mf_fab_peer_t peer, const uint8_t *msg, size_t len)
{
    msg_t *m = malloc(sizeof *m + len);
    if (!m)
        return -1;
    m->next = NULL;
    m->len = len;
    memcpy(m->data, msg, len);
    queue_t *q = &o->q[g];
    q->peer = peer;
    if (q->tail)
        q->tail->next = m;
    else {
        q->head = m;
        o->waiting[o->nwaiting++] = g;
    }
    q->tail = m;
    o->held++;
    return 0;
}

int mf_outbox_send(mf_outbox_t *o, int g, mf_fab_peer_t peer, const uint8_t *msg, size_t len,
                   char *err, size_t errlen)
{
    if (g < 0 || g >= o->nranks)
        return snprintf(err, errlen, "no rank %d", g), -1;
    if (!o->q[g].head) { /* nothing ahead of it: try now */
        int rc = mf_fab_try_send(o->fab, peer, msg, len, err, errlen);
        if (rc <= 0)
            return rc;
    }
    if (keep(o, g, peer, msg, len))
        return snprintf(err, errlen, "out of memory keeping a %zu-byte message", len), -1;
    return 0;
}

/* Send rank g's messages until the transport refuses one: 1 emptied, 0 not,
 * -1 error. */
static int drain(mf_outbox_t *o, int g, char *err, size_t errlen)
{
    queue_t *q = &o->q[g];
    while (q->head) {
        int rc = mf_fab_try_send(o->fab, q->peer, q->head->data, q->head->len, err, errlen);
        if (rc)
            return rc < 0 ? -1 : 0;
        msg_t *m = q->head;
        q->head = m->next;
        if (!q->head)
            q->tail = NULL;
        free(m);
        o->held--;
    }
    return 1;
}

long mf_outbox_flush(mf_outbox_t *o, char *err, size_t errlen)
{
    for (int i = 0; i < o->nwaiting;) {
        int rc = drain(o, o->waiting[i], err, errlen);
        if (rc < 0)
            return -1;
        if (rc)
            o->waiting[i] = o->waiting[--o->nwaiting];
        else
            i++;
    }
    return o->held;
}
