/*
 * Worker threads for the cycle engine's parallel phases (par.c).
 */
#ifndef MF_SIM_PAR_H
#define MF_SIM_PAR_H

typedef struct mf_par mf_par_t;

/* Start n - 1 workers (the caller is thread 0).  Returns 0 or -1. */
int mf_par_start(mf_par_t **p, int n);
/* Run fn(ctx, c) for every chunk c in [0, nchunks), on whichever threads
 * take them (the caller too); returns when all have returned. */
void mf_par_run(mf_par_t *p, void (*fn)(void *ctx, int chunk), void *ctx, int nchunks);
/* Stop and join the workers. */
void mf_par_stop(mf_par_t *p);

#endif
