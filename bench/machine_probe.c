/* bench/model_speed: what the machine gives at the moment of a sitting.
 *
 * On a shared virtual machine the same run takes from 1x to 2x its best
 * wall time, minutes apart, and two threads gain 2x in one phase and
 * nothing in another (bench/README.md, "The machine's phases").  The two
 * figures that tell the phases apart are the ones the engine lives on: how
 * long a cache line takes to go from one core to another and back (the
 * threads' phase barriers and every line two switches on different
 * threads share), and how long a load from memory the cache does not hold
 * takes (a large network's switch state).  Printed at the head of the
 * bench's output, they say which phase its rows were taken in. */
#include "model_speed.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define BOUNCES 100000
#define CHASE_BYTES (256u << 20) /* far beyond any cache */
#define CHASE_LOADS 2000000

static _Atomic long g_line __attribute__((aligned(64)));
static volatile size_t g_chased; /* keeps the chase from being optimised away */

static void *bounce_back(void *arg)
{
    for (long i = 0; i < BOUNCES; i++) {
        while (atomic_load_explicit(&g_line, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&g_line, 2 * i + 2, memory_order_release);
    }
    return arg;
}

/* ns for a line to go to another core and back, or -1 (one core, no thread). */
static double core_round_trip_ns(void)
{
    pthread_t t;
    atomic_store(&g_line, 0);
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pthread_create(&t, NULL, bounce_back, NULL))
        return -1;
    double t0 = now_s();
    for (long i = 0; i < BOUNCES; i++) {
        atomic_store_explicit(&g_line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&g_line, memory_order_acquire) != 2 * i + 2)
            ;
    }
    double t1 = now_s();
    pthread_join(t, NULL);
    return (t1 - t0) * 1e9 / BOUNCES;
}

/* ns per dependent load at random places in 256 MiB, or -1 (no memory).
 * Mapped and unmapped here, not left in the heap for the forked runs to
 * count in their peak RSS; on huge pages where the kernel gives them, as
 * the model's heap is (sim/hugepages.c), so a load is the memory's time,
 * not a page walk's. */
static double memory_load_ns(void)
{
    size_t n = CHASE_BYTES / sizeof(size_t);
    size_t *next = mmap(NULL, CHASE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (next == MAP_FAILED)
        return -1;
#ifdef MADV_HUGEPAGE
    madvise(next, CHASE_BYTES, MADV_HUGEPAGE);
#endif
    /* one cycle through every slot in a random order (Sattolo) */
    for (size_t i = 0; i < n; i++)
        next[i] = i;
    uint64_t x = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = (size_t)(x % i), v = next[i];
        next[i] = next[j];
        next[j] = v;
    }
    size_t p = 0;
    double t0 = now_s();
    for (long i = 0; i < CHASE_LOADS; i++)
        p = next[p];
    double t1 = now_s();
    munmap(next, CHASE_BYTES);
    g_chased = p;
    return (t1 - t0) * 1e9 / CHASE_LOADS;
}

void machine_probe_print(void)
{
    double rt = core_round_trip_ns(), mem = memory_load_ns();
    printf("# machine now: core-to-core cache-line round trip %.0f ns, random memory load "
           "%.0f ns\n#   (the phases of a shared machine differ in these; compare rows "
           "taken within one phase: bench/README.md)\n",
           rt, mem);
}
