// One host port of the emulated board (emu_host.h).
#include "emu_host.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include "mpifpga/wire.h"
}

static const size_t READ_CHUNK = 1 << 16;

EmuHost::EmuHost(int port, const std::string &h2c_path, const std::string &c2h_path)
    : port_(port), h2c_path_(h2c_path), c2h_path_(c2h_path) {}

EmuHost::~EmuHost()
{
    if (h2c_ >= 0)
        close(h2c_);
    if (c2h_ >= 0)
        close(c2h_);
}

int EmuHost::open_fifos(std::string &err)
{
    for (const std::string *p : {&h2c_path_, &c2h_path_})
        if (mkfifo(p->c_str(), 0600) && errno != EEXIST) {
            err = "cannot make FIFO " + *p + ": " + strerror(errno);
            return -1;
        }
    // H2C: read end, non-blocking (no writer yet is fine; poll reports a
    // hang-up only after a writer came and went).  C2H: read-write, so the
    // open does not wait for the host and writes never raise SIGPIPE.
    h2c_ = open(h2c_path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    c2h_ = open(c2h_path_.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (h2c_ < 0 || c2h_ < 0) {
        err = "cannot open the FIFOs of port " + std::to_string(port_) + ": " + strerror(errno);
        return -1;
    }
    return 0;
}

void EmuHost::remove_fifos()
{
    unlink(h2c_path_.c_str());
    unlink(c2h_path_.c_str());
}

int EmuHost::read_h2c(std::string &err)
{
    static uint8_t chunk[READ_CHUNK];
    for (;;) {
        ssize_t n = read(h2c_, chunk, sizeof chunk);
        if (n > 0) {
            if (in_off_ > 0 && in_off_ * 2 >= in_.size()) { // keep the buffer from growing forever
                in_.erase(in_.begin(), in_.begin() + (long)in_off_);
                in_off_ = 0;
            }
            in_.insert(in_.end(), chunk, chunk + n);
            continue;
        }
        if (n == 0) {
            eof_ = true; // every writer closed: the host is done
            return 0;
        }
        if (errno == EAGAIN || errno == EINTR)
            return 0;
        err = "reading " + h2c_path_ + ": " + strerror(errno);
        return -1;
    }
}

int EmuHost::write_c2h(std::string &err)
{
    while (out_off_ < out_.size()) {
        ssize_t n = write(c2h_, out_.data() + out_off_, out_.size() - out_off_);
        if (n > 0) {
            out_off_ += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        err = "writing " + c2h_path_ + ": " + strerror(errno);
        return -1;
    }
    out_.clear();
    out_off_ = 0;
    return 0;
}

void EmuHost::note_ct(const uint8_t *pkt, size_t n)
{
    mf_proc_hdr_t h;
    mf_ct_entry_t e;
    if (mf_proc_hdr_unpack(pkt, &h))
        return;
    if (h.opcode == MF_OPC_CT_FREE)
        ct_[h.ctx].set = false;
    if (h.opcode == MF_OPC_CT_CONFIG &&
        mf_ct_entry_unpack(pkt + MF_PROC_HDR_BYTES, n - MF_PROC_HDR_BYTES, &e) == 0)
        ct_[h.ctx] = Row{true, e.size, e.rank};
}

// The packet at in_off_: its length from its header (and the CT row the
// host configured, which gives the member's comm size and rank), known
// once the bytes that decide it are in.  A real card is told the length by
// the descriptor of the host's write; a FIFO keeps no write boundaries.
bool EmuHost::frame_packet()
{
    const uint8_t *p = in_.data() + in_off_;
    size_t have = pending_in(), need = MF_PROC_HDR_BYTES;
    mf_proc_hdr_t h;
    if (have < need)
        return false;
    if (mf_proc_hdr_unpack(p, &h) == 0) {
        const Row &row = ct_[h.ctx];
        if (h.opcode == MF_OPC_CT_CONFIG)
            need += h.size;
        else if (mf_board_runs(h.opcode) && h.opcode != MF_OPC_CT_FREE && row.set) {
            unsigned nc = mf_opcode_ncounts(h.opcode, row.size);
            need += mf_board_counts_bytes(nc);
            if (have < need)
                return false;
            std::vector<uint32_t> counts(nc ? nc : 1);
            for (unsigned i = 0; i < nc; i++)
                counts[i] = (uint32_t)mf_get_le(p + MF_PROC_HDR_BYTES + 4 * i, 4);
            uint64_t send = 0, recv = 0;
            if (mf_board_bytes(&h, row.size, row.rank, counts.data(), &send, &recv) == 0)
                need += send;
        }
    }
    if (have < need)
        return false;
    note_ct(p, need);
    pkt_left_ = need;
    return true;
}

bool EmuHost::peek_beat(EmuBeat &b)
{
    if (pkt_left_ == 0 && !frame_packet())
        return false;
    size_t n = pkt_left_ < 8 ? pkt_left_ : 8;
    b.data = mf_get_le(in_.data() + in_off_, (unsigned)n);
    b.keep = (uint8_t)((1u << n) - 1);
    b.last = n == pkt_left_;
    return true;
}

void EmuHost::pop_beat()
{
    size_t n = pkt_left_ < 8 ? pkt_left_ : 8;
    in_off_ += n;
    pkt_left_ -= n;
    fed_ += pkt_left_ == 0;
}

void EmuHost::push_c2h(const EmuBeat &b)
{
    answered_ += b.last;
    if (eof_)
        return; // the host is gone: nobody reads its results
    for (unsigned i = 0; i < 8; i++)
        if (b.keep & (1u << i))
            out_.push_back((uint8_t)(b.data >> (8 * i)));
}
