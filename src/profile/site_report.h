/*
 * The report's "instances" (callsite.h): every rank's instances merged on
 * rank 0 by (module, offset, collective), their sites named with
 * addr2line (function, file:line) where the module has debug information,
 * else module+offset.  Figures are per rank: calls the most any rank made,
 * times the mean over the ranks that made calls there.  Field meanings:
 * doc/applications.md.
 */
#ifndef MF_SITE_REPORT_H
#define MF_SITE_REPORT_H

struct json_object;

/* Collective over MPI_COMM_WORLD.  Rank 0 gets a JSON array (the caller
 * owns it), the others NULL; NULL on rank 0 too if gathering failed. */
struct json_object *mf_site_report(int rank, int nranks);

#endif
