/* coll_check: every intercepted collective, compared with MPICH itself.
 *
 *   coll_check [--quick] [--sizes LIST] [--shapes LIST] [--colls LIST] [--list]
 *
 * Plain MPI: it builds with mpicc and runs under mpiexec without the library.
 * Under libmpifpga the MPI_Xxx calls are intercepted while the PMPI_Xxx calls
 * go straight to MPICH, so each case runs the MPI_ call on one set of buffers
 * and the PMPI_ version of the same call on an identical set, and compares:
 * integers and floating point exactly (the inputs are small integers, and
 * products of mostly 1 with a few 2 and -1, so every reduction is exact in any
 * association order).  Non-exact random doubles are only checked for being
 * bit-identical on every rank (MPI_Allreduce), never against PMPI.
 * Exception: MPI_MIN/MPI_MAX on unsigned types, where Debian's MPICH 4.0.2
 * is wrong (pmodels/mpich#6083); there the reference is computed in C.
 *
 * It also checks that the send buffer is left unchanged and that nothing is
 * written past the end of any buffer (guard bytes).  Buffers that MPI says are
 * not significant (the receive buffer of a non-root in Reduce/Gather, the send
 * buffer of a non-root in Scatter) are passed as NULL, as real programs do.
 *
 * All of the test's own bookkeeping (verdicts, messages, timing barriers)
 * uses PMPI_ so the library does not see or count it.  Communicator creation
 * uses the MPI_ names, as an unmodified program would.
 *
 * Output: TAP from rank 0 ("ok K - desc" per case, "1..N" at the end), each
 * verdict being the AND over all ranks.  On failure a "#" line names the
 * lowest failing rank and the first differing element.  Exit status 0 iff
 * every case passed on every rank.
 *
 * LIST syntax:
 *   --colls   reduce,allreduce,bcast,scatter,gather,allgather,reduce_scatter,
 *             reduce_scatter_block,barrier,nonexact  (default: all)
 *   --shapes  world,halves,odd,dup,cart,scrambled    (default: all)
 *   --sizes   0, 1el (one element), odd (7 elements), oddl (1023 elements),
 *             or a number of bytes (4096, 4k, 1m, ...; rounded down to whole
 *             elements, at least one).  Sizes are per-rank block/vector bytes.
 *             default: 0,1el,odd,oddl,4k,1m;  --quick: 0,1el,odd,4k (and 1 MiB
 *             only for Allreduce/Bcast of MPI_INT on the world).
 *   --pmpi-reference  compare with PMPI_ everywhere, even unsigned MIN/MAX
 *             (for runs where every call falls back: results must equal
 *             MPICH's, bugs included)
 *   --strict  only (type, op) pairs that the MPI standard allows (by default
 *             MPI_CHAR, which MPICH accepts with every op, is tested with all
 *             ops too; those cases are marked [mpich-ext]).
 *   --list    print the case list (rank 0) without running anything.
 *   --verbose every rank prints each case to stderr before running it (to
 *             find the call that hangs).
 */
#include "coll_check.h"

/* ------------------------------------------------------------------------ */
/* Case enumeration (identical on every rank)                               */
/* ------------------------------------------------------------------------ */
void emit(int coll, int shape, int t, int op, long count, int var, int rootsel)
{
    /* MPICH 4.0.2 (and 4.1.1) crash in MPI_Reduce(MPI_IN_PLACE) at a root
     * other than 0 when the message is over 2048 bytes (reduce_scatter_gather
     * algorithm; pmodels/mpich#6540, fixed by #6543).  The PMPI reference and
     * any fallback would crash too, so those cases use root 0. */
    if (coll == C_REDUCE && var == V_INPLACE && count * types[t].size > 2048)
        rootsel = 0;
    case_t c = {coll, shape, t, op, var, rootsel, count, 0};
    if (op < NOPS)
        c.nonstd = !standard(t, op);
    run_case(&c);
}

void enumerate(void)
{
    int k = 0; /* rotation counter */
    for (int coll = 0; coll < NCOLLS; coll++) {
        if (!coll_on[coll])
            continue;
        if (coll == C_BARRIER) {
            for (int s = 0; s < NSHAPES; s++)
                if (shape_on[s]) emit(C_BARRIER, s, T_INT, O_NONE, 0, V_STD, 0);
            if (shape_on[S_WORLD]) run_barrier_timing(S_WORLD);
            if (shape_on[S_SCRAMBLED] && !quick) run_barrier_timing(S_SCRAMBLED);
            continue;
        }
        if (coll == C_NONEXACT) {
            static const int sh[] = {S_WORLD, S_HALVES, S_SCRAMBLED};
            for (int i = 0; i < 3; i++)
                if (shape_on[sh[i]]) {
                    run_nonexact(sh[i], 1023);
                    if (!quick) run_nonexact(sh[i], 4096 / 8 * 8 + 5);
                }
            continue;
        }
        int red = is_reduction(coll), rooted = is_rooted(coll);
        for (int s = 0; s < NSHAPES; s++) {
            if (!shape_on[s])
                continue;
            for (int z = 0; z < nsizes; z++) {
                const size_t_ *sz = &sizes[z];
                /* 1 MiB: INT/DOUBLE (SUM), world and halves, root 0, MPI_ call only.
                 * --quick: only Allreduce/Bcast of MPI_INT on the world. */
                if (size_is_big(sz)) {
                    if (quick && !((coll == C_ALLREDUCE || coll == C_BCAST) && s == S_WORLD))
                        continue;
                    if (s != S_WORLD && s != S_HALVES)
                        continue;
                    emit(coll, s, T_INT, red ? O_SUM : O_NONE, size_count(sz, T_INT), V_STD, 0);
                    if (!quick)
                        emit(coll, s, T_DOUBLE, red ? O_SUM : O_NONE, size_count(sz, T_DOUBLE), V_STD, 0);
                    continue;
                }
                int full = s == S_WORLD && sz->by_elems && sz->val == 7;
                if (full) {
                    /* the (type, op) matrix */
                    if (coll == C_ALLREDUCE) {
                        for (int t = 0; t < NTYPES; t++)
                            for (int o = 0; o < NOPS; o++)
                                if (pair_ok(t, o)) emit(coll, s, t, o, size_count(sz, t), V_STD, 0);
                    } else if (red) {
                        for (int i = 0; i < NREP; i++) {
                            int t = rep_pairs[i][0], o = rep_pairs[i][1];
                            if (!pair_ok(t, o)) continue;
                            emit(coll, s, t, o, size_count(sz, t), V_STD, i % 2);
                        }
                    } else {
                        for (int t = 0; t < NTYPES; t++)
                            emit(coll, s, t, O_NONE, size_count(sz, t), V_STD, t % 2);
                    }
                    continue;
                }
                /* elsewhere: one rotating (type, op) per variant */
                int nvar = quick ? 2 : 3;
                for (int v = 0; v < nvar; v++) {
                    int var = v == 0 ? V_STD : (quick ? ((k & 1) ? V_LARGE : V_INPLACE)
                                                      : (v == 1 ? V_INPLACE : V_LARGE));
                    if (var == V_INPLACE && !has_inplace(coll))
                        var = V_LARGE;
                    int t, o;
                    do {
                        if (red) { t = rep_pairs[k % NREP][0]; o = rep_pairs[k % NREP][1]; }
                        else { t = rep_types[k % NREPT]; o = O_NONE; }
                        k++;
                    } while (red && !pair_ok(t, o));
                    if (rooted && !quick && var == V_STD) {
                        emit(coll, s, t, o, size_count(sz, t), var, 0);
                        emit(coll, s, t, o, size_count(sz, t), var, 1);
                    } else {
                        emit(coll, s, t, o, size_count(sz, t), var, k & 1);
                    }
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Communicators                                                             */
/* ------------------------------------------------------------------------ */
MPI_Comm cart_comm = MPI_COMM_NULL;

int odd_part(int n) /* size of the odd part, or 0 if it would be < 3 */
{
    int k = (n - 1) % 2 ? n - 1 : n - 2;
    return k >= 3 ? k : 0;
}

void make_comms(void)
{
    shape_comm[S_WORLD] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize / 2, wrank, &shape_comm[S_HALVES]);
    int k = odd_part(wsize);
    if (k)
        MPI_Comm_split(MPI_COMM_WORLD, wrank < k, wrank, &shape_comm[S_ODD]);
    else
        shape_on[S_ODD] = 0, shape_comm[S_ODD] = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &shape_comm[S_DUP]);
    int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 1};
    MPI_Dims_create(wsize, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart_comm);
    MPI_Cart_sub(cart_comm, keep, &shape_comm[S_CART]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank * 7 + 3) % wsize, &shape_comm[S_SCRAMBLED]);
    for (int s = 0; s < NSHAPES; s++)
        if (shape_comm[s] != MPI_COMM_NULL)
            MPI_Comm_set_errhandler(shape_comm[s], MPI_ERRORS_RETURN);
}

void free_comms(void)
{
    for (int s = 1; s < NSHAPES; s++)
        if (shape_comm[s] != MPI_COMM_NULL)
            MPI_Comm_free(&shape_comm[s]);
    MPI_Comm_free(&cart_comm);
}

/* ------------------------------------------------------------------------ */
/* Arguments                                                                 */
/* ------------------------------------------------------------------------ */
void usage(void)
{
    if (wrank == 0)
        fprintf(stderr, "usage: coll_check [--quick] [--strict] [--pmpi-reference] [--list] [--verbose] [--sizes LIST] "
                        "[--shapes LIST] [--colls LIST]\n");
    PMPI_Finalize();
    exit(2);
}

int parse_list(char *arg, const char *const *names, int n, int *on)
{
    for (int i = 0; i < n; i++) on[i] = 0;
    for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(tok, names[i])) on[i] = found = 1;
        if (!found) {
            if (wrank == 0) fprintf(stderr, "coll_check: unknown name '%s'\n", tok);
            return 0;
        }
    }
    return 1;
}

int add_size(const char *tok)
{
    if (nsizes == MAXSIZES) return 0;
    size_t_ *s = &sizes[nsizes];
    s->label = tok;
    if (!strcmp(tok, "1el")) { s->by_elems = 1; s->val = 1; }
    else if (!strcmp(tok, "odd")) { s->by_elems = 1; s->val = 7; }
    else if (!strcmp(tok, "oddl")) { s->by_elems = 1; s->val = 1023; }
    else {
        char *end;
        long v = strtol(tok, &end, 10);
        if (end == tok || v < 0) return 0;
        if (*end == 'k' || *end == 'K') v <<= 10, end++;
        else if (*end == 'm' || *end == 'M') v <<= 20, end++;
        if (*end) return 0;
        s->by_elems = 0;
        s->val = v;
    }
    nsizes++;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Op o[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR,
                      MPI_BAND, MPI_BOR, MPI_BXOR};
    memcpy(ops, o, sizeof ops);
    for (int i = 0; i < NCOLLS; i++) coll_on[i] = 1;
    for (int i = 0; i < NSHAPES; i++) shape_on[i] = 1;
    char *sizearg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--strict")) strict_pairs = 1;
        else if (!strcmp(argv[i], "--pmpi-reference")) pmpi_always = 1;
        else if (!strcmp(argv[i], "--list")) list_only = 1;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizearg = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            if (!parse_list(argv[++i], shapenames, NSHAPES, shape_on)) usage();
        } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            if (!parse_list(argv[++i], collnames, NCOLLS, coll_on)) usage();
        } else usage();
    }
    const char *def = quick ? "0,1el,odd,4k,1m" : "0,1el,odd,oddl,4k,1m";
    static char defbuf[64];
    if (!sizearg) { snprintf(defbuf, sizeof defbuf, "%s", def); sizearg = defbuf; }
    for (char *tok = strtok(sizearg, ","); tok; tok = strtok(NULL, ","))
        if (!add_size(tok)) {
            if (wrank == 0) fprintf(stderr, "coll_check: bad size '%s'\n", tok);
            usage();
        }

    probe_pairs();
    if (wrank == 0 && !list_only) {
        printf("# coll_check: %d ranks%s%s\n# (type, op) pairs MPICH rejects:", wsize,
               quick ? ", --quick" : "", strict_pairs ? ", --strict" : "");
        for (int t = 0; t < NTYPES; t++)
            for (int op = 0; op < NOPS; op++)
                if (!accepted[t][op]) printf(" %s/%s", types[t].name + 4, opnames[op]);
        printf("\n# skipped: those, and pairs the MPI standard does not allow%s",
               strict_pairs ? "" : " (except MPI_CHAR: tested with every op, [mpich-ext])");
        printf("\n");
    }
    make_comms();
    double t0 = PMPI_Wtime();
    enumerate();
    flush_batch();
    free_comms();
    if (wrank == 0 && !list_only) {
        printf("1..%d\n", ncases);
        printf("# %d cases, %d failed, %.2f s\n", ncases, nfailed, PMPI_Wtime() - t0);
    }
    MPI_Finalize();
    return nfailed ? 1 : 0;
}
