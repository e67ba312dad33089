// The collective engine (rtl/mf_engine.sv) side of make rtl-check: the
// script of a group (communicators created and freed, calls of the eight
// collectives, one unsupported call, one whose members disagree and one
// on a row never set), its board-stream
// packets per host port, and what the C model (fpga_model, a one-switch
// network of kEngHosts ranks) gives for every call.
#ifndef MF_LOCKSTEP_ENGINE_H
#define MF_LOCKSTEP_ENGINE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ls {

constexpr int kEngHosts = 4; // NHOST of lockstep_top's engine

// One call of the script and what every member must get.
struct EngCall {
    int opc, op, dt, root, ctx;
    std::vector<int> members;                 // comm rank -> host port
    uint32_t size;                            // processor-header size
    std::vector<uint32_t> counts;             // reduce_scatter: bytes per comm rank
    std::vector<std::vector<uint8_t>> want;   // per comm rank: the C model's result
    int status;                               // mf_board_status_t every member must get
    uint64_t model_cycles;                    // the C model: slowest member's latency
    uint64_t rtl_cycles;                      // the RTL: largest completion cycles
};

// One H2C packet of a port and the C2H packet it must bring back.
struct EngPkt {
    std::vector<uint8_t> h2c;
    int call;          // index in the group's calls, or -1: a CT packet
    int status, reason; // CT packets: the completion expected
};

struct EngGroup {
    const char *name;
    int gap_pct;       // chance an idle H2C port waits a cycle
    int ready_pct;     // C2H tready high this often
};

struct EngScript {
    std::vector<EngCall> calls;
    std::vector<EngPkt> port[kEngHosts];
};

// Builds a group's script of `ncalls` calls, running every call through the
// C model (err: what failed, empty if nothing).
void engine_script(int ncalls, EngScript &sc, std::string &err);
// Frees the C model.
void engine_model_done();

} // namespace ls

#endif
