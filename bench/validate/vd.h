/*
 * mpifpga-validate: the model against the published figures
 * (`make validate`, doc/validation.md).  Each check adds rows; a row has the
 * source (document, table, figure, equation), what is compared, the
 * published value, the modeled value, the tolerance and a verdict.
 */
#ifndef MF_VD_H
#define MF_VD_H

#include <stdio.h>

typedef enum {
    VD_PASS = 0,   /* modeled value inside the tolerance */
    VD_FAIL,       /* outside: make validate fails */
    VD_INFO,       /* printed for the reader, not judged (e.g. a derived figure) */
    VD_MISS        /* outside the tolerance, a known and documented miss
                    * (doc/validation.md says why); printed, does not fail */
} vd_verdict_t;

typedef struct {
    FILE *out;
    const char *srcdir;   /* top source directory (parameter files of the checks) */
    int quick;            /* --quick: fewer sizes (for a smoke run), no 1-4 MB rows */
    int npass, nfail, ninfo, nmiss;
} vd_t;

/* Print one row and count it.  published/modeled/tolerance are short texts
 * (e.g. "440 ns", "452.0 ns", "+-5 %"). */
void vd_row(vd_t *v, const char *source, const char *what, const char *published,
            const char *modeled, const char *tolerance, vd_verdict_t verdict);
/* Verdict helpers. */
vd_verdict_t vd_within_rel(double modeled, double published, double rel); /* |m-p| <= rel*p */
vd_verdict_t vd_within(double modeled, double lo, double hi);             /* lo <= m <= hi */
/* Section heading. */
void vd_section(vd_t *v, const char *title);
/* A check that could not run (model error): a FAIL row; returns -1. */
int vd_model_error(vd_t *v, const char *source, const char *what, const char *err);

struct mf_params;
struct mf_topo;
struct mf_net;
/* A network of `nodes` nodes, one rank each, on topology `topo` ("torus",
 * "torus:XxYxZ", "fattree:R"); NULL with a message in err. */
struct mf_net *vd_open_net(const struct mf_params *p, const char *topo, int nodes,
                           struct mf_topo *t, char *err, size_t len);

/* Groups of checks (each file bench/validate/checks_*.c).  Return 0, or -1
 * when a check could not run at all (a model error: printed, counted as a
 * FAIL). */
int vd_checks_switch(vd_t *v);    /* 001 Eq. 1, Eq. 2, Table 2 one hop + streaming */
int vd_checks_links(vd_t *v);     /* 000 Table 3.3 novog link; 002 Eqs. 1-3; 004 hop model */
int vd_checks_fattree(vd_t *v);   /* 001 fig. 12: fat tree over torus, short messages */
int vd_checks_baseline(vd_t *v);  /* 001 Table 4 spread, fig. 10 speedups, Eqs. 3-6 */

#endif
