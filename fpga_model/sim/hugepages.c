/*
 * The process heap on transparent huge pages (mf_model_prefer_hugepages,
 * include/mpifpga/model.h).
 *
 * A large network's state and packets are spread over a gigabyte of heap
 * touched a few lines at a time, so with 4 KiB pages nearly every cold
 * line is also a TLB miss whose page walk misses the cache too.  With
 * 2 MiB pages the 16x16x16 model's 1.2 GB takes some 600 TLB entries,
 * within a core's second-level TLB (bench/README.md, "Huge pages").
 *
 * The kernel gives huge pages to anonymous memory marked MADV_HUGEPAGE
 * (transparent_hugepage "madvise", the usual default).  Marking must come
 * before the memory is first touched, and glibc's allocations go where we
 * cannot mark them one by one: small ones to the brk heap, which grows by
 * new, unmarked mappings, large ones to mmap, and other threads' to heaps
 * of their own.  So the heap is laid out once, at start-up:
 *
 *   - every thread allocates from the main (brk) heap (M_ARENA_MAX 1: the
 *     model allocates in slabs and pools, so its threads rarely meet at
 *     malloc's lock);
 *   - allocations up to glibc's largest mmap threshold (32 MiB) come from
 *     the heap too;
 *   - the heap's first growth takes HEAP_RESERVE bytes of address space at
 *     once (M_TOP_PAD; pages cost nothing until touched), and that whole
 *     range is marked; freed memory is kept for reuse, not trimmed.
 *
 * Memory beyond the reserve, and allocations above 32 MiB, are ordinary
 * pages: nothing breaks, they are only slower.  No figure depends on any
 * of this (the golden set is identical with MPIFPGA_HUGEPAGES=0).
 */
#define _GNU_SOURCE
#include "mpifpga/model.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sanitized.h"

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !MF_SANITIZED
#include <malloc.h>
#define HAVE_HEAP_TUNING 1
#else
#define HAVE_HEAP_TUNING 0 /* another allocator (a sanitizer's): nothing to tune */
#endif

/* mallopt takes an int: the largest reserve is just under 2 GiB */
#define HEAP_RESERVE (2047 * 1024 * 1024)
#define MMAP_THRESHOLD_MAX (32 * 1024 * 1024) /* glibc's upper limit on 64-bit */
#define HUGE_PAGE ((uintptr_t)2 * 1024 * 1024)

#if HAVE_HEAP_TUNING
/* Grow the heap by the reserve and mark the new range; 0 or -1. */
static int reserve_heap(void)
{
    char *old = sbrk(0);
    /* more than the top chunk holds: the heap must grow, by the reserve */
    void *grow = malloc(mallinfo2().keepcost + 4096);
    char *end = sbrk(0);
    if (!grow || old == (char *)-1 || end == (char *)-1) {
        free(grow);
        return -1;
    }
    uintptr_t lo = ((uintptr_t)old + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    int rc = (uintptr_t)end >= lo + HUGE_PAGE ? madvise((void *)lo, (uintptr_t)end - lo,
                                                       MADV_HUGEPAGE) : -1;
    free(grow); /* back to the top chunk, which is never trimmed below the reserve */
    return rc;
}
#endif

int mf_model_prefer_hugepages(void)
{
    static int done, rc;
    if (done)
        return rc;
    done = 1;
    const char *env = getenv("MPIFPGA_HUGEPAGES");
    if (env && !strcmp(env, "0"))
        return rc = 1;
#if HAVE_HEAP_TUNING
    if (mallopt(M_ARENA_MAX, 1) && mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX) &&
        mallopt(M_TRIM_THRESHOLD, INT_MAX) && mallopt(M_TOP_PAD, HEAP_RESERVE) &&
        reserve_heap() == 0)
        return rc = 0;
    /* the heap could not take the reserve (an address-space limit, strict
     * overcommit): glibc's default growth again, ordinary pages */
    mallopt(M_TOP_PAD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
    return rc = -1;
}
