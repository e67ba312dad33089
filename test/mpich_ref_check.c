/* Properties of the schedules independent of MPICH (mpich_ref.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpich_ref_int.h"

/* ==== properties independent of MPICH ======================================= */

static int is_send(const ref_ev_t *e) { return e->kind == REF_SEND || e->kind == REF_SENDRECV; }
static int is_recv(const ref_ev_t *e) { return e->kind == REF_RECV || e->kind == REF_SENDRECV; }

int ref_check_pairing(const ref_evlist_t *ev, int size, char *err, size_t errlen)
{
    for (int s = 0; s < size; s++)
        for (int q = 0; q < size; q++) {
            int i = 0, j = 0, k = 0;
            for (;;) {
                while (i < ev[s].n && !(is_send(&ev[s].v[i]) && ev[s].v[i].speer == q))
                    i++;
                while (j < ev[q].n && !(is_recv(&ev[q].v[j]) && ev[q].v[j].rpeer == s))
                    j++;
                if (i == ev[s].n && j == ev[q].n)
                    break;
                if (i == ev[s].n) {
                    ref_fail(err, errlen, "rank %d receives a message no. %d from %d that %d never sends",
                         q, k, s, s);
                    return 0;
                }
                if (j == ev[q].n) {
                    ref_fail(err, errlen, "rank %d sends a message no. %d to %d that %d never receives", s,
                         k, q, q);
                    return 0;
                }
                if (ev[s].v[i].sbytes != ev[q].v[j].rbytes) {
                    ref_fail(err, errlen,
                         "message no. %d %d->%d: sent %llu B (event %d), received %llu B (event %d)",
                         k, s, q, (unsigned long long)ev[s].v[i].sbytes, i,
                         (unsigned long long)ev[q].v[j].rbytes, j);
                    return 0;
                }
                i++, j++, k++;
            }
        }
    return 1;
}

/* index of the event at rank q that is the k-th receive from s (-1: none) */
static int nth_recv(const ref_evlist_t *l, int s, int k)
{
    for (int j = 0; j < l->n; j++)
        if (is_recv(&l->v[j]) && l->v[j].rpeer == s && k-- == 0)
            return j;
    return -1;
}

static int nth_send(const ref_evlist_t *l, int q, int k)
{
    for (int j = 0; j < l->n; j++)
        if (is_send(&l->v[j]) && l->v[j].speer == q && k-- == 0)
            return j;
    return -1;
}

/* ordinal of event i of rank r among r's sends to peer (or receives from) */
static int ordinal(const ref_evlist_t *l, int i, int peer, int sends)
{
    int k = 0;
    for (int j = 0; j < i; j++)
        if (sends ? (is_send(&l->v[j]) && l->v[j].speer == peer)
                  : (is_recv(&l->v[j]) && l->v[j].rpeer == peer))
            k++;
    return k;
}

int ref_check_progress(const ref_evlist_t *ev, int size, char *err, size_t errlen)
{
    int *pc = calloc((size_t)size, sizeof *pc);
    if (!pc) {
        ref_fail(err, errlen, "out of memory");
        return 0;
    }
    int ok = 1;
    for (;;) {
        int progress = 0, done = 1;
        for (int r = 0; r < size; r++) {
            while (pc[r] < ev[r].n) {
                const ref_ev_t *e = &ev[r].v[pc[r]];
                int can = 1;
                if (is_send(e)) { /* the receiver has posted the matching receive */
                    int j = nth_recv(&ev[e->speer], r, ordinal(&ev[r], pc[r], e->speer, 1));
                    can = can && j >= 0 && pc[e->speer] >= j;
                }
                if (is_recv(e)) { /* the sender has posted the matching send */
                    int j = nth_send(&ev[e->rpeer], r, ordinal(&ev[r], pc[r], e->rpeer, 0));
                    can = can && j >= 0 && pc[e->rpeer] >= j;
                }
                if (!can)
                    break;
                pc[r]++;
                progress = 1;
            }
            if (pc[r] < ev[r].n)
                done = 0;
        }
        if (done)
            break;
        if (!progress) {
            char buf[64];
            size_t o = 0;
            if (err && errlen) {
                o += (size_t)snprintf(err, errlen, "deadlock under synchronous sends:");
                for (int r = 0; r < size && o < errlen; r++)
                    if (pc[r] < ev[r].n) {
                        ref_ev_format(&ev[r].v[pc[r]], buf, sizeof buf);
                        o += (size_t)snprintf(err + o, errlen - o, " [%d@%d %s]", r, pc[r], buf);
                    }
            }
            ok = 0;
            break;
        }
    }
    free(pc);
    return ok;
}
