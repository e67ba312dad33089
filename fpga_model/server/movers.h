/*
 * Results of the data-movement collectives (bcast, scatter, gather,
 * allgather) placed by the engine.  Their modeled timing does not depend
 * on the payload's values (the switch moves and concatenates bytes; no
 * AgLU looks at them), so the engine runs them timing-only -- the model
 * carries zeros, counted rather than copied -- and writes each member's
 * result where MPI puts it.  Reductions keep their bytes in the model:
 * their result depends on its order of operations.
 */
#ifndef MF_SERVER_MOVERS_H
#define MF_SERVER_MOVERS_H

#include <stdint.h>

typedef struct {
    const uint8_t *send;
    uint64_t send_bytes;
    uint8_t *recv;
    uint64_t recv_bytes;
} mf_mover_member_t;

/* 1 if `opcode` is bcast, scatter, gather or allgather. */
int mf_mover_opcode(unsigned opcode);

/* 1 if `opcode` moves data and every member's byte counts are the ones a
 * call of `block` bytes (the processor header's size) from comm rank
 * `root` has, so mf_mover_place can fill the results; else 0 (the call
 * then runs with its bytes in the model, which checks them). */
int mf_mover_applies(unsigned opcode, unsigned root, uint64_t block, const mf_mover_member_t *m,
                     int size);

/* Write every member's result (members in comm rank order; send and recv
 * hold the byte counts mf_mover_applies accepted). */
void mf_mover_place(unsigned opcode, unsigned root, uint64_t block, const mf_mover_member_t *m,
                    int size);

#endif
