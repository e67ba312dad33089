// One host port of the collective engine (rtl/mf_engine.sv): the port's
// board streams (doc/protocol.md, "Board streams"), its own communicator
// table (mf_ct: each rank has its own CT rows) and its C2H packet writer.
//   * Input: takes an H2C packet's header beat and, for reduce_scatter,
//     its counts; looks the ctx up in the port's CT; then holds the call
//     (pend) with its payload still at the head of the stream until the
//     engine starts it (start) and reads the payload (pay_tready), and
//     ends it (call_end), or rejects it (reject: read to tlast, status 3).  CT-config / CT-free packets go whole to mf_ct;
//     unsupported opcodes and malformed calls are read to tlast and dropped.
//   * Output: the C2H packet: the header echoed with size = result bytes,
//     the result beats the engine hands over (res_take), the completion
//     word last.  One output register: tvalid never waits on tready.
module mf_engine_port #(
    parameter int NHOST = 4,
    parameter int CT_ENTRIES = 32,
    parameter int MAX_RANKS = 65536
) (
    input  logic                   clk,
    input  logic                   rst_n,
    input  logic [47:0]            now,          // engine cycle counter
    input  logic                   s_tvalid,
    output logic                   s_tready,
    input  logic [63:0]            s_tdata,
    input  logic [7:0]             s_tkeep,
    input  logic                   s_tlast,
    output logic                   m_tvalid,
    input  logic                   m_tready,
    output logic [63:0]            m_tdata,
    output logic [7:0]             m_tkeep,
    output logic                   m_tlast,
    // the call this port holds, to the engine's matcher
    output logic                   pend,
    output logic [63:0]            hdr,
    output logic [15:0]            comm_size,
    output logic [15:0]            comm_rank,
    output logic [15:0]            comm_global0,
    output logic [NHOST*32-1:0]    counts,       // u32 count i at [32i +: 32]
    // the engine
    input  logic                   start,        // this port's call starts
    input  logic                   reject,       // ... or its members disagree: status 3
    input  logic [31:0]            start_n,      // ... with this many result bytes
    input  logic [47:0]            start_at,     // ... counted from this cycle
    input  logic                   pay_tready,   // the engine takes a payload beat
    input  logic                   call_end,     // the call is over
    output logic                   res_ready,    // a result beat can be handed over
    input  logic                   res_take,
    input  logic [63:0]            res_data,
    output logic                   out_idle
);
`include "mf_codes.vh"
    localparam logic [7:0] ST_OK = 8'd0, ST_UNSUPPORTED = 8'd1, ST_CT_REFUSED = 8'd2,
                           ST_MALFORMED = 8'd3;

    typedef enum logic [3:0] {
        I_HDR, I_CT, I_CTWAIT, I_LOOKUP, I_COUNTS, I_PEND, I_RUN, I_DRAIN, I_REPLY, I_REPLYWAIT
    } in_state_t;
    typedef enum logic [1:0] {O_IDLE, O_HDR, O_DATA, O_CPL} out_state_t;
    in_state_t ist;
    out_state_t ost;

    // ---- the header beat's fields ----
    logic [4:0] opc_in, opc;
    logic [3:0] op, dtype;
    logic [15:0] root;
    assign opc_in = {1'b0, s_tdata[3:0]};
    assign opc = {1'b0, hdr[3:0]};
    assign op = hdr[14:11];
    assign dtype = hdr[18:15];
    assign root = hdr[34:19];

    function automatic logic runs(input logic [4:0] o);
        runs = o >= MF_OPC_BARRIER && o <= MF_OPC_REDUCE_SCATTER;
    endfunction
    function automatic logic rooted(input logic [4:0] o);
        rooted = o == MF_OPC_BCAST || o == MF_OPC_REDUCE || o == MF_OPC_SCATTER ||
                 o == MF_OPC_GATHER;
    endfunction
    function automatic logic reduces(input logic [4:0] o);
        reduces = o == MF_OPC_REDUCE || o == MF_OPC_ALLREDUCE || o == MF_OPC_REDUCE_SCATTER;
    endfunction
    // wire.c's mf_op_valid_for
    function automatic logic op_valid(input logic [3:0] o, input logic [3:0] t);
        logic loc, pair, bitwise;
        loc = o == MF_OP_MINLOC || o == MF_OP_MAXLOC;
        pair = t >= MF_DT_FLOAT_INT;
        bitwise = o == MF_OP_BAND || o == MF_OP_BOR || o == MF_OP_BXOR;
        if (loc || pair)
            op_valid = loc && pair;
        else if (o == MF_OP_CPROD)
            op_valid = t == MF_DT_FLOAT || t == MF_DT_DOUBLE;
        else
            op_valid = !bitwise || t <= MF_DT_UINT64;
    endfunction

    // ---- the port's communicator table ----
    logic ct_s_tvalid, ct_s_tready, ct_st_valid, lk_req, lk_valid, lk_hit;
    logic [3:0] ct_st_code;
    /* verilator lint_off UNUSEDSIGNAL */ // the engine needs no partner sets
    logic [4:0] ct_st_ctx, lk_levels, lk_pof2_levels;
    logic [3:0] ct_st_opcode;
    logic lk_ident;
    logic [15:0] lk_fold, lk_partner;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [15:0] lk_size, lk_rank, lk_global0;
    assign ct_s_tvalid = ist == I_CT && s_tvalid;
    mf_ct #(.CT_ENTRIES(CT_ENTRIES), .MAX_RANKS(MAX_RANKS)) u_ct (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(ct_s_tvalid), .s_tready(ct_s_tready), .s_tdata(s_tdata),
        .s_tkeep(s_tkeep), .s_tlast(s_tlast), .row_busy('0),
        .st_valid(ct_st_valid), .st_code(ct_st_code), .st_ctx(ct_st_ctx),
        .st_opcode(ct_st_opcode),
        .lk_req(lk_req), .lk_ctx(hdr[8:4]), .lk_set(2'd3), .lk_level(4'd0),
        .lk_valid(lk_valid), .lk_hit(lk_hit), .lk_size(lk_size), .lk_rank(lk_rank),
        .lk_levels(lk_levels), .lk_pof2_levels(lk_pof2_levels), .lk_ident(lk_ident),
        .lk_fold(lk_fold), .lk_global0(lk_global0), .lk_partner(lk_partner));

    // ---- input side ----
    logic hdr_last;           // the header beat was the packet's last
    logic [7:0] reply_status, reply_reason;
    logic [47:0] t0;          // cycle the call started
    logic [28:0] out_n;       // result bytes of the C2H packet being written (size field)
    logic [2:0] cnt_beat;     // counts beat being read
    logic [2:0] cnt_beats;    // counts beats of this call: ceil(size / 2)
    logic lk_sent;            // the lookup request went out
    logic lookup_bad;

    always_comb begin
        lookup_bad = !lk_hit || lk_size == 0 || 32'(lk_size) > NHOST ||
                     (rooted(opc) && root >= lk_size) || (reduces(opc) && !op_valid(op, dtype));
        case (ist)
            I_HDR: s_tready = !(opc_in == MF_OPC_CT_CONFIG || opc_in == MF_OPC_CT_FREE);
            I_CT: s_tready = ct_s_tready;
            I_COUNTS, I_DRAIN: s_tready = 1'b1;
            I_RUN: s_tready = pay_tready;
            default: s_tready = 1'b0;
        endcase
    end
    assign pend = ist == I_PEND && ost == O_IDLE;
    assign lk_req = ist == I_LOOKUP && !lk_sent;

    // header checks of mf_proc_hdr_unpack: op, dtype codes
    logic hdr_decodes;
    assign hdr_decodes = s_tdata[14:11] < MF_OP_COUNT && s_tdata[18:15] < MF_DT_COUNT;

    task automatic reply(input logic [7:0] status, input logic [7:0] reason, input logic last);
        reply_status <= status;
        reply_reason <= reason;
        ist <= last ? I_REPLY : I_DRAIN;
    endtask

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            ist <= I_HDR;
        end else case (ist)
            I_HDR: if (s_tvalid) begin
                hdr <= s_tdata;
                t0 <= now;
                cnt_beat <= '0;
                lk_sent <= 1'b0;
                hdr_last <= s_tlast;
                if (opc_in == MF_OPC_CT_CONFIG || opc_in == MF_OPC_CT_FREE)
                    ist <= I_CT;
                else if (!hdr_decodes)
                    reply(ST_MALFORMED, 8'd0, s_tlast);
                else if (!runs(opc_in))
                    reply(ST_UNSUPPORTED, 8'd0, s_tlast);
                else
                    ist <= I_LOOKUP;
            end
            I_CT: if (s_tvalid && ct_s_tready && s_tlast)
                ist <= I_CTWAIT;
            I_CTWAIT: if (ct_st_valid) begin
                reply_status <= ct_st_code == 4'd0 ? ST_OK : ST_CT_REFUSED;
                reply_reason <= {4'd0, ct_st_code};
                ist <= I_REPLY;
            end
            I_LOOKUP: begin
                lk_sent <= 1'b1;
                if (lk_valid) begin
                    comm_size <= lk_size;
                    comm_rank <= lk_rank;
                    comm_global0 <= lk_global0;
                    cnt_beats <= 3'((lk_size + 16'd1) >> 1);
                    if (lookup_bad)
                        reply(ST_MALFORMED, 8'd0, hdr_last);
                    else if (opc == MF_OPC_REDUCE_SCATTER && !hdr_last)
                        ist <= I_COUNTS;
                    else if (opc == MF_OPC_REDUCE_SCATTER)
                        reply(ST_MALFORMED, 8'd0, 1'b1); // no counts
                    else
                        ist <= I_PEND;
                end
            end
            I_COUNTS: if (s_tvalid) begin
                hdr_last <= s_tlast; // a reduce_scatter with nothing to send ends here
                for (int i = 0; i < NHOST; i++)
                    if (32'(i) >> 1 == 32'(cnt_beat))
                        counts[32*i+:32] <= s_tdata[32*(i&1)+:32];
                cnt_beat <= cnt_beat + 3'd1;
                if (cnt_beat + 3'd1 == cnt_beats)
                    ist <= I_PEND;
            end
            I_PEND: if (start)
                ist <= I_RUN;
            else if (reject)
                reply(ST_MALFORMED, 8'd0, hdr_last);
            I_RUN: if (call_end)
                ist <= I_HDR;
            I_DRAIN: if (s_tvalid && s_tlast)
                ist <= I_REPLY;
            I_REPLY: if (ost == O_IDLE)
                ist <= I_REPLYWAIT;
            default: // I_REPLYWAIT: the completion is being written
                if (ost == O_IDLE)
                    ist <= I_HDR;
        endcase
    end

    // ---- output side: one register ----
    logic out_free;
    logic [31:0] beats_left;
    logic [47:0] took, o_t0;
    logic [7:0] o_status, o_reason;
    assign out_free = !m_tvalid || m_tready;
    assign res_ready = ost == O_DATA && out_free;
    assign out_idle = ost == O_IDLE;
    assign m_tkeep = 8'hff;
    assign took = now - o_t0;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            ost <= O_IDLE;
            m_tvalid <= 1'b0;
        end else begin
            if (m_tvalid && m_tready)
                m_tvalid <= 1'b0;
            case (ost)
                O_IDLE: if (start) begin
                    out_n <= start_n[28:0];
                    beats_left <= (start_n + 32'd7) >> 3;
                    o_t0 <= start_at;
                    o_status <= ST_OK;
                    o_reason <= 8'd0;
                    ost <= O_HDR;
                end else if (ist == I_REPLY) begin
                    o_t0 <= t0;
                    o_status <= reply_status;
                    o_reason <= reply_reason;
                    out_n <= '0;
                    beats_left <= '0;
                    ost <= O_HDR;
                end
                O_HDR: if (out_free) begin
                    m_tvalid <= 1'b1;
                    m_tdata <= {out_n, hdr[34:0]};
                    m_tlast <= 1'b0;
                    ost <= beats_left == 0 ? O_CPL : O_DATA;
                end
                O_DATA: if (res_take) begin
                    m_tvalid <= 1'b1;
                    m_tdata <= res_data;
                    beats_left <= beats_left - 32'd1;
                    if (beats_left == 32'd1)
                        ost <= O_CPL;
                end
                default: if (out_free) begin // O_CPL
                    m_tvalid <= 1'b1;
                    m_tdata <= {took, o_reason, o_status};
                    m_tlast <= 1'b1;
                    ost <= O_IDLE;
                end
            endcase
        end
    end
endmodule
