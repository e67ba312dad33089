// The collective engine of one switch with NHOST local host ports (host
// port h = global rank h), on the board streams of doc/protocol.md
// ("Board streams"): per port an H2C and a C2H AXI4-Stream of 64-bit beats.
// It runs Barrier, Bcast, Reduce, Allreduce, Scatter, Gather, Allgather and
// Reduce_scatter over communicators that are any subset of its hosts, all
// ops x dtypes, streaming (doc/rtl.md, "mf_engine"):
//   * each port (mf_engine_port) takes its calls' headers, keeps its own
//     CT rows (mf_ct) and writes its C2H packets;
//   * a call starts once every member's port holds it (same opcode, ctx,
//     communicator size and global0, every comm rank present); one call
//     runs at a time, the ports of other calls hold their payload (tready);
//     members whose headers (or reduce_scatter counts) differ are all
//     answered status 3;
//   * the source: the root's payload (bcast, scatter), the members'
//     payloads in comm-rank order (gather, allgather), or all members'
//     payloads beat by beat through the reduction chain (mf_engine_red);
//   * the realigner (mf_engine_pack) joins and cuts the bytes into the
//     members' results: one block per member (scatter, reduce_scatter) or
//     one result for the root / every member / every member but the root.
module mf_engine #(
    parameter int NHOST = 4,          // host ports, 2 .. 8
    parameter int CT_ENTRIES = 32,
    parameter int MAX_RANKS = 65536
) (
    input  logic                   clk,
    input  logic                   rst_n,
    input  logic [NHOST-1:0]       s_h2c_tvalid,
    output logic [NHOST-1:0]       s_h2c_tready,
    input  logic [NHOST*64-1:0]    s_h2c_tdata,   // port h at [64h +: 64]
    input  logic [NHOST*8-1:0]     s_h2c_tkeep,   // port h at [8h +: 8]
    input  logic [NHOST-1:0]       s_h2c_tlast,
    output logic [NHOST-1:0]       m_c2h_tvalid,
    input  logic [NHOST-1:0]       m_c2h_tready,
    output logic [NHOST*64-1:0]    m_c2h_tdata,
    output logic [NHOST*8-1:0]     m_c2h_tkeep,
    output logic [NHOST-1:0]       m_c2h_tlast
);
`include "mf_codes.vh"
    localparam int PW = $clog2(NHOST);      // a port or comm rank
    localparam int CW = $clog2(NHOST + 1);  // a member count

    logic [47:0] now;
    always_ff @(posedge clk)
        now <= !rst_n ? '0 : now + 48'd1;

    // ---- the ports ----
    logic [NHOST-1:0] pend, start, reject, pay_tready, call_end, res_ready, res_take, out_idle;
    // per port, flat (Yosys 0.23 takes no packed arrays of arrays): port h's
    // header at [64h +: 64], its CT fields at [16h +: 16], its counts at
    // [32(NHOST h + i) +: 32], its result bytes at [32h +: 32]
    logic [NHOST*64-1:0] hdr;
    logic [NHOST*16-1:0] csize, crank, cglobal0;
    logic [NHOST*NHOST*32-1:0] counts;
    logic [NHOST*32-1:0] start_n;
    logic [63:0] res_data;
    for (genvar h = 0; h < NHOST; h++) begin : g_port
        mf_engine_port #(.NHOST(NHOST), .CT_ENTRIES(CT_ENTRIES), .MAX_RANKS(MAX_RANKS)) u_port (
            .clk(clk), .rst_n(rst_n), .now(now),
            .s_tvalid(s_h2c_tvalid[h]), .s_tready(s_h2c_tready[h]), .s_tdata(s_h2c_tdata[64*h+:64]),
            .s_tkeep(s_h2c_tkeep[8*h+:8]), .s_tlast(s_h2c_tlast[h]),
            .m_tvalid(m_c2h_tvalid[h]), .m_tready(m_c2h_tready[h]), .m_tdata(m_c2h_tdata[64*h+:64]),
            .m_tkeep(m_c2h_tkeep[8*h+:8]), .m_tlast(m_c2h_tlast[h]),
            .pend(pend[h]), .hdr(hdr[64*h+:64]), .comm_size(csize[16*h+:16]),
            .comm_rank(crank[16*h+:16]), .comm_global0(cglobal0[16*h+:16]),
            .counts(counts[32*NHOST*h+:32*NHOST]),
            .start(start[h]), .reject(reject[h]), .start_n(start_n[32*h+:32]), .start_at(now),
            .pay_tready(pay_tready[h]), .call_end(call_end[h]),
            .res_ready(res_ready[h]), .res_take(res_take[h]), .res_data(res_data),
            .out_idle(out_idle[h]));
    end

    // ---- matcher: the lowest port whose call every member holds ----
    logic [NHOST*NHOST-1:0] same;            // [NHOST l + j]: port j holds port l's call
    logic [NHOST-1:0] complete;
    logic fire;
    logic [PW-1:0] lead;
    logic [NHOST-1:0] covered;
    logic [CW-1:0] nsame;
    always_comb begin
        complete = '0;
        for (int l = 0; l < NHOST; l++) begin
            covered = '0;
            nsame = '0;
            for (int j = 0; j < NHOST; j++) begin
                same[NHOST*l+j] = pend[j] && hdr[64*j+:9] == hdr[64*l+:9] &&
                                  csize[16*j+:16] == csize[16*l+:16] &&
                                  cglobal0[16*j+:16] == cglobal0[16*l+:16];
                if (same[NHOST*l+j]) begin
                    covered[crank[16*j+:PW]] = 1'b1;
                    nsame = nsame + 1'b1;
                end
            end
            complete[l] = pend[l] && 16'(nsame) == csize[16*l+:16] &&
                          32'(covered) == (32'd1 << csize[16*l+:16]) - 32'd1;
        end
        lead = '0;
        for (int l = NHOST - 1; l >= 0; l--)
            if (complete[l])
                lead = PW'(l);
    end

    // ---- the call running ----
    typedef enum logic {C_IDLE, C_RUN} call_state_t;
    call_state_t cst;
    logic [4:0] opc;
    logic [3:0] op, dtype;
    logic [PW-1:0] root;
    logic [31:0] b;                          // header size
    logic [CW-1:0] nmem;
    logic [NHOST-1:0] members;
    logic [NHOST*PW-1:0] port_of;            // comm rank r's port at [PW r +: PW]
    logic [NHOST*32-1:0] blk;                // reduce_scatter: comm rank r's bytes at [32r +: 32]
    assign fire = cst == C_IDLE && |complete;

    // the leader's call, as the matcher sees it
    logic [4:0] f_opc;
    logic [31:0] f_b, f_all, f_total;
    logic [PW-1:0] f_root;
    /* verilator lint_off UNUSEDSIGNAL */ // ctx, alg, root's high bits: the matcher's
    logic [63:0] f_hdr;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [15:0] f_size;
    logic [NHOST*32-1:0] f_counts;
    logic [NHOST-1:0] f_same;
    always_comb begin
        f_hdr = hdr[64*lead+:64];
        f_size = csize[16*lead+:16];
        f_counts = counts[32*NHOST*lead+:32*NHOST];
        f_same = same[NHOST*lead+:NHOST];
        f_opc = {1'b0, f_hdr[3:0]};
        f_b = {3'd0, f_hdr[63:35]};
        f_root = f_hdr[19+:PW];
        f_all = f_b * {16'd0, f_size};
        f_total = '0;
        for (int r = 0; r < NHOST; r++)
            if (16'(r) < f_size)
                f_total = f_total + f_counts[32*r+:32];
    end

    // each member's result bytes (wire.c's mf_board_bytes: recv)
    // the members must agree on the header (but alg) and reduce_scatter's
    // counts; if not, every member is told status 3 (malformed)
    logic agree;
    always_comb begin
        agree = 1'b1;
        for (int j = 0; j < NHOST; j++) begin
            if (f_same[j] && (hdr[64*j+11+:53] != f_hdr[63:11] || hdr[64*j+:9] != f_hdr[8:0]))
                agree = 1'b0;
            for (int r = 0; r < NHOST; r++)
                if (f_same[j] && f_opc == MF_OPC_REDUCE_SCATTER && 16'(r) < f_size &&
                    counts[32*(NHOST*j+r)+:32] != f_counts[32*r+:32])
                    agree = 1'b0;
        end
    end
    assign reject = fire && !agree ? f_same : '0;

    logic [NHOST-1:0] is_root;
    always_comb
        for (int j = 0; j < NHOST; j++) begin
            is_root[j] = crank[16*j+:PW] == f_root;
            start[j] = fire && agree && f_same[j];
            case (f_opc)
                MF_OPC_BCAST: start_n[32*j+:32] = is_root[j] ? 32'd0 : f_b;
                MF_OPC_REDUCE: start_n[32*j+:32] = is_root[j] ? f_b : 32'd0;
                MF_OPC_ALLREDUCE, MF_OPC_SCATTER: start_n[32*j+:32] = f_b;
                MF_OPC_GATHER: start_n[32*j+:32] = is_root[j] ? f_all : 32'd0;
                MF_OPC_ALLGATHER: start_n[32*j+:32] = f_all;
                MF_OPC_REDUCE_SCATTER: start_n[32*j+:32] = f_counts[32*crank[16*j+:PW]+:32];
                default: start_n[32*j+:32] = 32'd0;
            endcase
        end

    // ---- source: what feeds the realigner ----
    typedef enum logic [1:0] {SRC_NONE, SRC_ONE, SRC_SEQ, SRC_RED} src_mode_t;
    src_mode_t src;
    logic src_done;
    logic [PW-1:0] src_rank;
    logic [31:0] src_left;                   // SRC_ONE/SEQ: this member's bytes left
    logic pk_in_valid, pk_in_ready;
    logic [127:0] pk_in_data;
    logic [4:0] pk_in_n;
    logic [PW-1:0] src_port;
    logic [3:0] one_n;
    assign src_port = port_of[PW*src_rank+:PW];
    assign one_n = src_left >= 32'd8 ? 4'd8 : src_left[3:0];

    // SRC_RED: per comm rank a 16-byte word built from two beats
    logic [NHOST-1:0] slot_word, slot_lo, slot_in;
    logic [NHOST*128-1:0] slot_data;         // comm rank r's word at [128r +: 128]
    logic [NHOST*32-1:0] slot_left;          // ... its payload bytes left at [32r +: 32]
    logic red_take, red_valid, red_ready;
    logic [127:0] red_data;
    logic [31:0] red_left;                   // result bytes still to come out
    logic [4:0] red_n;
    assign red_n = red_left >= 32'd16 ? 5'd16 : red_left[4:0];
    logic [CW-1:0] red_nin;                  // the chain joins only in a reduction
    assign red_nin = cst == C_RUN && src == SRC_RED ? nmem : '0;
    logic [NHOST*32-1:0] slot_k;             // bytes of the beat a slot takes
    always_comb
        for (int r = 0; r < NHOST; r++) begin
            slot_k[32*r+:32] = slot_left[32*r+:32] >= 32'd8 ? 32'd8 : slot_left[32*r+:32];
            slot_in[r] = cst == C_RUN && src == SRC_RED && slot_left[32*r+:32] != 0 &&
                         (!slot_word[r] || red_take) && s_h2c_tvalid[port_of[PW*r+:PW]];
        end

    mf_engine_red #(.K(NHOST), .DATA_BYTES(16)) u_red (
        .clk(clk), .rst_n(rst_n), .nin(red_nin), .op(op), .dtype(dtype),
        .s_tvalid(slot_word), .s_tready(red_take), .s_tdata(slot_data),
        .m_tvalid(red_valid), .m_tready(red_ready), .m_tdata(red_data));

    always_comb begin
        pay_tready = '0;
        pk_in_valid = 1'b0;
        pk_in_data = {64'd0, s_h2c_tdata[64*src_port+:64]};
        pk_in_n = {1'b0, one_n};
        red_ready = 1'b0;
        if (cst == C_RUN && !src_done && (src == SRC_ONE || src == SRC_SEQ)) begin
            pk_in_valid = s_h2c_tvalid[src_port];
            pay_tready[src_port] = pk_in_ready;
        end else if (cst == C_RUN && src == SRC_RED) begin
            for (int r = 0; r < NHOST; r++)
                if (slot_left[32*r+:32] != 0 && (!slot_word[r] || red_take))
                    pay_tready[port_of[PW*r+:PW]] = 1'b1;
            pk_in_valid = red_valid && !src_done;
            pk_in_data = red_data;
            pk_in_n = red_n;
            red_ready = pk_in_ready || src_done;
        end
    end

    // ---- segments: who gets the realigner's bytes ----
    logic [CW-1:0] seg;                      // segment index
    logic [31:0] seg_pos, seg_bytes, seg_rem;
    logic [NHOST-1:0] seg_sinks;
    logic [CW-1:0] nseg;
    logic [3:0] need;
    logic pk_out_valid, pk_empty, bus_fire;
    always_comb begin
        nseg = opc == MF_OPC_BARRIER ? '0 :
               opc == MF_OPC_SCATTER || opc == MF_OPC_REDUCE_SCATTER ? nmem : CW'(1);
        seg_sinks = '0;
        case (opc)
            MF_OPC_BCAST: begin
                seg_bytes = b;
                seg_sinks = members & ~(NHOST'(1) << port_of[PW*root+:PW]);
            end
            MF_OPC_REDUCE: begin
                seg_bytes = b;
                seg_sinks[port_of[PW*root+:PW]] = 1'b1;
            end
            MF_OPC_ALLREDUCE: begin
                seg_bytes = b;
                seg_sinks = members;
            end
            MF_OPC_SCATTER: begin
                seg_bytes = b;
                seg_sinks[port_of[PW*seg[PW-1:0]+:PW]] = 1'b1;
            end
            MF_OPC_GATHER: begin
                seg_bytes = b * 32'(nmem);
                seg_sinks[port_of[PW*root+:PW]] = 1'b1;
            end
            MF_OPC_ALLGATHER: begin
                seg_bytes = b * 32'(nmem);
                seg_sinks = members;
            end
            MF_OPC_REDUCE_SCATTER: begin
                seg_bytes = blk[32*seg[PW-1:0]+:32];
                seg_sinks[port_of[PW*seg[PW-1:0]+:PW]] = 1'b1;
            end
            default: seg_bytes = '0;
        endcase
        seg_rem = cst == C_RUN && seg < nseg ? seg_bytes - seg_pos : 32'd0;
        need = seg_rem >= 32'd8 ? 4'd8 : seg_rem[3:0];
    end
    assign bus_fire = need != 0 && pk_out_valid && &(res_ready | ~seg_sinks);
    assign res_take = bus_fire ? seg_sinks : '0;

    mf_engine_pack u_pack (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(pk_in_valid), .s_tready(pk_in_ready), .s_tdata(pk_in_data),
        .s_nbytes(pk_in_n), .m_need(need), .m_tvalid(pk_out_valid), .m_take(bus_fire),
        .m_tdata(res_data), .empty(pk_empty));

    logic done;
    assign done = cst == C_RUN && src_done && seg >= nseg && pk_empty && &(out_idle | ~members);
    assign call_end = done ? members : '0;

    // ---- the call's registers ----
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            cst <= C_IDLE;
            slot_word <= '0;
            nmem <= '0;
        end else if (fire && agree) begin
            cst <= C_RUN;
            opc <= f_opc;
            op <= f_hdr[14:11];
            dtype <= f_hdr[18:15];
            root <= f_root;
            b <= f_b;
            nmem <= CW'(f_size);
            members <= f_same;
            for (int j = 0; j < NHOST; j++)
                if (f_same[j])
                    port_of[PW*crank[16*j+:PW]+:PW] <= PW'(j);
            blk <= f_counts;
            seg <= '0;
            seg_pos <= '0;
            src_rank <= f_opc == MF_OPC_BCAST || f_opc == MF_OPC_SCATTER ? f_root : '0;
            case (f_opc)
                MF_OPC_BCAST, MF_OPC_SCATTER: src <= SRC_ONE;
                MF_OPC_GATHER, MF_OPC_ALLGATHER: src <= SRC_SEQ;
                MF_OPC_REDUCE, MF_OPC_ALLREDUCE, MF_OPC_REDUCE_SCATTER: src <= SRC_RED;
                default: src <= SRC_NONE;
            endcase
            src_left <= f_opc == MF_OPC_SCATTER ? f_all : f_b;
            red_left <= f_opc == MF_OPC_REDUCE_SCATTER ? f_total : f_b;
            for (int r = 0; r < NHOST; r++)
                slot_left[32*r+:32] <= 16'(r) < f_size ?
                                       (f_opc == MF_OPC_REDUCE_SCATTER ? f_total : f_b) : 32'd0;
            slot_lo <= '0;
            slot_word <= '0;
            src_done <= f_opc == MF_OPC_BARRIER ||
                        ((f_opc == MF_OPC_REDUCE_SCATTER ? f_total : f_b) == 0);
        end else if (done) begin
            cst <= C_IDLE;
        end else if (cst == C_RUN) begin
            // SRC_ONE / SRC_SEQ: one member's payload after the other
            if (pk_in_valid && pk_in_ready && src != SRC_RED) begin
                src_left <= src_left - {28'd0, one_n};
                if (src_left == {28'd0, one_n}) begin
                    if (src == SRC_SEQ && 32'(src_rank) + 1 < 32'(nmem)) begin
                        src_rank <= src_rank + 1'b1;
                        src_left <= b;
                    end else
                        src_done <= 1'b1;
                end
            end
            // SRC_RED: the chain's result words into the realigner
            if (pk_in_valid && pk_in_ready && src == SRC_RED) begin
                red_left <= red_left - {27'd0, red_n};
                if (red_left == {27'd0, red_n})
                    src_done <= 1'b1;
            end
            for (int r = 0; r < NHOST; r++) begin
                if (red_take)
                    slot_word[r] <= 1'b0;
                if (slot_in[r]) begin
                    slot_left[32*r+:32] <= slot_left[32*r+:32] - slot_k[32*r+:32];
                    if (!slot_lo[r]) begin
                        slot_data[128*r+:128] <= {64'd0, s_h2c_tdata[64*port_of[PW*r+:PW]+:64]};
                        if (slot_left[32*r+:32] == slot_k[32*r+:32])
                            slot_word[r] <= 1'b1;
                        else
                            slot_lo[r] <= 1'b1;
                    end else begin
                        slot_data[128*r+64+:64] <= s_h2c_tdata[64*port_of[PW*r+:PW]+:64];
                        slot_word[r] <= 1'b1;
                        slot_lo[r] <= 1'b0;
                    end
                end
            end
            // segments
            if (seg < nseg && seg_rem == 0) begin
                seg <= seg + 1'b1;
                seg_pos <= '0;
            end else if (bus_fire) begin
                if (seg_rem == {28'd0, need}) begin
                    seg <= seg + 1'b1;
                    seg_pos <= '0;
                end else
                    seg_pos <= seg_pos + {28'd0, need};
            end
        end
    end
endmodule
