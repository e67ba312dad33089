/*
 * The pure part of the report's instances (site_report.h): merging every
 * rank's records by (module, offset, collective) and reading addr2line's
 * answers.  No MPI calls, so the fuzz harness (test/fuzz/fuzz_site.c)
 * feeds it records and answers directly.
 */
#ifndef MF_SITE_MERGE_H
#define MF_SITE_MERGE_H

#include "profile/callsite.h"

/* One instance over all ranks. */
typedef struct {
    mf_site_rec_t sum;     /* calls, bytes and times summed over ranks */
    uint64_t calls_max, offloaded_max, baseline_calls_max;
    double host_us_max;
    int ranks;
    char file[256];        /* from addr2line, "" unknown */
    long line;
} mf_site_merged_t;

/* Merge the n records of all[] (gathered from every rank) into *out, an
 * array of *nm instances the caller frees; 0, or -1 (out of memory). */
int mf_site_merge(const mf_site_rec_t *all, int n, mf_site_merged_t **out, int *nm);

/* One addr2line answer for m: the function line and the "file:line" line
 * (either may be "??"). */
void mf_site_take_answer(mf_site_merged_t *m, const char *func, const char *fileline);

#endif
