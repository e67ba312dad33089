/* cg_poisson: an HPCCG-like proxy application, written from scratch.
 *
 *   cg_poisson [nx ny nz] [max_iters] [tol]
 *
 * Solves A x = b by unpreconditioned conjugate gradient, where A is the
 * 7-point finite-difference -Laplacian (6 on the diagonal, -1 for each of the
 * six neighbours) with homogeneous Dirichlet boundary conditions: a neighbour
 * outside the global domain is simply absent from the row.  Every rank owns
 * an nx * ny * nz block and the blocks are stacked in z, so the global grid
 * is nx * ny * (nz * nranks) and the only communication in the matrix-vector
 * product is a halo exchange of one z-plane with each neighbour rank
 * (MPI_Sendrecv).
 *
 * As in HPCCG, the right-hand side is b = A * x_exact with x_exact = 1
 * everywhere, so the error of the computed solution is known exactly.
 * Starting guess x = 0; CG stops when ||r|| <= tol * ||b|| (recursive
 * residual) or after max_iters iterations.
 *
 * Collectives used (this is what an offload library gets to see):
 *   MPI_Bcast      parameters from rank 0                    (once)
 *   MPI_Allreduce  SUM of [b.b, r.r] at the start            (once, 2 doubles)
 *   MPI_Allreduce  SUM of p.Ap                               (every iteration)
 *   MPI_Allreduce  SUM of r.r                                (every iteration)
 *   MPI_Allreduce  SUM of the true residual ||b - Ax||^2     (once)
 *   MPI_Allreduce  MAX of the error |x - x_exact|            (once)
 *   MPI_Reduce     MAX and SUM of the solve time to rank 0   (once, 2 doubles
 *                  reduced as two calls, MAX and SUM)
 *
 * Output (rank 0): the problem, iterations, final (true, relative) residual,
 * max error, solve time, and a last line "VERIFICATION PASSED" (converged and
 * max error < 1e-6) or "VERIFICATION FAILED" (exit status 1 on every rank).
 * Bad arguments: a usage message on stderr and exit status 2.
 *
 * Deterministic: the same arguments and rank count give the same output
 * (apart from the times), since every floating-point operation and every
 * reduction is done in a fixed order.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 16
#define DEFAULT_MAX_ITERS 200
#define DEFAULT_TOL 1e-8
#define MAX_DIM 4096
#define MAX_LOCAL_POINTS (1L << 24) /* 16 Mi points: ~0.7 GB for 5 vectors */
#define ERROR_LIMIT 1e-6

/* Any MPI error aborts with a message (the default handler is already
 * MPI_ERRORS_ARE_FATAL, but a program may change it; this keeps the failure
 * visible and names the call). */
#define CHECK_MPI(call)                                                        \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS) {                                              \
            fprintf(stderr, "cg_poisson: %s failed (%d) at %s:%d\n", #call,    \
                    rc_, __FILE__, __LINE__);                                  \
            MPI_Abort(MPI_COMM_WORLD, 3);                                      \
        }                                                                      \
    } while (0)

/* Broadcast as raw bytes: every rank runs the same binary on the same kind of
 * machine, so the struct layout is identical everywhere. */
struct params {
    int nx, ny, nz;
    int max_iters;
    int status; /* 0: run, 1: help was printed, 2: bad arguments */
    double tol;
};

/* Local block of one rank.  Vectors that take part in a matrix-vector product
 * are stored with one ghost z-plane below (plane 0) and one above (plane
 * nz + 1); the owned points are planes 1..nz.  Ghost planes at the global
 * boundary stay zero, which is what makes the boundary Dirichlet. */
struct grid {
    int nx, ny, nz;
    size_t plane;  /* nx * ny */
    size_t owned;  /* nx * ny * nz */
    int below;     /* rank below in z, or MPI_PROC_NULL */
    int above;     /* rank above in z, or MPI_PROC_NULL */
    MPI_Comm comm;
};

struct cg_result {
    int iters;
    int converged;
    double rel_residual; /* true ||b - Ax|| / ||b|| at the end */
    double max_error;    /* max |x - x_exact| over all ranks */
    double solve_time;   /* this rank's seconds in cg_solve */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cg_poisson [nx ny nz] [max_iters] [tol]\n"
            "  nx ny nz   local grid per rank, 1..%d each (default %d %d %d);\n"
            "             ranks are stacked in z\n"
            "  max_iters  maximum CG iterations, >= 1 (default %d)\n"
            "  tol        relative residual tolerance, 0 < tol < 1 "
            "(default %g)\n",
            MAX_DIM, DEFAULT_N, DEFAULT_N, DEFAULT_N, DEFAULT_MAX_ITERS,
            DEFAULT_TOL);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_tol(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v <= 0.0 ||
        v >= 1.0)
        return -1;
    *out = v;
    return 0;
}

/* Runs on rank 0 only; fills p (including p->status). */
static void parse_args(int argc, char **argv, struct params *p)
{
    p->nx = p->ny = p->nz = DEFAULT_N;
    p->max_iters = DEFAULT_MAX_ITERS;
    p->tol = DEFAULT_TOL;
    p->status = 0;

    if (argc == 2 &&
        (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        p->status = 1;
        return;
    }
    int nargs = argc - 1;
    if (nargs != 0 && nargs != 3 && nargs != 4 && nargs != 5) {
        fprintf(stderr, "cg_poisson: expected 0, 3, 4 or 5 arguments, got %d\n",
                nargs);
        goto bad;
    }
    if (nargs >= 3 && (parse_int(argv[1], 1, MAX_DIM, &p->nx) != 0 ||
                       parse_int(argv[2], 1, MAX_DIM, &p->ny) != 0 ||
                       parse_int(argv[3], 1, MAX_DIM, &p->nz) != 0)) {
        fprintf(stderr, "cg_poisson: nx ny nz must be integers in 1..%d\n",
                MAX_DIM);
        goto bad;
    }
    if (nargs >= 4 && parse_int(argv[4], 1, INT_MAX, &p->max_iters) != 0) {
        fprintf(stderr, "cg_poisson: max_iters must be an integer >= 1\n");
        goto bad;
    }
    if (nargs >= 5 && parse_tol(argv[5], &p->tol) != 0) {
        fprintf(stderr, "cg_poisson: tol must be a number with 0 < tol < 1\n");
        goto bad;
    }
    if ((long)p->nx * p->ny * p->nz > MAX_LOCAL_POINTS) {
        fprintf(stderr, "cg_poisson: nx*ny*nz must be at most %ld\n",
                MAX_LOCAL_POINTS);
        goto bad;
    }
    return;
bad:
    usage(stderr);
    p->status = 2;
}

static double *alloc_vector(size_t n)
{
    double *v = calloc(n, sizeof *v);
    if (v == NULL) {
        fprintf(stderr, "cg_poisson: out of memory (%zu doubles)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return v;
}

/* Owned part of a vector stored with ghost planes. */
static double *owned(const struct grid *g, double *v)
{
    return v + g->plane;
}

/* Fill the ghost planes of v from the neighbour ranks.  At the global
 * boundary the partner is MPI_PROC_NULL, the receive does nothing and the
 * ghost plane keeps its zeros. */
static void halo_exchange(const struct grid *g, double *v)
{
    int count = (int)g->plane;
    double *first = v + g->plane;                    /* plane 1 */
    double *last = v + (size_t)g->nz * g->plane;     /* plane nz */
    double *ghost_lo = v;                            /* plane 0 */
    double *ghost_hi = v + (size_t)(g->nz + 1) * g->plane;

    /* upward: my top plane goes to the rank above, I receive from below */
    CHECK_MPI(MPI_Sendrecv(last, count, MPI_DOUBLE, g->above, 1, ghost_lo,
                           count, MPI_DOUBLE, g->below, 1, g->comm,
                           MPI_STATUS_IGNORE));
    /* downward */
    CHECK_MPI(MPI_Sendrecv(first, count, MPI_DOUBLE, g->below, 2, ghost_hi,
                           count, MPI_DOUBLE, g->above, 2, g->comm,
                           MPI_STATUS_IGNORE));
}

/* y = A v on the owned points; v must have up-to-date ghost planes.  The
 * stencil is applied in x and y only to neighbours inside the block (the
 * block spans the whole domain in x and y); in z the ghost planes supply the
 * neighbours, zeros beyond the global boundary. */
static void matvec(const struct grid *g, const double *v, double *y)
{
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    const size_t pl = g->plane;
    for (int k = 1; k <= nz; k++) {
        for (int j = 0; j < ny; j++) {
            for (int i = 0; i < nx; i++) {
                size_t c = (size_t)k * pl + (size_t)j * nx + i;
                double s = 6.0 * v[c] - v[c - pl] - v[c + pl];
                if (i > 0)
                    s -= v[c - 1];
                if (i < nx - 1)
                    s -= v[c + 1];
                if (j > 0)
                    s -= v[c - nx];
                if (j < ny - 1)
                    s -= v[c + nx];
                y[c - pl] = s;
            }
        }
    }
}

static double local_dot(size_t n, const double *a, const double *b)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* y = a * x + y */
static void axpy(size_t n, double a, const double *x, double *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* p = r + beta * p */
static void update_direction(size_t n, const double *r, double beta, double *p)
{
    for (size_t i = 0; i < n; i++)
        p[i] = r[i] + beta * p[i];
}

/* b = A * x_exact, x_exact = 1 everywhere. */
static void build_rhs(const struct grid *g, double *b)
{
    double *ones = alloc_vector((size_t)(g->nz + 2) * g->plane);
    for (size_t i = 0; i < g->owned; i++)
        owned(g, ones)[i] = 1.0;
    halo_exchange(g, ones);
    matvec(g, ones, b);
    free(ones);
}

/* ||b - A x||^2 over all ranks; x has ghost planes (refreshed here). */
static double global_residual_sq(const struct grid *g, double *x,
                                 const double *b)
{
    double *ax = alloc_vector(g->owned);
    halo_exchange(g, x);
    matvec(g, x, ax);
    double local = 0.0;
    for (size_t i = 0; i < g->owned; i++) {
        double d = b[i] - ax[i];
        local += d * d;
    }
    free(ax);
    double global;
    CHECK_MPI(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, g->comm));
    return global;
}

static double global_max_error(const struct grid *g, double *x)
{
    double local = 0.0;
    for (size_t i = 0; i < g->owned; i++) {
        double e = fabs(owned(g, x)[i] - 1.0);
        if (e > local)
            local = e;
    }
    double global;
    CHECK_MPI(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, g->comm));
    return global;
}

/* Unpreconditioned CG from x = 0.  x and p carry ghost planes; r, ap and b
 * hold owned points only. */
static void cg_solve(const struct grid *g, const double *b, double *x,
                     int max_iters, double tol, struct cg_result *res)
{
    const size_t n = g->owned;
    double *r = alloc_vector(n);
    double *p = alloc_vector((size_t)(g->nz + 2) * g->plane);
    double *ap = alloc_vector(n);

    double t0 = MPI_Wtime();

    /* x = 0, so r = b and p = r */
    memcpy(r, b, n * sizeof *r);
    memcpy(owned(g, p), r, n * sizeof *r);

    /* [b.b, r.r] in one call; equal here, but kept separate so the start
     * does not depend on x being zero */
    double local2[2] = {local_dot(n, b, b), local_dot(n, r, r)};
    double global2[2];
    CHECK_MPI(MPI_Allreduce(local2, global2, 2, MPI_DOUBLE, MPI_SUM, g->comm));
    const double bnorm = sqrt(global2[0]);
    double rtr = global2[1];
    const double stop = tol * bnorm;

    int iter = 0;
    int converged = sqrt(rtr) <= stop;
    while (!converged && iter < max_iters) {
        halo_exchange(g, p);
        matvec(g, p, ap);

        double local_pap = local_dot(n, owned(g, p), ap), pap;
        CHECK_MPI(MPI_Allreduce(&local_pap, &pap, 1, MPI_DOUBLE, MPI_SUM,
                                g->comm));
        if (!(pap > 0.0))
            break; /* cannot happen for SPD A; would be a breakdown */
        const double alpha = rtr / pap;

        axpy(n, alpha, owned(g, p), owned(g, x));
        axpy(n, -alpha, ap, r);

        double local_rtr = local_dot(n, r, r), rtr_new;
        CHECK_MPI(MPI_Allreduce(&local_rtr, &rtr_new, 1, MPI_DOUBLE, MPI_SUM,
                                g->comm));
        iter++;
        converged = sqrt(rtr_new) <= stop;

        update_direction(n, r, rtr_new / rtr, owned(g, p));
        rtr = rtr_new;
    }

    res->solve_time = MPI_Wtime() - t0;
    res->iters = iter;
    res->converged = converged;
    res->rel_residual = sqrt(global_residual_sq(g, x, b)) / bnorm;

    free(ap);
    free(p);
    free(r);
}

static void setup_grid(const struct params *p, MPI_Comm comm, struct grid *g)
{
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &size));
    g->nx = p->nx;
    g->ny = p->ny;
    g->nz = p->nz;
    g->plane = (size_t)p->nx * p->ny;
    g->owned = g->plane * (size_t)p->nz;
    g->below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    g->above = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    g->comm = comm;
}

static void print_summary(const struct params *p, int nranks,
                          const struct cg_result *res, double tmax,
                          double tsum, int passed)
{
    long nzg = (long)p->nz * nranks;
    printf("cg_poisson: %d ranks, local grid %d x %d x %d, "
           "global grid %d x %d x %ld (%ld unknowns)\n",
           nranks, p->nx, p->ny, p->nz, p->nx, p->ny, nzg,
           (long)p->nx * p->ny * nzg);
    printf("max_iters %d, tol %g\n", p->max_iters, p->tol);
    printf("iterations:      %d (%s)\n", res->iters,
           res->converged ? "converged" : "NOT converged");
    printf("final residual:  %.3e (||b - Ax|| / ||b||)\n", res->rel_residual);
    printf("max error:       %.3e (max |x - 1|, limit %g)\n", res->max_error,
           ERROR_LIMIT);
    printf("solve time:      %.6f s (max over ranks; mean %.6f s)\n", tmax,
           tsum / nranks);
    printf("VERIFICATION %s\n", passed ? "PASSED" : "FAILED");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, nranks;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &nranks));

    /* Only rank 0 parses; everybody uses what rank 0 broadcasts, including
     * the verdict on the arguments, so that all ranks exit the same way. */
    struct params p;
    memset(&p, 0, sizeof p);
    if (rank == 0)
        parse_args(argc, argv, &p);
    CHECK_MPI(MPI_Bcast(&p, (int)sizeof p, MPI_BYTE, 0, comm));
    if (p.status != 0) {
        MPI_Finalize();
        return p.status == 1 ? 0 : 2;
    }
    if ((long)p.nz * nranks > INT_MAX) {
        if (rank == 0)
            fprintf(stderr, "cg_poisson: nz * ranks too large\n");
        MPI_Finalize();
        return 2;
    }

    struct grid g;
    setup_grid(&p, comm, &g);

    double *b = alloc_vector(g.owned);
    double *x = alloc_vector((size_t)(g.nz + 2) * g.plane);
    build_rhs(&g, b);

    struct cg_result res;
    cg_solve(&g, b, x, p.max_iters, p.tol, &res);
    res.max_error = global_max_error(&g, x);

    double tmax = 0.0, tsum = 0.0;
    CHECK_MPI(MPI_Reduce(&res.solve_time, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0,
                         comm));
    CHECK_MPI(MPI_Reduce(&res.solve_time, &tsum, 1, MPI_DOUBLE, MPI_SUM, 0,
                         comm));

    /* converged and max_error come from Allreduce results, so every rank
     * reaches the same verdict */
    int passed = res.converged && res.max_error < ERROR_LIMIT;
    if (rank == 0)
        print_summary(&p, nranks, &res, tmax, tsum, passed);

    free(x);
    free(b);
    MPI_Finalize();
    return passed ? 0 : 1;
}
