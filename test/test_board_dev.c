/* The fpga device's driver (src/device/device_fpga.c, board_queue.c) on
 * FIFOs whose other ends this test holds, playing a board by the board
 * stream format (doc/protocol.md): what the driver writes to H2C, and how
 * it takes answers cut into any pieces, refusals, fallbacks, misordered
 * answers and a board that goes away.  The RTL behind real answers is
 * tested by test/mpi_fpga_emu.sh. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/device.h"
#include "mpifpga/ct.h"
#include "tap.h"

static char dir[] = "/tmp/test_board_dev.XXXXXX";
static char prefix[200];
static int h2c_end, c2h_end; /* the board's ends */

static int make_board(void)
{
    char p[400];
    snprintf(prefix, sizeof prefix, "%s/xdma0", dir);
    snprintf(p, sizeof p, "%s_h2c_2", prefix);
    if (mkfifo(p, 0600))
        return -1;
    h2c_end = open(p, O_RDONLY | O_NONBLOCK);
    snprintf(p, sizeof p, "%s_c2h_2", prefix);
    if (mkfifo(p, 0600))
        return -1;
    c2h_end = open(p, O_RDWR | O_NONBLOCK);
    return h2c_end < 0 || c2h_end < 0 ? -1 : 0;
}

/* The board's answer to a packet with header h: result n bytes, status. */
static void answer(mf_proc_hdr_t h, const void *result, size_t n, int status, uint64_t cycles,
                   size_t piece)
{
    uint8_t buf[256];
    /* a refusal carries mf_ct.sv's reason code: 8, busy */
    mf_board_cpl_t c = {.status = (uint8_t)status, .reason = status == MF_BOARD_CT_REFUSED ? 8 : 0,
                        .cycles = cycles};
    h.size = (uint32_t)n;
    size_t w = mf_board_c2h_pack(&h, &c, result, n, buf, sizeof buf);
    for (size_t off = 0; off < w; off += piece) /* in pieces, as a stream may deliver */
        if (write(c2h_end, buf + off, w - off < piece ? w - off : piece) < 0)
            break;
}

static ssize_t h2c_read(uint8_t *buf, size_t cap)
{
    ssize_t n = read(h2c_end, buf, cap);
    return n < 0 ? 0 : n;
}

static void test_open(mf_device_t *d, mf_config_t *cfg)
{
    char err[512];
    mf_device_t bad = {.ops = &mf_device_fpga_ops};
    snprintf(cfg->fpga_dev, sizeof cfg->fpga_dev, "%s/nothing", dir);
    ok(bad.ops->open(&bad, NULL, 2, 4, 0, 2, cfg, err, sizeof err) == -1 &&
           strstr(err, "nothing_h2c_2"), "open: a missing queue is named (%s)", err);
    bad.ops->close(&bad);
    ok(bad.ops->open(&bad, NULL, 5, 8, 1, 1, cfg, err, sizeof err) == -1 &&
           strstr(err, "MPIFPGA_PPN"), "open: a rank off the board's node is refused");
    snprintf(cfg->fpga_dev, sizeof cfg->fpga_dev, "%s", prefix);
    int rc = d->ops->open(d, NULL, 2, 4, 0, 2, cfg, err, sizeof err);
    ok(rc == 0 && d->blocking_only && strstr(d->ops->describe(d), "emulated"),
       "open: queue 2 of the FIFOs, blocking calls only (%s)", rc ? err : d->ops->describe(d));
}

static void test_ct(mf_device_t *d)
{
    char err[512];
    uint8_t buf[256];
    mf_ct_entry_t e;
    int global_of[4] = {0, 1, 2, 3};
    mf_proc_hdr_t h = {.opcode = MF_OPC_CT_CONFIG, .ctx = 3};
    mf_ct_entry_build(4, 2, global_of, &e, err, sizeof err);
    answer(h, NULL, 0, MF_BOARD_OK, 2, 3); /* ready before the driver waits */
    ok(d->ops->ct_config(d, 3, &e, err, sizeof err) == 0, "ct_config: the board's OK taken");
    ssize_t n = h2c_read(buf, sizeof buf);
    mf_proc_hdr_t got;
    ok(n == (ssize_t)(8 + mf_ct_entry_wire_bytes(&e)) && mf_proc_hdr_unpack(buf, &got) == 0 &&
           got.opcode == MF_OPC_CT_CONFIG && got.ctx == 3 && got.size == n - 8,
       "ct_config: one H2C packet, header + entry (%zd bytes)", n);
    answer((mf_proc_hdr_t){.opcode = MF_OPC_CT_CONFIG, .ctx = 4}, NULL, 0, MF_BOARD_CT_REFUSED, 2, 8);
    ok(d->ops->ct_config(d, 4, &e, err, sizeof err) == -1 && strstr(err, "refused") && strstr(err, "code 8"),
       "ct_config: a refusal is an error (%s)", err);
    h2c_read(buf, sizeof buf);
}

static mf_dev_call_t allreduce(const int *in, int *out)
{
    return (mf_dev_call_t){.hdr = {.opcode = MF_OPC_ALLREDUCE, .ctx = 3, .op = MF_OP_SUM,
                                   .dtype = MF_DT_INT32, .size = 12},
                           .comm_size = 4, .comm_rank = 2, .send = in, .send_bytes = 12,
                           .recv = out, .recv_bytes = 12, .mpi_name = "MPI_Allreduce"};
}

static void test_calls(mf_device_t *d)
{
    char err[512];
    uint8_t buf[256];
    int in[3] = {1, 2, 3}, out[3] = {0}, want[3] = {10, 20, 30};
    uint32_t t;
    mf_dev_result_t r;
    mf_dev_call_t c = allreduce(in, out);
    ok(d->ops->post(d, &c, &t, err, sizeof err) == 0 && h2c_read(buf, sizeof buf) == 20 &&
           !memcmp(buf + 8, in, 12), "post: header + 12 payload bytes on H2C");
    ok(d->ops->poll(d, t, 0, &r) == 0, "poll: no answer yet");
    answer(c.hdr, want, 12, MF_BOARD_OK, 500, 5);
    ok(d->ops->poll(d, t, 1000, &r) == 1 && r.status == MF_DEV_DONE && !memcmp(out, want, 12),
       "poll: the result, read in 5-byte pieces");
    ok(r.net_us == 2.0, "engine time: 500 cycles at 250 MHz = 2 us (%g)", r.net_us);
    ok(r.rank_us == 3.0, "rank time: 2 us + PCIe in and out, 2 x 500 ns = 3 us (%g)", r.rank_us);
    c.hdr.opcode = MF_OPC_SCAN;
    ok(d->ops->post(d, &c, &t, err, sizeof err) == 0 && d->ops->poll(d, t, 0, &r) == 1 &&
           r.status == MF_DEV_FALLBACK && r.reason == MF_FB_UNSUPPORTED &&
           h2c_read(buf, sizeof buf) == 0, "scan: falls back as unsupported, nothing sent");
    c = allreduce(in, out);
    c.vote = MF_FB_DATATYPE;
    ok(d->ops->post(d, &c, &t, err, sizeof err) == 0 && d->ops->poll(d, t, 0, &r) == 1 &&
           r.status == MF_DEV_FALLBACK && r.reason == MF_FB_DATATYPE, "a vote is the verdict");
    c = allreduce(in, out);
    ok(d->ops->post(d, &c, &t, err, sizeof err) == 0, "post again");
    h2c_read(buf, sizeof buf);
    answer(c.hdr, NULL, 0, MF_BOARD_UNSUPPORTED, 1, 16);
    ok(d->ops->poll(d, t, 1000, &r) == 1 && r.status == MF_DEV_FALLBACK &&
           r.reason == MF_FB_UNSUPPORTED, "UNSUPPORTED from the board: fallback");
    ok(d->ops->post(d, &c, &t, err, sizeof err) == 0, "post a third time");
    h2c_read(buf, sizeof buf);
    c.hdr.opcode = MF_OPC_BCAST;
    answer(c.hdr, want, 12, MF_BOARD_OK, 1, 16);
    ok(d->ops->poll(d, t, 1000, &r) == -1 && strstr(r.text, "does not echo"),
       "an answer to another packet: error (%s)", r.text);
    c = allreduce(in, out);
    ok(d->ops->post(d, &c, &t, err, sizeof err) == -1, "then the device is unusable (%s)", err);
}

static void test_gone(mf_config_t *cfg)
{
    char err[512];
    uint8_t buf[256];
    int in[3] = {1, 2, 3}, out[3];
    uint32_t t;
    mf_dev_result_t r;
    mf_device_t d = {.ops = &mf_device_fpga_ops};
    ok(d.ops->open(&d, NULL, 2, 4, 0, 2, cfg, err, sizeof err) == 0, "reopen");
    mf_dev_call_t c = allreduce(in, out);
    ok(d.ops->post(&d, &c, &t, err, sizeof err) == 0, "post");
    h2c_read(buf, sizeof buf);
    close(c2h_end); /* the board goes away */
    close(h2c_end);
    ok(d.ops->poll(&d, t, -1, &r) == -1 && strstr(r.text, "went away"),
       "a board that goes away: error, no hang (%s)", r.text);
    ok(d.ops->post(&d, &c, &t, err, sizeof err) == -1, "and posting fails (%s)", err);
    d.ops->close(&d);
}

int main(void)
{
    mf_config_t cfg = {.fpga_mhz = 250, .fpga_pcie_ns = 500, .ppn = 4};
    mf_device_t d = {.ops = &mf_device_fpga_ops};
    if (!mkdtemp(dir) || make_board()) {
        perror("test_board_dev: setting up the FIFOs");
        return 1;
    }
    test_open(&d, &cfg);
    test_ct(&d);
    test_calls(&d);
    d.ops->close(&d);
    test_gone(&cfg);
    char p[400];
    snprintf(p, sizeof p, "%s_h2c_2", prefix);
    unlink(p);
    snprintf(p, sizeof p, "%s_c2h_2", prefix);
    unlink(p);
    rmdir(dir);
    return tap_done();
}
