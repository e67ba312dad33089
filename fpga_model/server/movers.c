/* Data-movement results placed by the engine (movers.h). */
#include "server/movers.h"

#include <string.h>

#include "mpifpga/wire.h"

/* Expected (send, recv) bytes of comm rank i. */
static void expected(unsigned opc, int root, uint64_t blk, int size, int i, uint64_t *s,
                     uint64_t *r)
{
    uint64_t all = blk * (uint64_t)size;
    switch (opc) {
    case MF_OPC_BCAST: *s = i == root ? blk : 0, *r = blk; break;
    case MF_OPC_SCATTER: *s = i == root ? all : 0, *r = blk; break;
    case MF_OPC_GATHER: *s = blk, *r = i == root ? all : 0; break;
    default: *s = blk, *r = all; break; /* MF_OPC_ALLGATHER */
    }
}

int mf_mover_opcode(unsigned opcode)
{
    return opcode == MF_OPC_BCAST || opcode == MF_OPC_SCATTER || opcode == MF_OPC_GATHER ||
           opcode == MF_OPC_ALLGATHER;
}

int mf_mover_applies(unsigned opcode, unsigned root, uint64_t block, const mf_mover_member_t *m,
                     int size)
{
    if (!mf_mover_opcode(opcode))
        return 0;
    if (size < 1 || root >= (unsigned)size || block > UINT64_MAX / (uint64_t)size)
        return 0;
    for (int i = 0; i < size; i++) {
        uint64_t s, r;
        expected(opcode, (int)root, block, size, i, &s, &r);
        if (m[i].send_bytes != s || m[i].recv_bytes != r)
            return 0;
    }
    return 1;
}

void mf_mover_place(unsigned opcode, unsigned root, uint64_t block, const mf_mover_member_t *m,
                    int size)
{
    const mf_mover_member_t *rt = &m[root];
    size_t blk = (size_t)block;
    for (int i = 0; i < size && blk; i++) {
        switch (opcode) {
        case MF_OPC_BCAST:
            memcpy(m[i].recv, rt->send, blk);
            break;
        case MF_OPC_SCATTER:
            memcpy(m[i].recv, rt->send + (size_t)i * blk, blk);
            break;
        case MF_OPC_GATHER:
            memcpy(rt->recv + (size_t)i * blk, m[i].send, blk);
            break;
        default: /* MF_OPC_ALLGATHER: every member's block to every member */
            for (int j = 0; j < size; j++)
                memcpy(m[i].recv + (size_t)j * blk, m[j].send, blk);
        }
    }
}
