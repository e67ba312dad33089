/*
 * OSU Micro-Benchmarks conventions shared by the model's sweeps
 * (mpifpga-sim) and our OSU-style benchmark (mpifpga-osu), so that both
 * run the calls the real benchmark runs.
 */
#ifndef MF_INCLUDE_OSU_H
#define MF_INCLUDE_OSU_H

#include <stddef.h>
#include <stdint.h>

/* MPI_Reduce_scatter's recvcounts for an OSU message size, as OSU 7.4's
 * osu_reduce_scatter.c sets them: the message holds n = osu_bytes / esize
 * elements; with n < P ranks 0..n-1 get one element each and the rest none,
 * else every rank gets n / P and the first n % P one more.  counts[i] is in
 * elements. */
static inline void mf_osu_rs_counts(uint64_t osu_bytes, int nranks, size_t esize,
                                    uint64_t *counts)
{
    uint64_t n = osu_bytes / esize, p = (uint64_t)nranks;
    for (uint64_t i = 0; i < p; i++)
        counts[i] = n < p ? (i < n) : n / p + (i < n % p);
}

#endif
