/*
 * Worker threads of the cycle engine's parallel phases (engine.h).  A phase
 * is cut into chunks; each thread runs its own share first and then takes
 * chunks the others have not, so a thread the OS has descheduled (more
 * threads than free cores) holds up a phase by at most the chunk it took,
 * not by its whole share.  A phase is microseconds of work, so waiting for one is a
 * short spin; a worker that has spun long (the engine is between runs)
 * sleeps on a futex and costs no CPU until the next phase.
 */
#include "sim/par.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim/engine.h"

#define SPIN_BEFORE_YIELD 2000
#define YIELDS_BEFORE_SLEEP 64

#define MAX_CHUNKS (MF_SIM_MAX_THREADS * MF_SIM_CHUNKS_PER_THREAD)

/* A chunk's claim: the phase that took it, a cache line each. */
typedef struct {
    unsigned phase;
} __attribute__((aligned(64))) claim_t;

struct mf_par {
    int n;
    pthread_t *th;
    void (*fn)(void *ctx, int chunk);
    void *ctx;
    /* the current phase: its number (high 32 bits, from 1) and chunk count
     * (low 32) in one word, so a worker late for a phase never pairs one
     * phase's number with another's count */
    uint64_t cur;
    unsigned done;     /* chunks finished in this phase */
    unsigned gen;      /* bumped per phase: the futex word workers sleep on */
    unsigned sleepers; /* workers asleep on gen */
    int stop;
    claim_t claim[MAX_CHUNKS];
};

static void futex_wait(unsigned *addr, unsigned val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_all(unsigned *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Wait until gen != seen: spin, then yield, then sleep. */
static void wait_phase(mf_par_t *p, unsigned seen)
{
    for (unsigned i = 0; __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE) == seen; i++) {
        if (i < SPIN_BEFORE_YIELD) {
            cpu_relax();
        } else if (i < SPIN_BEFORE_YIELD + YIELDS_BEFORE_SLEEP) {
            sched_yield();
        } else {
            __atomic_add_fetch(&p->sleepers, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&p->gen, __ATOMIC_SEQ_CST) == seen)
                futex_wait(&p->gen, seen);
            __atomic_sub_fetch(&p->sleepers, 1, __ATOMIC_SEQ_CST);
            i = 0;
        }
    }
}

/* Thread t takes and runs chunks of the current phase: its own share first
 * (the same switches every phase, so their state stays in its core's
 * cache), then whatever the others have not taken.  A chunk is claimed by
 * writing the phase number into it; a worker late for a phase finds every
 * chunk of it claimed, and the caller starts the next phase only when
 * every chunk is done, so fn and ctx are the claimed chunk's phase's. */
static void take_chunks(mf_par_t *p, int t)
{
    uint64_t cur = __atomic_load_n(&p->cur, __ATOMIC_ACQUIRE);
    unsigned phase = (unsigned)(cur >> 32), n = (unsigned)cur;
    unsigned first = n * (unsigned)t / (unsigned)p->n;
    for (unsigned i = 0; i < n; i++) {
        unsigned c = first + i < n ? first + i : first + i - n;
        unsigned v = __atomic_load_n(&p->claim[c].phase, __ATOMIC_ACQUIRE);
        if (v >= phase ||
            !__atomic_compare_exchange_n(&p->claim[c].phase, &v, phase, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        void (*fn)(void *, int) = __atomic_load_n(&p->fn, __ATOMIC_RELAXED);
        fn(__atomic_load_n(&p->ctx, __ATOMIC_RELAXED), (int)c);
        __atomic_add_fetch(&p->done, 1, __ATOMIC_ACQ_REL);
    }
}

typedef struct {
    mf_par_t *p;
    int t;
} worker_arg_t;

static void *worker(void *arg)
{
    worker_arg_t a = *(worker_arg_t *)arg;
    free(arg);
    mf_par_t *p = a.p;
    mf_sim_tid = a.t;
    unsigned seen = 0;
    for (;;) {
        wait_phase(p, seen);
        seen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
            return NULL;
        take_chunks(p, a.t);
    }
}

int mf_par_start(mf_par_t **out, int n)
{
    mf_par_t *p = aligned_alloc(64, sizeof *p);
    if (!p)
        return -1;
    memset(p, 0, sizeof *p);
    p->th = calloc((size_t)n, sizeof *p->th);
    if (!p->th) {
        free(p);
        return -1;
    }
    p->n = 1;
    for (int t = 1; t < n; t++) {
        worker_arg_t *a = malloc(sizeof *a);
        if (a)
            *a = (worker_arg_t){p, t};
        if (!a || pthread_create(&p->th[t], NULL, worker, a)) {
            free(a);
            mf_par_stop(p);
            return -1;
        }
        p->n = t + 1;
    }
    *out = p;
    return 0;
}

void mf_par_run(mf_par_t *p, void (*fn)(void *ctx, int chunk), void *ctx, int nchunks)
{
    unsigned phase = (unsigned)(p->cur >> 32) + 1;
    /* atomic: a worker late for the last phase may still read them; ordered
     * for claimers by the release store of `cur` */
    __atomic_store_n(&p->fn, fn, __ATOMIC_RELAXED);
    __atomic_store_n(&p->ctx, ctx, __ATOMIC_RELAXED);
    __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->cur, (uint64_t)phase << 32 | (unsigned)nchunks, __ATOMIC_RELEASE);
    __atomic_add_fetch(&p->gen, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST))
        futex_wake_all(&p->gen);
    take_chunks(p, 0);
    for (unsigned i = 0; __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) != (unsigned)nchunks; i++)
        if (i < SPIN_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield(); /* a worker holding a chunk was descheduled: let it run */
}

void mf_par_stop(mf_par_t *p)
{
    if (!p)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&p->gen, 1, __ATOMIC_SEQ_CST);
    futex_wake_all(&p->gen);
    for (int t = 1; t < p->n; t++)
        pthread_join(p->th[t], NULL);
    free(p->th);
    free(p);
}
