/* comm_ctors: every communicator constructor the library intercepts, then
 * collectives on the new communicator, then MPI_Comm_free.
 *
 * For each of MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Comm_split (rank%2),
 * MPI_Comm_split_type (SHARED), MPI_Comm_create and MPI_Comm_create_group
 * (the even ranks), MPI_Cart_create (2-D from MPI_Dims_create, reorder 0),
 * MPI_Cart_sub (keeping dim 0, the larger one), MPI_Graph_create (a ring),
 * MPI_Dist_graph_create (each rank names its right neighbour),
 * MPI_Dist_graph_create_adjacent (a ring), MPI_Intercomm_merge (of an
 * intercommunicator from MPI_Intercomm_create between the lower and upper
 * half of MPI_COMM_WORLD) and MPI_Comm_idup + MPI_Wait, on every rank that
 * is a member:
 *     1 x MPI_Allreduce of 5 MPI_INT (SUM), checked exactly,
 *     1 x MPI_Bcast of 16 MPI_DOUBLE from the last rank of the comm, checked,
 *     1 x MPI_Barrier,
 *     MPI_Comm_free (must give MPI_COMM_NULL).
 * Then 3 rounds of 40 MPI_Comm_dup(MPI_COMM_WORLD) (in batches of 10 alive
 * at a time), one checked MPI_Allreduce of 5 MPI_INT on each, each freed:
 * 120 communicators, more than the 32 CT rows, so rows must be released on
 * free for all of them to get one.
 *
 * At -n 4 no communicator used for a collective has size 1 (the smallest
 * are the rank%2 split, the even-rank comms and the Cart_sub rows, all of
 * size 2), so under the library every collective should be offloaded; at
 * -n 2 the even-rank comms have size 1 (legal, just not offloaded).
 * test/mpi_comm.sh checks the report of the -n 4 run.
 *
 * Plain MPI; all bookkeeping (verdicts, ranks, sizes, the helper comm for
 * the intercommunicator's halves) with PMPI_ so the library does not count
 * it.  TAP from rank 0; exit 0 iff all passed.  Needs >= 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_tap.h"

#define NINT 5
#define NDBL 16
#define ROUNDS 3
#define PER_ROUND 40
#define BATCH 10

static int wrank, wsize;

/* MPI_Allreduce of NINT ints (SUM) on comm: member r contributes
 * (r+1)*(i+1+salt), so element i must be (i+1+salt)*p(p+1)/2.  1 if right. */
static int check_allreduce(MPI_Comm comm, int salt, const char *what)
{
    int p, r, in[NINT], out[NINT], good = 1;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &r);
    for (int i = 0; i < NINT; i++) {
        in[i] = (r + 1) * (i + 1 + salt);
        out[i] = -1;
    }
    int rc = MPI_Allreduce(in, out, NINT, MPI_INT, MPI_SUM, comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "comm_ctors: rank %d %s: MPI_Allreduce returned %d\n", wrank, what, rc);
        return 0;
    }
    for (int i = 0; i < NINT; i++) {
        int want = (i + 1 + salt) * p * (p + 1) / 2;
        if (out[i] != want) {
            fprintf(stderr, "comm_ctors: rank %d %s: Allreduce element %d: got %d, expected %d\n",
                    wrank, what, i, out[i], want);
            good = 0;
        }
    }
    return good;
}

/* MPI_Bcast of NDBL doubles from the last rank of comm.  1 if right. */
static int check_bcast(MPI_Comm comm, int salt, const char *what)
{
    int p, r, good = 1;
    double b[NDBL];
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &r);
    int root = p - 1;
    for (int i = 0; i < NDBL; i++)
        b[i] = r == root ? 0.5 + i * 3 + salt * 100 : -1.0;
    int rc = MPI_Bcast(b, NDBL, MPI_DOUBLE, root, comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "comm_ctors: rank %d %s: MPI_Bcast returned %d\n", wrank, what, rc);
        return 0;
    }
    for (int i = 0; i < NDBL; i++)
        if (b[i] != 0.5 + i * 3 + salt * 100) {
            fprintf(stderr, "comm_ctors: rank %d %s: Bcast element %d: got %g, expected %g\n",
                    wrank, what, i, b[i], 0.5 + i * 3 + salt * 100);
            good = 0;
        }
    return good;
}

/* The per-constructor part: on a member (comm != MPI_COMM_NULL) check what
 * the constructor made (created: its return code and the caller's own
 * checks; want_size > 0: that size), then Allreduce, Bcast, Barrier and
 * free; non-members only take part in the verdicts.  Two TAP lines. */
static void exercise(const char *name, int created, MPI_Comm *comm, int member, int want_size,
                     int salt)
{
    char desc[160];
    int good = created && (*comm != MPI_COMM_NULL) == member;
    int p = 0;
    if (good && member) {
        PMPI_Comm_size(*comm, &p);
        if (want_size > 0 && p != want_size) {
            fprintf(stderr, "comm_ctors: rank %d %s: size %d, expected %d\n", wrank, name, p,
                    want_size);
            good = 0;
        }
    }
    snprintf(desc, sizeof desc, "%s: communicator created", name);
    if (!mpi_tap_ok(good, "%s", desc))
        member = 0; /* don't run collectives on a broken communicator */

    good = 1;
    if (member) {
        good &= check_allreduce(*comm, salt, name);
        good &= check_bcast(*comm, salt, name);
        int rc = MPI_Barrier(*comm);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "comm_ctors: rank %d %s: MPI_Barrier returned %d\n", wrank, name, rc);
            good = 0;
        }
        good &= MPI_Comm_free(comm) == MPI_SUCCESS && *comm == MPI_COMM_NULL;
    }
    snprintf(desc, sizeof desc, "%s: Allreduce, Bcast, Barrier right; freed", name);
    mpi_tap_ok(good, "%s", desc);
}

/* 1 if comm's topology is `want` (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH). */
static int topo_is(MPI_Comm comm, int want)
{
    int t = MPI_UNDEFINED;
    return comm != MPI_COMM_NULL && PMPI_Topo_test(comm, &t) == MPI_SUCCESS && t == want;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* errors come back as codes (and new communicators inherit this) */
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (wsize < 2) {
        if (wrank == 0)
            printf("1..0 # SKIP comm_ctors needs at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }

    const int left = (wrank + wsize - 1) % wsize, right = (wrank + 1) % wsize;
    const int neven = (wsize + 1) / 2, even = wrank % 2 == 0;
    int salt = 0;
    MPI_Comm c;
    int ok;

    /* MPI_Comm_dup */
    c = MPI_COMM_NULL;
    ok = MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS;
    exercise("MPI_Comm_dup(MPI_COMM_WORLD)", ok, &c, 1, wsize, ++salt);

    /* MPI_Comm_dup_with_info, with a hint */
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    c = MPI_COMM_NULL;
    ok = MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c) == MPI_SUCCESS;
    PMPI_Info_free(&info);
    exercise("MPI_Comm_dup_with_info(MPI_COMM_WORLD)", ok, &c, 1, wsize, ++salt);

    /* MPI_Comm_split by rank%2 (key: reversed order, to vary the ranks) */
    c = MPI_COMM_NULL;
    ok = MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &c) == MPI_SUCCESS;
    exercise("MPI_Comm_split by rank%2", ok, &c, 1, even ? neven : wsize - neven, ++salt);

    /* MPI_Comm_split_type SHARED (size: however many share this node) */
    c = MPI_COMM_NULL;
    ok = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &c) ==
         MPI_SUCCESS;
    exercise("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)", ok, &c, 1, 0, ++salt);

    /* the group of the even ranks, for Comm_create and Comm_create_group */
    MPI_Group wgroup, egroup;
    int range[1][3] = {{0, wsize - 1, 2}};
    PMPI_Comm_group(MPI_COMM_WORLD, &wgroup);
    PMPI_Group_range_incl(wgroup, 1, range, &egroup);

    /* MPI_Comm_create of the even ranks: odd ranks get MPI_COMM_NULL */
    c = MPI_COMM_NULL;
    ok = MPI_Comm_create(MPI_COMM_WORLD, egroup, &c) == MPI_SUCCESS;
    exercise("MPI_Comm_create of the even ranks", ok, &c, even, neven, ++salt);

    /* MPI_Comm_create_group of the even ranks: only they call it */
    c = MPI_COMM_NULL;
    ok = !even || MPI_Comm_create_group(MPI_COMM_WORLD, egroup, 7, &c) == MPI_SUCCESS;
    exercise("MPI_Comm_create_group of the even ranks", ok, &c, even, neven, ++salt);
    PMPI_Group_free(&egroup);
    PMPI_Group_free(&wgroup);

    /* MPI_Cart_create 2-D, periodic, no reorder; MPI_Cart_sub keeping dim 0
     * (MPI_Dims_create gives dims[0] >= dims[1], so the rows have >= 2
     * ranks) */
    int dims[2] = {0, 0}, periods[2] = {1, 1}, remain[2] = {1, 0};
    PMPI_Dims_create(wsize, 2, dims);
    MPI_Comm cart = MPI_COMM_NULL;
    ok = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart) == MPI_SUCCESS &&
         topo_is(cart, MPI_CART);
    if (ok) {
        int cr = -1;
        PMPI_Comm_rank(cart, &cr);
        ok = cr == wrank; /* reorder 0 */
    }
    c = MPI_COMM_NULL;
    if (ok) {
        /* Cart_sub before the cart's own collectives, so both are alive */
        ok = MPI_Cart_sub(cart, remain, &c) == MPI_SUCCESS && topo_is(c, MPI_CART);
    }
    char name[80];
    snprintf(name, sizeof name, "MPI_Cart_create %dx%d", dims[0], dims[1]);
    exercise(name, ok, &cart, 1, wsize, ++salt);
    snprintf(name, sizeof name, "MPI_Cart_sub keeping dim 0 (size %d)", dims[0]);
    exercise(name, ok, &c, 1, dims[0], ++salt);

    /* MPI_Graph_create: a ring (node i: i-1, i+1) */
    int index[64], edges[128];
    if (wsize > 64) {
        if (wrank == 0)
            fprintf(stderr, "comm_ctors: at most 64 ranks\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < wsize; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + wsize - 1) % wsize;
        edges[2 * i + 1] = (i + 1) % wsize;
    }
    c = MPI_COMM_NULL;
    ok = MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &c) == MPI_SUCCESS &&
         topo_is(c, MPI_GRAPH);
    exercise("MPI_Graph_create (ring)", ok, &c, 1, wsize, ++salt);

    /* MPI_Dist_graph_create: each rank names the edge to its right
     * neighbour */
    int src[1] = {wrank}, deg[1] = {1}, dst[1] = {right};
    c = MPI_COMM_NULL;
    ok = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                               0, &c) == MPI_SUCCESS &&
         topo_is(c, MPI_DIST_GRAPH);
    exercise("MPI_Dist_graph_create (edge to the right neighbour)", ok, &c, 1, wsize, ++salt);

    /* MPI_Dist_graph_create_adjacent: a ring (in and out: left, right) */
    int nbr[2] = {left, right};
    c = MPI_COMM_NULL;
    ok = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbr, MPI_UNWEIGHTED, 2, nbr,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) == MPI_SUCCESS &&
         topo_is(c, MPI_DIST_GRAPH);
    exercise("MPI_Dist_graph_create_adjacent (ring)", ok, &c, 1, wsize, ++salt);

    /* MPI_Intercomm_merge of lower half <-> upper half.  The halves are a
     * helper (PMPI_, never used for collectives); the intercommunicator
     * from MPI_Intercomm_create is not used for collectives either (it
     * would fall back as an intercommunicator).  high: the upper half, so
     * merged ranks are the MPI_COMM_WORLD ranks. */
    const int half = wsize / 2, upper = wrank >= half;
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    c = MPI_COMM_NULL;
    ok = PMPI_Comm_split(MPI_COMM_WORLD, upper, wrank, &local) == MPI_SUCCESS &&
         MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, upper ? 0 : half, 42, &inter) ==
             MPI_SUCCESS &&
         MPI_Intercomm_merge(inter, upper, &c) == MPI_SUCCESS;
    if (ok) {
        int mr = -1, is_inter = 1;
        PMPI_Comm_rank(c, &mr);
        PMPI_Comm_test_inter(c, &is_inter);
        ok = mr == wrank && !is_inter;
    }
    exercise("MPI_Intercomm_merge of MPI_Intercomm_create(lower, upper half)", ok, &c, 1, wsize,
             ++salt);
    if (inter != MPI_COMM_NULL)
        MPI_Comm_free(&inter);
    if (local != MPI_COMM_NULL)
        PMPI_Comm_free(&local);

    /* MPI_Comm_idup + MPI_Wait: the row comes at the first collective */
    MPI_Request req = MPI_REQUEST_NULL;
    c = MPI_COMM_NULL;
    ok = MPI_Comm_idup(MPI_COMM_WORLD, &c, &req) == MPI_SUCCESS &&
         MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    exercise("MPI_Comm_idup(MPI_COMM_WORLD) + MPI_Wait", ok, &c, 1, wsize, ++salt);

    /* 3 rounds of 40 dups, BATCH alive at a time, an Allreduce on each */
    for (int round = 0; round < ROUNDS; round++) {
        int good = 1;
        for (int b = 0; b < PER_ROUND; b += BATCH) {
            MPI_Comm d[BATCH];
            for (int k = 0; k < BATCH; k++) {
                d[k] = MPI_COMM_NULL;
                good &= MPI_Comm_dup(MPI_COMM_WORLD, &d[k]) == MPI_SUCCESS;
            }
            for (int k = 0; k < BATCH; k++)
                if (d[k] != MPI_COMM_NULL)
                    good &= check_allreduce(d[k], 1000 + 100 * round + b + k, "dup loop");
            for (int k = 0; k < BATCH; k++)
                if (d[k] != MPI_COMM_NULL)
                    good &= MPI_Comm_free(&d[k]) == MPI_SUCCESS && d[k] == MPI_COMM_NULL;
        }
        char desc[120];
        snprintf(desc, sizeof desc,
                 "round %d: %d MPI_Comm_dup (%d alive at a time), Allreduce on each right, freed",
                 round + 1, PER_ROUND, BATCH);
        mpi_tap_ok(good, "%s", desc);
    }

    int status = mpi_tap_finish();
    MPI_Finalize();
    return status;
}
