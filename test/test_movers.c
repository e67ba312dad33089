/*
 * Data-movement results placed by the engine (fpga_model/server/movers.c):
 * which calls qualify (opcode and every member's byte counts), and the
 * bytes each member gets for bcast, scatter, gather and allgather.
 */
#include <string.h>

#include "mpifpga/wire.h"
#include "server/movers.h"
#include "tap.h"

#define P 3
#define BLK 5

static uint8_t sendb[P][P * BLK], recvb[P][P * BLK];
static mf_mover_member_t m[P];

/* Members with the byte counts of `opc` from root `root`, send buffers
 * filled with (rank, index) patterns, receive buffers cleared. */
static void setup(unsigned opc, int root)
{
    for (int i = 0; i < P; i++) {
        for (int k = 0; k < P * BLK; k++)
            sendb[i][k] = (uint8_t)(16 * i + k);
        memset(recvb[i], 0xee, sizeof recvb[i]);
        int r = i == root;
        uint64_t s = BLK, v = P * BLK;
        if (opc == MF_OPC_BCAST)
            s = r ? BLK : 0, v = BLK;
        else if (opc == MF_OPC_SCATTER)
            s = r ? P * BLK : 0, v = BLK;
        else if (opc == MF_OPC_GATHER)
            v = r ? P * BLK : 0;
        m[i] = (mf_mover_member_t){sendb[i], s, recvb[i], v};
    }
}

static int placed(unsigned opc, int root)
{
    setup(opc, root);
    if (!mf_mover_applies(opc, (unsigned)root, BLK, m, P))
        return diag("opcode %u not accepted", opc), 0;
    mf_mover_place(opc, (unsigned)root, BLK, m, P);
    for (int i = 0; i < P; i++)
        for (int k = 0; k < (int)m[i].recv_bytes; k++) {
            int want = opc == MF_OPC_BCAST     ? sendb[root][k]
                       : opc == MF_OPC_SCATTER ? sendb[root][i * BLK + k]
                                               : sendb[k / BLK][k % BLK];
            if (recvb[i][k] != want)
                return diag("rank %d byte %d: %d, want %d", i, k, recvb[i][k], want), 0;
        }
    for (int i = 0; i < P; i++) /* nothing beyond each member's result */
        for (int k = (int)m[i].recv_bytes; k < P * BLK; k++)
            if (recvb[i][k] != 0xee)
                return diag("rank %d byte %d written beyond its result", i, k), 0;
    return 1;
}

int main(void)
{
    ok(placed(MF_OPC_BCAST, 1), "bcast from root 1: every member gets the root's block");
    ok(placed(MF_OPC_SCATTER, 2), "scatter from root 2: member i gets block i");
    ok(placed(MF_OPC_GATHER, 0), "gather to root 0: blocks in comm rank order, others nothing");
    ok(placed(MF_OPC_ALLGATHER, 0), "allgather: every member gets every block in rank order");

    setup(MF_OPC_ALLREDUCE, 0);
    ok(!mf_mover_applies(MF_OPC_ALLREDUCE, 0, BLK, m, P), "allreduce is not placed");
    setup(MF_OPC_GATHER, 0);
    m[1].send_bytes = BLK + 1;
    ok(!mf_mover_applies(MF_OPC_GATHER, 0, BLK, m, P),
       "a member sending more than the header's block is left to the model");
    setup(MF_OPC_SCATTER, 1);
    ok(!mf_mover_applies(MF_OPC_SCATTER, 0, BLK, m, P),
       "byte counts of another root are left to the model");
    setup(MF_OPC_BCAST, 0);
    ok(!mf_mover_applies(MF_OPC_BCAST, P, BLK, m, P), "a root outside the communicator");
    return tap_done();
}
