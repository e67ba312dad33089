// The Verilated engine (rtl/mf_engine.sv) behind the emulated board: one
// clock cycle at a time, its per-host AXI4-Stream ports seen as beats.
#ifndef MF_EMU_RTL_H
#define MF_EMU_RTL_H

#include <cstdint>
#include <memory>
#include <vector>

#include "emu_host.h"

class Vmf_engine;
class VerilatedContext;

class EmuRtl {
  public:
    EmuRtl();
    ~EmuRtl();
    int nhost() const; // the NHOST the RTL was built with
    void reset();
    // One cycle: each host offers its next H2C beat (taken ones are popped),
    // C2H beats go to their host.  Returns the beats that moved.
    unsigned cycle(std::vector<EmuHost *> &hosts);
    uint64_t cycles() const { return cycles_; }
    uint64_t moved() const { return moved_; } // beats moved so far
    void trace(bool on) { trace_ = on; }       // every beat on stderr

  private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vmf_engine> top_;
    uint64_t cycles_ = 0, moved_ = 0;
    bool trace_ = false;
};

#endif
