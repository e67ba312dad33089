// The collector's reference for make rtl-check (lockstep_coll.cpp): a
// mirror of fpga_model/hw/collector.c's deliver, mf_collector_accept and
// mf_collector_adopt_parked.  The real collector.c cannot be linked as
// ct.c is: deliver pushes into mf_stream_t rings that wake the switch's
// module, frees packets into the network's pool and reports on the call's
// status port, so it needs a simulator, a packet pool and CCM-built calls.  The mirror
// keeps its decisions and their order: a packet goes to the open stream of
// its (ctx, tag) unless packets of its context are parked; otherwise it is
// parked, in arrival order, and every opening of a stream (a collective
// adopting its context's parked packets) delivers the parked packets that
// now have a stream, the others staying parked in order; the packet with
// `last` closes its stream, so later packets of that (ctx, tag) park.
#ifndef MF_LOCKSTEP_COLL_REF_H
#define MF_LOCKSTEP_COLL_REF_H

#include <cstdint>
#include <deque>
#include <vector>

#include "lockstep.h"

namespace ls {

constexpr int kCollSlots = 8;       // lockstep_top's COLL_SLOTS
constexpr int kCollParkBeats = 512; // lockstep_top's COLL_PARK_BEATS

struct CollPkt {
    unsigned ctx, tag;
    bool last;
    std::vector<uint8_t> payload;
};

// One output beat of the collector as it must come out.
struct CollBeat {
    uint8_t data[8];
    unsigned keep;
    bool last;
};

class CollRef {
  public:
    void accept(const CollPkt &k)
    {
        if (!parked_[k.ctx].empty() || !deliver(k)) {
            parked_[k.ctx].push_back(k);
            ever_parked++;
            adopt(k.ctx);
        }
    }
    // The CCM opens (ctx, tag) on slot; its context's parked packets adopted.
    void open(unsigned slot, unsigned ctx, unsigned tag)
    {
        slot_[slot] = Slot{true, ctx, tag};
        opening_ = true;
        adopt(ctx);
        opening_ = false;
    }
    bool slot_open(unsigned slot) const { return slot_[slot].open; }
    size_t parked() const
    {
        size_t n = 0;
        for (const auto &q : parked_)
            n += q.size();
        return n;
    }
    std::deque<CollBeat> want[kCollSlots]; // beats each slot must give, in order
    int ever_parked = 0;     // packets that were parked (a few adopted at once)
    int kept_at_opening = 0; // parked packets an opening left parked (of its context)

  private:
    struct Slot {
        bool open;
        unsigned ctx, tag;
    };
    int stream_of(unsigned ctx, unsigned tag) const
    {
        for (int i = 0; i < kCollSlots; i++)
            if (slot_[i].open && slot_[i].ctx == ctx && slot_[i].tag == tag)
                return i;
        return -1;
    }
    bool deliver(const CollPkt &k)
    {
        int i = stream_of(k.ctx, k.tag);
        if (i < 0)
            return false; // no stream, or closed: a later collective's
        size_t n = k.payload.size();
        for (size_t at = 0; at < n; at += 8) {
            CollBeat b = {};
            size_t m = n - at < 8 ? n - at : 8;
            std::memcpy(b.data, &k.payload[at], m);
            b.keep = (1u << m) - 1;
            b.last = k.last && at + m == n;
            want[i].push_back(b);
        }
        if (k.last && n == 0)
            want[i].push_back(CollBeat{{0}, 0, true});
        if (k.last)
            slot_[i].open = false;
        return true;
    }
    void adopt(unsigned ctx)
    {
        std::deque<CollPkt> keep;
        while (!parked_[ctx].empty()) {
            CollPkt k = parked_[ctx].front();
            parked_[ctx].pop_front();
            if (!deliver(k)) {
                keep.push_back(k);
                if (opening_)
                    kept_at_opening++;
            }
        }
        parked_[ctx] = keep;
    }
    Slot slot_[kCollSlots] = {};
    bool opening_ = false;
    std::deque<CollPkt> parked_[MF_MAX_CTX];
};

} // namespace ls

#endif
