// The communicator table's side of make rtl-check (rtl/mf_ct.sv against
// fpga_model/hw/ct.c and src/proto/wire.c): packets, their expected
// verdicts, shared by lockstep_ct.cpp (the run) and lockstep_ct_gen.cpp
// (the packets and the C reference).
#ifndef MF_LOCKSTEP_CT_H
#define MF_LOCKSTEP_CT_H

#include <cstdint>
#include <vector>

extern "C" {
#include "ct_ref.h"
}

namespace ls {

// mf_ct's st_code (rtl/mf_ct.sv has the same numbers and order of checks)
enum CtCode {
    CT_OK, CT_E_FRAME, CT_E_HEADER, CT_E_OPCODE, CT_E_LENGTH, CT_E_ENTRY, CT_E_RANGE,
    CT_E_LIMIT, CT_E_BUSY, CT_E_UNSET, CT_CODES
};
extern const char *const ct_code_names[CT_CODES];

// One processor packet on the 64-bit stream: its bytes (beats of 8, the
// last zero-padded) and every beat's tkeep (not always well formed).
struct CtPacket {
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> keep;
};

// One mf_ct and the C table it is checked against.
struct CtBounds {
    unsigned rows, max_ranks;
};

// What the packets of a group stress (lockstep_ct_gen.cpp).
enum CtMix { MIX_CONFIGS, MIX_REUSE, MIX_MALFORMED, MIX_BUSY, MIX_BOUNDS };
CtPacket ct_make_packet(CtMix mix, const CtBounds &b);

// The C model's verdict on pkt with rows `busy` running a collective; a
// packet it accepts changes ref as it changes the switch.
CtCode ct_reference(mf_ct_ref_t *ref, const CtPacket &pkt, uint32_t busy);

} // namespace ls

#endif
