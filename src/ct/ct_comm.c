/*
 * Per-communicator state: an MPI attribute holding the CT row (context ID)
 * every member agreed on and the reason to fall back when there is none.
 *
 * A CT row is agreed, not hashed: each member offers the rows it has free
 * (a bitmask) and an allreduce(BAND) over the new communicator gives the
 * rows free on all of them; the lowest wins.  Then each member builds its
 * CT entry (001 sec. 3.1-3.3, global ranks) and sends it to its switch.
 * Freeing the communicator (the attribute's delete callback) releases the
 * row on the switch and locally.
 */
#include <stdio.h>
#include <stdlib.h>

#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "mpifpga/ct.h"

static int keyval = MPI_KEYVAL_INVALID;
static uint32_t slots_used; /* CT rows this rank's communicators hold */
static int warned_full;

static int delete_state(MPI_Comm comm, int key, void *attr, void *extra)
{
    mf_comm_t *c = attr;
    (void)key, (void)extra;
    if (c->ctx >= 0) {
        mf_nb_drain(comm); /* its outstanding calls need the CT row */
        slots_used &= ~(1u << c->ctx);
        char err[256];
        if (mf_host.dev_open && mf_host.dev.ops->ct_free(&mf_host.dev, c->ctx, err, sizeof err))
            fprintf(stderr, "mpifpga: rank %d: releasing CT row %d: %s\n", mf_host.grank,
                    c->ctx, err);
    }
    free(c);
    return MPI_SUCCESS;
}

int mf_comm_init(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL) !=
        MPI_SUCCESS)
        return -1;
    mf_comm_attach(MPI_COMM_WORLD);
    return 0;
}

void mf_comm_finalize(void)
{
    if (keyval == MPI_KEYVAL_INVALID)
        return;
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
    PMPI_Comm_free_keyval(&keyval);
}

static void warn_full(const mf_comm_t *c)
{
    if (warned_full || c->rank != 0)
        return;
    warned_full = 1;
    fprintf(stderr,
            "mpifpga: warning: communicator table full (%d rows, MPIFPGA_CT_SLOTS) on a member "
            "of a new communicator of %d ranks; its collectives run in MPI until a "
            "communicator is freed\n", mf_host.cfg.ct_slots, c->size);
}

/* Lowest row free on every member, or -1. */
static int agree_row(MPI_Comm comm)
{
    uint32_t mask = mf_host.cfg.ct_slots >= 32 ? 0xffffffffu : (1u << mf_host.cfg.ct_slots) - 1;
    uint32_t mine = ~slots_used & mask, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_UINT32_T, MPI_BAND, comm) != MPI_SUCCESS || !all)
        return -1;
    return __builtin_ctz(all);
}

/* Build this member's CT entry for row ctx and send it; 1 if it went out. */
static int send_entry(MPI_Comm comm, mf_comm_t *c)
{
    char err[256];
    int ok = 0;
    int *global_of = malloc((size_t)c->size * sizeof *global_of);
    mf_ct_entry_t e;
    if (!global_of ||
        PMPI_Allgather(&mf_host.grank, 1, MPI_INT, global_of, 1, MPI_INT, comm) != MPI_SUCCESS)
        snprintf(err, sizeof err, "out of memory or MPI error gathering global ranks");
    else if (mf_ct_entry_build(c->size, c->rank, global_of, &e, err, sizeof err) == 0 &&
             mf_host.dev.ops->ct_config(&mf_host.dev, c->ctx, &e, err, sizeof err) == 0)
        ok = 1;
    if (ok) {
        c->global0 = global_of[0];
        for (int i = 0; i < c->size && i < MF_ALLTOALL_MAX_MEMBERS; i++)
            c->addr[i] = (uint32_t)global_of[i];
    }
    else
        fprintf(stderr, "mpifpga: rank %d: CT entry for row %d: %s\n", mf_host.grank, c->ctx,
                err);
    free(global_of);
    return ok;
}

/* Every member's entry must have gone out, or some would offload and
 * others not; a member whose entry went out takes it back.  0 on success. */
static int configure_row(MPI_Comm comm, mf_comm_t *c)
{
    char err[256];
    int ok = send_entry(comm, c), all_ok = 0;
    if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        all_ok = 0;
    if (!all_ok && ok)
        mf_host.dev.ops->ct_free(&mf_host.dev, c->ctx, err, sizeof err);
    return all_ok ? 0 : -1;
}

static void decide(MPI_Comm comm, mf_comm_t *c)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        c->reason = MF_FB_INTERCOMM;
        return;
    }
    PMPI_Comm_size(comm, &c->size);
    PMPI_Comm_rank(comm, &c->rank);
    if (c->size < 2 || c->size >= (int)MF_RANK_NONE) {
        c->reason = MF_FB_COMM_SIZE;
        return;
    }
    if (!mf_host.active) {
        c->reason = mf_host.off_reason;
        return;
    }
    c->ctx = agree_row(comm);
    if (c->ctx < 0) {
        c->reason = MF_FB_CT_FULL;
        mf_host.rep.comms_ct_full++;
        warn_full(c);
        return;
    }
    slots_used |= 1u << c->ctx;
    if (configure_row(comm, c)) {
        slots_used &= ~(1u << c->ctx);
        c->ctx = -1;
        c->reason = MF_FB_ENGINE;
        return;
    }
    mf_host.rep.comms_ct++;
}

void mf_comm_attach(MPI_Comm comm)
{
    if (!mf_host.initialized || keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL)
        return;
    mf_comm_t *c = calloc(1, sizeof *c);
    if (!c)
        return; /* no state: the comm's collectives will retry, then fall back */
    c->ctx = -1;
    decide(comm, c);
    mf_host.rep.comms++;
    if (PMPI_Comm_set_attr(comm, keyval, c) != MPI_SUCCESS)
        delete_state(comm, keyval, c, NULL);
}

const mf_comm_t *mf_comm_get(MPI_Comm comm)
{
    static const mf_comm_t none = {.ctx = -1, .reason = MF_FB_ENGINE};
    void *attr = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID)
        return &none;
    if (PMPI_Comm_get_attr(comm, keyval, &attr, &flag) == MPI_SUCCESS && flag)
        return attr;
    mf_comm_attach(comm);
    if (PMPI_Comm_get_attr(comm, keyval, &attr, &flag) == MPI_SUCCESS && flag)
        return attr;
    return &none;
}
