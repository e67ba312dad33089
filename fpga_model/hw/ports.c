/*
 * The port operations that are more than a few lines (hw/ports.h): byte
 * stream storage, the host port's write into a receive buffer, the status
 * and fault ports.
 */
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hw/ports.h"

void mf_status_fail(mf_status_t *st, const char *fmt, ...)
{
    if (st->code)
        return; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->err, sizeof st->err, fmt, ap);
    va_end(ap);
    st->code = -1;
}

/* Switches on several threads may fail in one cycle (out of memory). */
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;

void mf_fault(const mf_fault_port_t *f, const char *msg)
{
    pthread_mutex_lock(&fault_lock);
    *f->failed = 1;
    snprintf(f->err, f->errlen, "%s", msg);
    pthread_mutex_unlock(&fault_lock);
}

/* Tell the consuming flow to look at this stream again at cycle `when`. */
static void notify(mf_stream_t *st, uint64_t when)
{
    if (st->check && when < *st->check) {
        *st->check = when;
        mf_coll_t *c = st->call;
        if (when < c->next_check)
            c->next_check = when;
        c->flow_due |= 1ull << (st->consumer & 63);
    }
}

void mf_stream_close(mf_stream_t *st, uint64_t visible)
{
    st->closed = 1;
    notify(st, visible);
}

/* ---- stream storage ---------------------------------------------------------
 * Bytes live in a ring that grows by doubling.  A large collective buffers
 * a lot (a 1 MiB ring allgather holds about 1 MiB per rank) and reads it
 * back long after writing it; contiguous storage keeps those reads
 * sequential, where a linked list of chunk objects made nearly every read
 * a cache miss.  Each push is a segment with its own readiness; only the
 * segments not yet known to be ready are kept (a short ring, hot in cache).
 */

#define STREAM_MIN_CAP 512 /* bytes of a stream's first ring */
#define SEG_MIN_CAP 16      /* segments of its first segment ring */
/* A stream is read a datapath width per cycle, and a simulated cycle takes
 * long enough for the hardware prefetcher to lose track: ask for the bytes
 * a few takes ahead so that those takes find them in cache. */
#define STREAM_PREFETCH_AHEAD 256
/* A ring this large holds bytes that are read back long after they were
 * written (a ring allgather's forwarded chunks): its whole cache lines are
 * written past the cache so they do not evict what every cycle uses. */
#define STREAM_UNCACHED_CAP (256u << 10)
#define LINE 64

static mf_seg_t *seg_at(const mf_stream_t *st, uint64_t i) { return &st->seg[i & (st->seg_cap - 1)]; }

/* Copy n bytes (whole cache lines) to dst (line aligned) with non-temporal
 * stores; 0 if this build cannot. */
static int put_uncached(uint8_t *dst, const uint8_t *src, size_t n)
{
#ifdef __SSE2__
    __m128i *d = (__m128i *)dst;
    const __m128i *s = (const __m128i *)src;
    for (size_t i = 0; i < n / sizeof *d; i++)
        _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
    return 1;
#else
    (void)dst, (void)src, (void)n;
    return 0;
#endif
}

/* Copy n bytes from src into the ring buf of capacity cap at stream offset at. */
static void ring_put(uint8_t *buf, uint64_t cap, uint64_t at, const uint8_t *src, size_t n)
{
    if (!n)
        return; /* buf may still be NULL */
    size_t pos = at & (cap - 1), first = n < cap - pos ? n : cap - pos;
    if (cap >= STREAM_UNCACHED_CAP && pos % LINE == 0 && n % LINE == 0 && first == n &&
        put_uncached(buf + pos, src, n))
        return;
    memcpy(buf + pos, src, first);
    memcpy(buf, src + first, n - first);
}

/* Zero n bytes of the ring buf of capacity cap from stream offset at. */
static void ring_zero(uint8_t *buf, uint64_t cap, uint64_t at, size_t n)
{
    if (!n)
        return;
    size_t pos = at & (cap - 1), first = n < cap - pos ? n : cap - pos;
    memset(buf + pos, 0, first);
    memset(buf, 0, n - first);
}

/* Copy n bytes at stream offset at out of the ring buf of capacity cap. */
static void ring_get(const uint8_t *buf, uint64_t cap, uint64_t at, uint8_t *dst, size_t n)
{
    if (!n)
        return;
    size_t pos = at & (cap - 1), first = n < cap - pos ? n : cap - pos;
    memcpy(dst, buf + pos, first);
    memcpy(dst + first, buf, n - first);
}

static uint64_t grown(uint64_t cap, uint64_t min, uint64_t need)
{
    cap = cap ? cap : min;
    while (cap < need)
        cap *= 2;
    return cap;
}

/* Room for `more` bytes beyond the buffered ones (which are moved to a new
 * ring if they are stored); -1 if out of memory. */
static int reserve_bytes(mf_stream_t *st, uint64_t more)
{
    uint64_t held = st->in - st->out;
    if (held + more <= st->cap)
        return 0;
    uint64_t cap = grown(st->cap, STREAM_MIN_CAP, held + more);
    uint8_t *buf = aligned_alloc(LINE, cap); /* cap is a power of two >= LINE */
    if (!buf)
        return -1;
    if (held && st->stored) { /* the bytes keep their offsets: move the old ring's two pieces */
        uint64_t pos = st->out & (st->cap - 1), first = held < st->cap - pos ? held : st->cap - pos;
        ring_put(buf, cap, st->out, st->buf + pos, first);
        ring_put(buf, cap, st->out + first, st->buf, held - first);
    }
    free(st->buf);
    st->buf = buf;
    st->cap = cap;
    return 0;
}

/* Room for one more segment; -1 if out of memory. */
static int reserve_seg(mf_stream_t *st)
{
    uint64_t used = st->seg_tail - st->seg_head;
    if (used < st->seg_cap)
        return 0;
    uint64_t cap = grown(st->seg_cap, SEG_MIN_CAP, used + 1);
    mf_seg_t *seg = malloc(cap * sizeof *seg);
    if (!seg)
        return -1;
    for (uint64_t i = st->seg_head; i != st->seg_tail; i++)
        seg[i & (cap - 1)] = *seg_at(st, i);
    free(st->seg);
    st->seg = seg;
    st->seg_cap = cap;
    return 0;
}

/* Append len bytes usable from cycle `ready`, which is kept monotonic while
 * the stream holds anything.  (It held the last push until its bytes were
 * taken; an empty push stays until bytes follow it, as when the stream
 * was a queue of chunks.)  Returns the cycle the bytes are usable from. */
uint64_t mf_stream_push(mf_stream_pool_t *p, mf_stream_t *st, const uint8_t *data, size_t len,
                        uint64_t ready)
{
    if ((st->in > st->out || st->last_empty) && ready < st->last_ready)
        ready = st->last_ready;
    /* The last push is still on its way (a DMA read pipelines a PCIe
     * latency of them): the consumer looks at this stream by its cycle --
     * it was woken for it, or asks for it itself -- and then asks for the
     * next arrival, so this push need not wake anybody (ccm_wait.c
     * next_arrival).  Waking the switch for each let a flow that had since
     * parked, waiting for room, run it every cycle for nothing. */
    int covered = st->seg_tail > st->seg_head && st->last_ready > p->wake.sim->now;
    if (st->stored && !data && st->in == st->out)
        st->stored = 0; /* nothing buffered: zeros need no storage again */
    if (!st->stored && data && len) { /* real bytes after zeros: store the zeros */
        if (reserve_bytes(st, len)) {
            mf_fault(&p->fault, "out of memory growing a stream buffer");
            return ready;
        }
        ring_zero(st->buf, st->cap, st->out, st->in - st->out);
        st->stored = 1;
    }
    if ((st->stored && reserve_bytes(st, len)) || reserve_seg(st)) {
        mf_fault(&p->fault, "out of memory growing a stream buffer");
        return ready;
    }
    if (st->stored) {
        if (data)
            ring_put(st->buf, st->cap, st->in, data, len);
        else
            ring_zero(st->buf, st->cap, st->in, len);
    }
    st->in += len;
    *seg_at(st, st->seg_tail++) = (mf_seg_t){.ready = ready, .end = st->in};
    st->last_ready = ready;
    st->last_empty = len == 0;
    mf_stream_account(p, (int64_t)len);
    if ((!st->idle_input && !covered) || st->in == st->len || p->wake.sim->full_wakes) {
        notify(st, ready);
        mf_wake(&p->wake, ready);
    } else {
        st->unwoken = ready;
    }
    return ready;
}

/* Take n bytes (n <= available) into dst (may be NULL to drop them). */
size_t mf_stream_take_stored(mf_stream_pool_t *p, mf_stream_t *st, uint8_t *dst, size_t n)
{
    if (n > st->in - st->out)
        n = st->in - st->out;
    if (dst)
        ring_get(st->buf, st->cap, st->out, dst, n);
    mf_stream_out_add(p, st, n);
    if (st->in - st->out > STREAM_PREFETCH_AHEAD)
        __builtin_prefetch(st->buf + ((st->out + STREAM_PREFETCH_AHEAD) & (st->cap - 1)));
    mf_stream_account(p, -(int64_t)n);
    return n;
}

/* Free whatever is still buffered (a finished or failed collective). */
void mf_stream_drop(mf_stream_pool_t *p, mf_stream_t *st)
{
    mf_stream_account(p, -(int64_t)(st->in - st->out));
    free(st->buf);
    free(st->seg);
    st->buf = NULL;
    st->seg = NULL;
    st->cap = st->seg_cap = 0;
    st->seg_head = st->seg_tail = 0;
}

/* The bytes of mf_host_write, for a receive buffer or callback. */
void mf_host_write_data(mf_coll_t *c, uint64_t off, const uint8_t *src, size_t len)
{
    const mf_buf_t *b = &c->req.recv;
    if (len && b->base) {
        if (off + len <= b->len && src)
            memcpy((uint8_t *)b->base + off, src, len);
        else if (off + len <= b->len)
            memset((uint8_t *)b->base + off, 0, len);
        else
            mf_status_fail(&c->status, "receive buffer too small: need %llu bytes, have %zu",
                        (unsigned long long)(off + len), b->len);
    } else if (len && b->write) {
        if (src) {
            b->write(b->ctx, off, src, len);
        } else {
            uint8_t zeros[len];
            memset(zeros, 0, len);
            b->write(b->ctx, off, zeros, len);
        }
    }
}


/* ---- credits on their way back (hw/ports.h) ------------------------------- */

/* the i-th credit of line l, oldest first */
static mf_credit_t *credit_at(const mf_credit_line_t *l, uint32_t i)
{
    return &l->q[(l->head + i) & (l->cap - 1)];
}

int mf_credit_send(mf_credit_line_t *l, uint64_t at, uint64_t taken)
{
    if (l->n && credit_at(l, l->n - 1)->at == at) {
        credit_at(l, l->n - 1)->taken = taken; /* one cycle's takes */
        return 0;
    }
    if (l->n == l->cap) { /* grow the ring, oldest first */
        uint32_t cap = l->cap ? 2 * l->cap : 16;
        mf_credit_t *q = malloc(cap * sizeof *q);
        if (!q)
            return -1;
        for (uint32_t i = 0; i < l->n; i++)
            q[i] = *credit_at(l, i);
        free(l->q);
        l->q = q;
        l->head = 0;
        l->cap = cap;
    }
    *credit_at(l, l->n++) = (mf_credit_t){at, taken};
    return 0;
}

uint64_t mf_credit_seen(mf_credit_line_t *l, uint64_t now, uint64_t seen)
{
    if (!l)
        return seen;
    while (l->n && credit_at(l, 0)->at <= now) {
        l->last = credit_at(l, 0)->taken;
        l->head++;
        l->n--;
    }
    return l->last > seen ? l->last : seen;
}

uint64_t mf_credit_next(const mf_credit_line_t *l)
{
    return l && l->n ? credit_at(l, 0)->at : MF_NEVER;
}

void mf_credit_free(mf_credit_line_t *l)
{
    if (l)
        free(l->q);
    free(l);
}
