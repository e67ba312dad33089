/*
 * mpifpga-validate, group "fattree": 001 sec. 6.2.2, figs. 11 and 12 (the
 * MPI-FPGA paper, /work/shared/seeds/INDEX.md).
 *
 * 001 fig. 12 gives, for Allgather and Allreduce on 32, 64 and 128 nodes,
 * the speedup of indirect networks of radix-8, -16 and -28 switches (fat
 * tree, default 3:1 oversubscription) over the direct 3D torus, as the
 * geometric mean over the short message sizes of fig. 11 (4 B .. 4 KB); the
 * text: "The overall speedup ratio is between 1.2x and 1.9x".
 *
 * One row per (collective, nodes, radix): the geometric mean over the OSU
 * sizes 8 B .. 4 KB (powers of two; 4 B holds no double, the datatype 001
 * sec. 6.2 uses; mpifpga-sim starts at the element size the same way) of
 * torus latency / fat-tree latency, Avg latency of mf_coll_loop as
 * mpifpga-sim reports it.  The 3 x 3 x 2 x 10 sweeps (plus the torus ones)
 * run in child processes, as many at once as there are processors (at most
 * 4), to keep `make validate` short.
 *
 * Rows, tolerance and the reasons for the misses: doc/validation.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll/run.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "vd.h"

/* A fat tree slower than half the torus is not explained by the missing
 * spine aggregation: FAIL. */
#define MISS_FLOOR 0.5
#define SRC_F12 "001 sec. 6.2.2 fig. 12"

/* 001 sec. 6.2.2: "The overall speedup ratio is between 1.2x and 1.9x"
 * (fig. 12: indirect-8/16/28 over direct, short messages, geometric mean
 * over sizes). */
#define PUB_LO 1.2
#define PUB_HI 1.9
/* 001 sec. 6.2.2: networks direct, indirect-8, -16, -28 (radix 8/16/28,
 * default over-subscription 3:1); fig. 11: 32, 64 and 128 nodes, Allgather
 * and Allreduce, 4 B .. 4 KB. */
static const int radices[] = {8, 16, 28};
static const int node_counts[] = {32, 64, 128};
static const mf_opcode_t colls[] = {MF_OPC_ALLGATHER, MF_OPC_ALLREDUCE};
#define NRAD 3
#define NNODES 3
#define NCOLL 2
#define MAXSIZES 16
#define MIN_BYTES 8u      /* one double */
#define MAX_BYTES 4096u   /* 001 fig. 11: short messages up to 4 KB */

/* Iterations per size.  001 sec. 6.2 averages 1000 iterations (OSU); the
 * model's iterations differ by < 0.5 % (no jitter, the network drains
 * between iterations, only the arbiters' round-robin state carries over),
 * and mf_coll_loop's fast path stops simulating once two agree. */
#define ITERS 2
#define ITERS_QUICK 1

typedef struct {
    int coll, nodes, radix; /* radix 0 = torus */
    int levels;             /* switch levels of the fat tree */
    int nsizes;
    double us[MAXSIZES];
    int status;
    char err[160];
} task_t;

static int sizes_of(const vd_t *v, uint64_t *sz)
{
    int n = 0;
    for (uint64_t b = MIN_BYTES; b <= MAX_BYTES; b *= 2)
        if (!v->quick || b == 8 || b == 64 || b == 512 || b == 4096)
            sz[n++] = b;
    return n;
}

/* One sweep: collective over all ranks, one rank per node, u280. */
static void run_task(const vd_t *v, task_t *k)
{
    char err[256], topo[32];
    uint64_t sz[MAXSIZES];
    mf_params_t p;
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    mf_net_t *n = NULL;
    int *members = NULL;
    k->nsizes = sizes_of(v, sz);
    k->status = -1;
    if (k->radix)
        snprintf(topo, sizeof topo, "fattree:%d", k->radix);
    else
        snprintf(topo, sizeof topo, "torus");
    if (mf_params_load("u280", &p, err, sizeof err) ||
        mf_topo_parse(topo, &spec, err, sizeof err))
        goto fail;
    spec.oversub = spec.oversub ? spec.oversub : (int)p.oversub; /* 3:1 */
    if (mf_topo_build(&spec, k->nodes, 1, &t, err, sizeof err))
        goto fail;
    n = mf_net_create(&p, &t, err, sizeof err);
    if (!n) {
        mf_topo_free(&t);
        goto fail;
    }
    int P = mf_net_nranks(n);
    members = malloc((size_t)P * sizeof *members);
    if (!members) {
        snprintf(err, sizeof err, "out of memory");
        goto close;
    }
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err))
        goto close;
    for (int i = 0; i < k->nsizes; i++) {
        mf_coll_spec_t c = {.opc = colls[k->coll], .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                            .root = 0, .ctx = 0, .bytes = sz[i]};
        mf_coll_timing_t tm;
        int sim;
        if (mf_coll_loop(n, &c, P, members, v->quick ? ITERS_QUICK : ITERS, 1, &tm, &sim, err,
                         sizeof err))
            goto close;
        k->us[i] = tm.avg_us;
    }
    k->levels = t.levels;
    k->status = 0;
close:
    free(members);
    mf_net_destroy(n);
    mf_topo_free(&t);
fail:
    if (k->status)
        snprintf(k->err, sizeof k->err, "%s %s %d nodes: %.100s", mf_opcode_name(colls[k->coll]),
                 topo, k->nodes, err);
}

static const task_t *find_task(const task_t *tk, int nt, int coll, int nodes, int radix)
{
    for (int i = 0; i < nt; i++)
        if (tk[i].coll == coll && tk[i].nodes == nodes && tk[i].radix == radix)
            return &tk[i];
    return NULL;
}

/* Run all tasks, up to `nw` at once in child processes (results come back
 * through a pipe); in this process if fork is not available. */
static void run_all(const vd_t *v, task_t *tk, int nt, int nw)
{
    pid_t pid[8] = {0};
    int fd[8], idx[8];
    int next = 0, running = 0;
    if (nw < 2) {
        for (int i = 0; i < nt; i++)
            run_task(v, &tk[i]);
        return;
    }
    fflush(NULL); /* children leave with _exit, but do not inherit pending output */
    while (next < nt || running) {
        while (running < nw && next < nt) {
            int slot = 0, pfd[2];
            while (pid[slot])
                slot++;
            if (pipe(pfd)) {
                run_task(v, &tk[next++]);
                continue;
            }
            pid_t c = fork();
            if (c < 0) {
                close(pfd[0]);
                close(pfd[1]);
                run_task(v, &tk[next++]);
                continue;
            }
            if (c == 0) {
                close(pfd[0]);
                run_task(v, &tk[next]);
                const char *b = (const char *)&tk[next];
                size_t left = sizeof tk[next];
                while (left) {
                    ssize_t w = write(pfd[1], b, left);
                    if (w < 0 && errno == EINTR)
                        continue;
                    if (w <= 0)
                        _exit(1);
                    b += w;
                    left -= (size_t)w;
                }
                _exit(0);
            }
            close(pfd[1]);
            pid[slot] = c;
            fd[slot] = pfd[0];
            idx[slot] = next++;
            running++;
        }
        if (!running)
            break;
        int st;
        pid_t done = wait(&st);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int s = 0; s < nw; s++) {
            if (pid[s] != done)
                continue;
            task_t r;
            char *b = (char *)&r;
            size_t got = 0;
            while (got < sizeof r) {
                ssize_t m = read(fd[s], b + got, sizeof r - got);
                if (m < 0 && errno == EINTR)
                    continue;
                if (m <= 0)
                    break;
                got += (size_t)m;
            }
            close(fd[s]);
            if (got == sizeof r) {
                tk[idx[s]] = r;
            } else {
                tk[idx[s]].status = -1;
                snprintf(tk[idx[s]].err, sizeof tk[idx[s]].err,
                         "worker for task %d ended without a result (status %d)", idx[s], st);
            }
            pid[s] = 0;
            running--;
        }
    }
}

int vd_checks_fattree(vd_t *v)
{
    /* tasks: per (coll, nodes): torus, then the three radices; the
     * largest ones first so that the workers finish together */
    task_t tk[NCOLL * NNODES * (NRAD + 1)];
    int nt = 0, rc = 0;
    for (int ni = NNODES - 1; ni >= 0; ni--)
        for (int c = 0; c < NCOLL; c++)
            for (int r = 0; r <= NRAD; r++)
                tk[nt++] = (task_t){.coll = c, .nodes = node_counts[ni],
                                    .radix = r ? radices[r - 1] : 0};
    long np = sysconf(_SC_NPROCESSORS_ONLN);
    int nw = np < 1 ? 1 : np > 4 ? 4 : (int)np;
    run_all(v, tk, nt, nw);

    vd_section(v, "fattree: 001 fig. 12, fat tree (3:1) over 3D torus, short messages");
    for (int c = 0; c < NCOLL; c++) {
        for (int ni = 0; ni < NNODES; ni++) {
            const task_t *base = find_task(tk, nt, c, node_counts[ni], 0);
            for (int r = 0; r < NRAD; r++) {
                const task_t *ft = find_task(tk, nt, c, node_counts[ni], radices[r]);
                char what[160], mod[64], pub[32], tol[48];
                snprintf(what, sizeof what, "%s, %d nodes, fattree:%d vs torus",
                         mf_opcode_name(colls[c]), node_counts[ni], radices[r]);
                if (!base || !ft || base->status || ft->status) {
                    char m[200];
                    snprintf(m, sizeof m, "error: %.150s",
                             base && base->status ? base->err : ft ? ft->err : "no result");
                    vd_row(v, SRC_F12, what, "-", m, "-", VD_FAIL);
                    rc = -1;
                    continue;
                }
                double lg = 0, lo = 1e300, hi = 0;
                for (int i = 0; i < ft->nsizes; i++) {
                    double s = base->us[i] / ft->us[i];
                    lg += log(s);
                    lo = s < lo ? s : lo;
                    hi = s > hi ? s : hi;
                }
                double gm = exp(lg / ft->nsizes);
                snprintf(what, sizeof what, "%s, %d nodes, fattree:%d vs torus (sizes %.2f..%.2f)",
                         mf_opcode_name(colls[c]), node_counts[ni], radices[r], lo, hi);
                snprintf(pub, sizeof pub, "%.1f .. %.1fx", PUB_LO, PUB_HI);
                snprintf(mod, sizeof mod, "%.2fx", gm);
                snprintf(tol, sizeof tol, "within %.1f .. %.1f", PUB_LO, PUB_HI);
                if (v->quick) {
                    /* four of fig. 11's sizes: another mean than the bar
                     * (the 128-node Allreduce on radix 8: 2.01x here,
                     * 1.86x over them all), so it is shown, not judged */
                    snprintf(tol, sizeof tol, "--quick: not judged");
                    vd_row(v, SRC_F12, what, pub, mod, tol, VD_INFO);
                    continue;
                }
                /* Below the range, down to half the torus's speed: a
                 * documented miss (doc/validation.md).  Above it: a miss
                 * only where this radix needs fewer switch levels than
                 * radix 8 for these nodes, which 001's text says its
                 * radix-16 network did not (fig. 11F: "having radix-16
                 * switches could not reduce the number of hops compared to
                 * the radix-8 switches").  Otherwise a failure. */
                vd_verdict_t vv = vd_within(gm, PUB_LO, PUB_HI);
                if (vv == VD_FAIL && gm < PUB_LO && gm >= MISS_FLOOR)
                    vv = VD_MISS;
                const task_t *r8 = find_task(tk, nt, c, node_counts[ni], 8);
                if (vv == VD_FAIL && gm > PUB_HI && r8 && !r8->status && ft->levels < r8->levels)
                    vv = VD_MISS;
                vd_row(v, SRC_F12, what, pub, mod, tol, vv);
            }
        }
    }
    return rc;
}
