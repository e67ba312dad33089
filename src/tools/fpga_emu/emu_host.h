// One host port of the emulated board: its two FIFOs, the H2C bytes the
// host wrote (kept in software, as a descriptor ring in host memory would:
// a host's write never waits for another host), cut into packets and
// beats for the RTL, and the C2H bytes waiting for the host to read.
#ifndef MF_EMU_HOST_H
#define MF_EMU_HOST_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

struct EmuBeat {
    uint64_t data;
    uint8_t keep; // bit i: byte i valid (contiguous from byte 0)
    bool last;
};

class EmuHost {
  public:
    EmuHost(int port, const std::string &h2c_path, const std::string &c2h_path);
    ~EmuHost();
    // Make the FIFOs and open the emulator's ends (0, or -1 with err).
    int open_fifos(std::string &err);
    void remove_fifos();

    int h2c_fd() const { return h2c_; }
    int c2h_fd() const { return c2h_; }
    bool at_eof() const { return eof_; }
    bool has_output() const { return out_off_ < out_.size(); }

    // Read what the host wrote (POLLIN / POLLHUP on H2C): -1 with err on
    // an I/O error; sets at_eof() when the host closed its queue.
    int read_h2c(std::string &err);
    // Write pending C2H bytes the FIFO takes now (POLLOUT).
    int write_c2h(std::string &err);

    // The next H2C beat for the RTL, if a whole one is known; pop it once
    // the RTL took it.
    bool peek_beat(EmuBeat &b);
    void pop_beat();
    // A C2H beat from the RTL: its valid bytes go to the host.
    void push_c2h(const EmuBeat &b);
    // Bytes written by the host not yet given to the RTL.
    size_t pending_in() const { return in_.size() - in_off_; }
    // The RTL took a packet it has not answered yet (each H2C packet gets
    // one C2H packet): it may be computing, or waiting for other members.
    bool owed() const { return fed_ > answered_; }

  private:
    bool frame_packet();  // find the length of the packet at in_off_
    void note_ct(const uint8_t *pkt, size_t n); // keep the CT rows' size/rank

    int port_;
    std::string h2c_path_, c2h_path_;
    int h2c_ = -1, c2h_ = -1;
    bool eof_ = false;
    std::vector<uint8_t> in_;  // bytes from the host; [in_off_, end) not yet fed
    size_t in_off_ = 0;
    size_t pkt_left_ = 0;      // bytes of the current packet not yet fed (0: at a packet start)
    std::vector<uint8_t> out_; // bytes for the host; [out_off_, end) not yet written
    size_t out_off_ = 0;
    uint64_t fed_ = 0, answered_ = 0; // packets given to the RTL / answered by it
    struct Row { bool set; unsigned size, rank; };
    Row ct_[32] = {};
};

#endif
