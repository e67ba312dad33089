// Communicator table (CT) of the CCM (001 sec. 3.1-3.3, fig. 4A): one row
// per context ID, written by a CT-config packet, cleared by CT-free, read by
// the CCM through a lookup port.  As fpga_model/hw/ct.c with the payload
// parsed as src/proto/wire.c's mf_ct_entry_unpack (doc/rtl.md, "mf_ct").
//   * Input: processor packets on a 64-bit AXI4-Stream, beat 0 the 8-byte
//     processor header (mf_proc_hdr_pack: opcode, ctx, size = payload
//     bytes), then the payload (mf_ct_entry_pack's bytes), tkeep marking the
//     bytes of the last beat (contiguous from byte 0).  The parser takes one
//     16-bit payload word a cycle, so a payload beat is held 1-4 cycles.
//   * Every packet ends in one st_valid pulse with st_code: 0 accepted (the
//     row is written or freed), else why it was refused; a refused packet
//     leaves the table as it was.  The table changes at that same edge.
//   * Rows: size, rank, levels, pof2_levels, ident, fold, global0 in a
//     CT_ENTRIES-deep RAM; the three partner sets (hc, up, down, at most
//     MF_MAX_LEVELS each) in a second RAM of two banks per row: a config
//     writes the bank not in use and flips the row's bank bit when it is
//     accepted, so a refused one (known only at its end) changes nothing.
//   * Lookup: (ctx, set, level) in with lk_req; two cycles later lk_valid
//     with the row's fields and partner `set` (0 hc, 1 up, 2 down; 3 none)
//     at `level`: MF_RANK_NONE past the row's levels, as mf_ct_entry_unpack
//     leaves unused slots.  lk_hit 0 (row unset or ctx out of range, where
//     mf_ct_lookup gives NULL): every field 0.  A lookup sees the table as
//     it was before the edge that samples it.
module mf_ct #(
    parameter int CT_ENTRIES = 32,   // rows N_C (u280.conf ct_entries), 1..MF_MAX_CTX
    parameter int MAX_RANKS = 65536  // MAX_R (u280.conf max_ranks): larger sizes refused
) (
    input  logic                  clk,
    input  logic                  rst_n,
    input  logic                  s_tvalid,
    output logic                  s_tready,
    input  logic [63:0]           s_tdata,
    input  logic [7:0]            s_tkeep,
    input  logic                  s_tlast,
    // the CCM's rows with a collective running or queued (ct.c: cur, wait_head)
    input  logic [CT_ENTRIES-1:0] row_busy,
    output logic                  st_valid,
    output logic [3:0]            st_code,
    output logic [4:0]            st_ctx,
    output logic [3:0]            st_opcode,
    input  logic                  lk_req,
    input  logic [4:0]            lk_ctx,
    input  logic [1:0]            lk_set,
    input  logic [3:0]            lk_level,
    output logic                  lk_valid,
    output logic                  lk_hit,
    output logic [15:0]           lk_size,
    output logic [15:0]           lk_rank,
    output logic [4:0]            lk_levels,
    output logic [4:0]            lk_pof2_levels,
    output logic                  lk_ident,
    output logic [15:0]           lk_fold,
    output logic [15:0]           lk_global0,
    output logic [15:0]           lk_partner
);
`include "mf_codes.vh"
    // st_code: what refused the packet, first match in this order (doc/rtl.md;
    // test/rtl/lockstep_ct.cpp's ct_code_t has the same numbers)
    localparam logic [3:0] CT_OK = 4'd0;
    localparam logic [3:0] CT_E_FRAME = 4'd1;   // tkeep: header beat not full, a gap
    localparam logic [3:0] CT_E_HEADER = 4'd2;  // mf_proc_hdr_unpack refuses (op, dtype)
    localparam logic [3:0] CT_E_OPCODE = 4'd3;  // neither CT_CONFIG nor CT_FREE
    localparam logic [3:0] CT_E_LENGTH = 4'd4;  // size field != payload bytes; CT_FREE with payload
    localparam logic [3:0] CT_E_ENTRY = 4'd5;   // mf_ct_entry_unpack refuses, or bytes left over
    localparam logic [3:0] CT_E_RANGE = 4'd6;   // ctx >= CT_ENTRIES (mf_ct_config)
    localparam logic [3:0] CT_E_LIMIT = 4'd7;   // size > MAX_RANKS (mf_ct_config)
    localparam logic [3:0] CT_E_BUSY = 4'd8;    // row_busy[ctx] (mf_ct_config)
    localparam logic [3:0] CT_E_UNSET = 4'd9;   // CT_FREE of a row not set (mf_ct_free)
    localparam int RW = $clog2(MF_MAX_CTX);       // row address bits
    localparam int HDR_W = 16 + 16 + 5 + 5 + 1 + 16 + 16;
    localparam int PART_AW = 1 + RW + 2 + 4;      // bank, row, set, level
    localparam int FIXED_BYTES = 10;              // mf_ct_entry_pack before the sets

    typedef enum logic [1:0] {S_HDR, S_PAY, S_END} state_t;
    state_t state;

    // the packet being parsed
    logic [3:0]  opcode;
    logic [4:0]  ctx;
    logic [28:0] size_field;
    logic        frame_err, hdr_err;
    logic [29:0] nbytes;          // payload bytes so far; stops past 2^29 - 1
    logic [5:0]  word_idx;        // payload 16-bit word, saturating at 63
    logic [1:0]  sub;             // word of the current beat
    logic [15:0] e_size, e_rank, e_fold, e_global0;
    logic [7:0]  e_levels;
    logic [6:0]  e_pof2;
    logic        e_ident;
    logic [1:0]  p_set;           // next partner slot
    logic [3:0]  p_level;

    logic [CT_ENTRIES-1:0] valid, bank;
    logic [HDR_W-1:0] hdr_ram [CT_ENTRIES];
    logic [15:0] part_ram [1 << PART_AW];

    // ---- the payload beat: its bytes, and the word the parser takes ----
    logic       keep_ok;
    logic [3:0] beat_bytes;
    logic [2:0] beat_words;
    logic       beat_done;
    logic [15:0] word;
    always_comb begin
        // bytes 0..n-1: a full beat, or a shorter last one
        keep_ok = s_tkeep == 8'hff || (s_tlast && s_tkeep != 0 && (s_tkeep & (s_tkeep + 8'd1)) == 0);
        beat_bytes = 0;
        for (int i = 0; i < 8; i++)
            if (s_tkeep[i])
                beat_bytes = beat_bytes + 4'd1;
        if (!keep_ok)
            beat_bytes = 0;
        beat_words = beat_bytes[3:1];
        beat_done = beat_words == 0 || {1'b0, sub} == beat_words - 3'd1;
        word = s_tdata[16*sub+:16];
    end
    assign s_tready = state == S_HDR || (state == S_PAY && beat_done);

    // ---- the entry's header, as mf_ct_entry_unpack's ct_header_consistent ----
    function automatic logic [4:0] floor_log2(input logic [15:0] n);
        floor_log2 = 0;
        for (int i = 1; i < 16; i++)
            if (n[i])
                floor_log2 = 5'(i);
    endfunction
    logic [4:0] lg_floor, lg_ceil;
    logic consistent, row_in_range;
    logic [10:0] wire_bytes;
    always_comb begin
        lg_floor = floor_log2(e_size);
        lg_ceil = lg_floor + {4'd0, (e_size & (e_size - 16'd1)) != 0};
        consistent = e_size != 0 && e_rank < e_size && e_levels == {3'd0, lg_ceil} &&
                     e_pof2 == {2'd0, lg_floor};
        // 10 + 6 * levels, in adders (a constant product would take a DSP)
        wire_bytes = 11'(FIXED_BYTES) + {1'b0, e_levels, 2'd0} + {2'd0, e_levels, 1'b0};
        row_in_range = 32'(ctx) < CT_ENTRIES;
    end

    // ---- the verdict at the packet's end (the C model's order of checks) ----
    logic is_config, is_free, length_err, entry_err;
    logic [3:0] code;
    always_comb begin
        is_config = {1'b0, opcode} == MF_OPC_CT_CONFIG;
        is_free = {1'b0, opcode} == MF_OPC_CT_FREE;
        length_err = {1'b0, size_field} != nbytes || (is_free && nbytes != 0);
        entry_err = nbytes < 30'(FIXED_BYTES) || !consistent || nbytes != {19'd0, wire_bytes};
        if (frame_err)
            code = CT_E_FRAME;
        else if (hdr_err)
            code = CT_E_HEADER;
        else if (!is_config && !is_free)
            code = CT_E_OPCODE;
        else if (length_err)
            code = CT_E_LENGTH;
        else if (is_free)
            code = row_in_range && valid[ctx[RW-1:0]] ? CT_OK : CT_E_UNSET;
        else if (entry_err)
            code = CT_E_ENTRY;
        else if (!row_in_range)
            code = CT_E_RANGE;
        else if (32'(e_size) > MAX_RANKS)
            code = CT_E_LIMIT;
        else if (row_busy[ctx[RW-1:0]])
            code = CT_E_BUSY;
        else
            code = CT_OK;
    end

    // ---- RAM writes: partners while parsing, the header row at the end ----
    logic part_we, hdr_we;
    logic [PART_AW-1:0] part_waddr;
    always_comb begin
        part_we = state == S_PAY && s_tvalid && {1'b0, sub} < beat_words && word_idx >= 6'd5 &&
                  p_set != 2'd3 && is_config && consistent && row_in_range;
        part_waddr = {~bank[ctx[RW-1:0]], ctx[RW-1:0], p_set, p_level};
        hdr_we = state == S_END && is_config && code == CT_OK;
    end

    always_ff @(posedge clk) begin
        if (part_we)
            part_ram[part_waddr] <= word;
        if (hdr_we)
            hdr_ram[ctx[RW-1:0]] <= {e_size, e_rank, e_levels[4:0], e_pof2[4:0], e_ident,
                                     e_fold, e_global0};
    end

    // ---- one payload word: the entry's fields, then the partners ----
    task automatic take_word(input logic [15:0] w);
        case (word_idx)
            6'd0: e_size <= w;
            6'd1: e_rank <= w;
            6'd2: begin
                e_levels <= w[7:0];
                e_pof2 <= w[14:8];
                e_ident <= w[15];
            end
            6'd3: e_fold <= w;
            6'd4: e_global0 <= w;
            default:
                if (p_set != 2'd3) begin
                    if ({1'b0, p_level} + 5'd1 >= e_levels[4:0]) begin
                        p_level <= 0;
                        p_set <= p_set + 2'd1;
                    end else
                        p_level <= p_level + 4'd1;
                end
        endcase
        if (word_idx != 6'd63)
            word_idx <= word_idx + 6'd1;
    endtask

    always_ff @(posedge clk) begin
        st_valid <= 1'b0;
        if (!rst_n) begin
            state <= S_HDR;
            valid <= '0;
            bank <= '0;
        end else case (state)
            S_HDR: if (s_tvalid) begin
                opcode <= s_tdata[3:0];
                ctx <= s_tdata[8:4];
                size_field <= s_tdata[63:35];
                frame_err <= s_tkeep != 8'hff;
                hdr_err <= s_tdata[14:11] >= MF_OP_COUNT || s_tdata[18:15] >= MF_DT_COUNT;
                {nbytes, word_idx, sub, p_set, p_level} <= '0;
                {e_size, e_rank, e_levels, e_pof2, e_ident, e_fold, e_global0} <= '0;
                state <= s_tlast ? S_END : S_PAY;
            end
            S_PAY: if (s_tvalid) begin
                if ({1'b0, sub} < beat_words)
                    take_word(word);
                if (beat_done) begin
                    sub <= 0;
                    frame_err <= frame_err || !keep_ok;
                    if (!nbytes[29])
                        nbytes <= nbytes + {26'd0, beat_bytes};
                    if (s_tlast)
                        state <= S_END;
                end else
                    sub <= sub + 2'd1;
            end
            default: begin // S_END
                st_valid <= 1'b1;
                st_code <= code;
                st_ctx <= ctx;
                st_opcode <= opcode;
                if (code == CT_OK && is_config) begin
                    valid[ctx[RW-1:0]] <= 1'b1;
                    bank[ctx[RW-1:0]] <= ~bank[ctx[RW-1:0]];
                end
                if (code == CT_OK && is_free)
                    valid[ctx[RW-1:0]] <= 1'b0;
                state <= S_HDR;
            end
        endcase
    end

    // ---- lookup: RAM read stage, then the output stage ----
    logic s1_req, s1_hit;
    logic [1:0] s1_set;
    logic [3:0] s1_level;
    logic [HDR_W-1:0] s1_hdr;
    logic [15:0] s1_partner;
    logic lk_in_range;
    logic [RW-1:0] lk_row;
    assign lk_in_range = 32'(lk_ctx) < CT_ENTRIES;
    assign lk_row = lk_in_range ? lk_ctx[RW-1:0] : '0;

    always_ff @(posedge clk) begin
        s1_hdr <= hdr_ram[lk_row];
        s1_partner <= part_ram[{bank[lk_row], lk_row, lk_set, lk_level}];
        s1_hit <= lk_in_range && valid[lk_row];
        s1_set <= lk_set;
        s1_level <= lk_level;
    end

    logic [4:0] s1_levels;
    assign s1_levels = s1_hdr[HDR_W-33 -: 5];
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            s1_req <= 1'b0;
            lk_valid <= 1'b0;
        end else begin
            s1_req <= lk_req;
            lk_valid <= s1_req;
        end
        lk_hit <= s1_hit;
        {lk_size, lk_rank, lk_levels, lk_pof2_levels, lk_ident, lk_fold, lk_global0} <=
            s1_hit ? s1_hdr : '0;
        if (!s1_hit)
            lk_partner <= 0;
        else if (s1_set == 2'd3 || {1'b0, s1_level} >= s1_levels)
            lk_partner <= 16'(MF_RANK_NONE);
        else
            lk_partner <= s1_partner;
    end
endmodule
