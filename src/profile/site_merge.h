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
    char *name;            /* addr2line's function name (any length; heap), NULL:
                              sum.func (dladdr's, cut at 63 characters) */
    char *file;            /* from addr2line (any length; heap), NULL unknown */
    long line;
    char *inlined_in;      /* the call is inlined: the outermost function (heap) */
} mf_site_merged_t;

/* Merge the n records of all[] (gathered from every rank) into *out, an
 * array of *nm instances the caller frees; 0, or -1 (out of memory). */
int mf_site_merge(const mf_site_rec_t *all, int n, mf_site_merged_t **out, int *nm);

/* One addr2line answer for m: the function line and the "file:line" line
 * (either may be "??").  With `addr2line -i` an address has one answer per
 * inlined frame, innermost first: `depth` 0 names the call site (the line
 * of the MPI call, the function it is written in); a later frame only sets
 * inlined_in (the outermost function, where the code really lies).  Strings
 * of any length are kept whole; 0, or -1 (out of memory). */
int mf_site_take_answer(mf_site_merged_t *m, int depth, const char *func, const char *fileline);

/* The function to print for m (addr2line's, else dladdr's). */
const char *mf_site_name(const mf_site_merged_t *m);

/* Free the heap strings of m[0..nm) and m itself. */
void mf_site_merged_free(mf_site_merged_t *m, int nm);

#endif
