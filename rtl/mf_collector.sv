// The collector of a local engine (001 sec. 4.3, fig. 5): incoming
// collective packets are demultiplexed by (context, tag) into the streams
// the CCM has opened; packets whose stream is not open yet are parked, in
// arrival order, and replayed when the CCM opens a stream, as
// fpga_model/hw/collector.c (mf_collector_accept, deliver,
// mf_collector_adopt_parked).  See doc/rtl.md.
//
// Input: network packets on a 64-bit AXI4-Stream.  Beat 0 is the 6-byte
// header as mf_net_hdr_pack writes it (tkeep 0x3f; tlast if no payload),
// then the payload, 8 bytes a beat, the last beat's tkeep bytes 0..n-1.
// Output: one AXI4-Stream master carrying every delivered payload beat with
// the stream slot it belongs to (m_tslot); m_tlast marks the end of a
// stream (the last beat of a packet whose header has last set; a last packet
// with no payload gives one beat with tkeep 0).
module mf_collector #(
    parameter int SLOTS = 8,         // open streams (stream buffers)
    parameter int PARK_BEATS = 256,  // parking FIFO, beats (headers included)
    localparam int SW = SLOTS > 1 ? $clog2(SLOTS) : 1,
    localparam int PW = $clog2(PARK_BEATS)
) (
    input  logic          clk,
    input  logic          rst_n,
    // network packets in
    input  logic          s_tvalid,
    output logic          s_tready,
    input  logic [63:0]   s_tdata,
    input  logic [7:0]    s_tkeep,
    input  logic          s_tlast,
    // the CCM opens stream (cfg_ctx, cfg_tag) on slot cfg_slot
    input  logic          cfg_valid,
    output logic          cfg_ready,
    input  logic [SW-1:0] cfg_slot,
    input  logic [4:0]    cfg_ctx,
    input  logic [4:0]    cfg_tag,
    // delivered payload
    output logic          m_tvalid,
    input  logic          m_tready,
    output logic [63:0]   m_tdata,
    output logic [7:0]    m_tkeep,
    output logic          m_tlast,
    output logic [SW-1:0] m_tslot,
    // status: streams open (cleared by their last packet), parked packets
    output logic [SLOTS-1:0] slot_open,
    output logic [PW:0]      park_pkts,
    output logic             replaying
);
    // network header fields (src/proto/wire.c: NH_CTX 16, NH_TAG 33, NH_LAST 41)
    localparam int NH_CTX = 16, NH_TAG = 33, NH_LAST = 41;

    typedef enum logic [1:0] { S_HEAD, S_DELIVER, S_PARK, S_EMPTY } state_t;
    state_t state;

    // ---- open-streams table: slot -> (ctx, tag) --------------------------
    logic [SLOTS-1:0] tab_valid;
    logic [4:0]       tab_ctx [SLOTS];
    logic [4:0]       tab_tag [SLOTS];
    assign slot_open = tab_valid;

    // ---- parking FIFO ------------------------------------------------------
    logic [72:0] park_mem [PARK_BEATS];  // {tlast, tkeep, tdata}
    logic [PW-1:0] park_rd, park_wr;
    logic [PW:0]   park_count;
    logic [PW:0]   replay_left;          // parked packets still to look at

    // ---- the source: the input, or the parking FIFO while replaying -------
    logic        src_valid, src_last, src_pop;
    logic [63:0] src_data;
    logic [7:0]  src_keep;
    always_comb begin
        if (replaying) begin
            src_valid = park_count != 0;
            {src_last, src_keep, src_data} = park_mem[park_rd];
        end else begin
            src_valid = s_tvalid;
            {src_last, src_keep, src_data} = {s_tlast, s_tkeep, s_tdata};
        end
    end

    // ---- the header's stream ------------------------------------------------
    logic [4:0] hdr_ctx, hdr_tag;
    logic       hdr_last, hit;
    logic [SW-1:0] hit_slot;
    assign hdr_ctx = src_data[NH_CTX +: 5];
    assign hdr_tag = src_data[NH_TAG +: 5];
    assign hdr_last = src_data[NH_LAST];
    always_comb begin
        hit = 1'b0;
        hit_slot = '0;
        for (int i = SLOTS - 1; i >= 0; i--)
            if (tab_valid[i] && tab_ctx[i] == hdr_ctx && tab_tag[i] == hdr_tag) begin
                hit = 1'b1;
                hit_slot = SW'(i);
            end
    end

    logic [SW-1:0] cur_slot;
    logic          cur_last;   // the packet ends its stream
    logic          park_room;  // a beat can be written into the parking FIFO
    assign park_room = replaying || park_count != (PW+1)'(PARK_BEATS);

    // cfg only between packets and not during a replay: a packet is never
    // half delivered when the table changes
    assign cfg_ready = state == S_HEAD && !replaying;
    logic cfg_take, head_take;
    assign cfg_take = cfg_valid && cfg_ready;
    assign head_take = state == S_HEAD && !cfg_take && src_valid && (hit || park_room);

    always_comb begin
        case (state)
            S_HEAD:    src_pop = head_take;
            S_DELIVER: src_pop = src_valid && m_tready;
            S_PARK:    src_pop = src_valid && park_room;
            default:   src_pop = 1'b0;
        endcase
    end
    assign s_tready = !replaying && src_pop;

    // park writes: a missed header, then its payload beats
    logic park_push;
    assign park_push = (state == S_HEAD && head_take && !hit) || (state == S_PARK && src_pop);
    logic park_pop;
    assign park_pop = replaying && src_pop;

    // ---- output -----------------------------------------------------------
    always_comb begin
        m_tvalid = 1'b0;
        m_tdata = src_data;
        m_tkeep = src_keep;
        m_tlast = cur_last && src_last;
        m_tslot = cur_slot;
        if (state == S_DELIVER)
            m_tvalid = src_valid;
        if (state == S_EMPTY) begin
            m_tvalid = 1'b1;
            m_tdata = '0;
            m_tkeep = '0;
            m_tlast = 1'b1;
        end
    end

    // ---- packet done: next header, from the FIFO while replaying ---------
    logic pkt_done;
    always_comb begin
        case (state)
            S_HEAD:    pkt_done = head_take && src_last && !(hit && hdr_last);
            S_DELIVER, S_PARK: pkt_done = src_pop && src_last;
            S_EMPTY:   pkt_done = m_tready;
            default:   pkt_done = 1'b0;
        endcase
    end

    always_ff @(posedge clk) begin
        if (park_push)
            park_mem[park_wr] <= {src_last, src_keep, src_data};
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state <= S_HEAD;
            tab_valid <= '0;
            park_rd <= '0;
            park_wr <= '0;
            park_count <= '0;
            park_pkts <= '0;
            replay_left <= '0;
            replaying <= 1'b0;
            cur_slot <= '0;
            cur_last <= 1'b0;
        end else begin
            if (cfg_take) begin
                tab_valid[cfg_slot] <= 1'b1;
                tab_ctx[cfg_slot] <= cfg_ctx;
                tab_tag[cfg_slot] <= cfg_tag;
                // look at every parked packet once, in arrival order
                if (park_pkts != 0) begin
                    replaying <= 1'b1;
                    replay_left <= park_pkts;
                end
            end
            if (head_take) begin
                cur_slot <= hit_slot;
                cur_last <= hit && hdr_last;
                if (hit && hdr_last)
                    tab_valid[hit_slot] <= 1'b0;  // closed: later packets park
                if (hit)
                    state <= src_last ? (hdr_last ? S_EMPTY : S_HEAD) : S_DELIVER;
                else
                    state <= src_last ? S_HEAD : S_PARK;
            end
            if (state != S_HEAD && pkt_done)
                state <= S_HEAD;
            // parked packets: one more when a parked one is complete, one
            // fewer when a replayed header is taken (re-parked ones count again)
            park_pkts <= park_pkts + (PW+1)'(park_push && src_last) - (PW+1)'(head_take && replaying);
            if (head_take && replaying) begin
                replay_left <= replay_left - 1'b1;
                if (replay_left == 1 && src_last && !(hit && hdr_last))
                    replaying <= 1'b0;
            end
            if (pkt_done && state != S_HEAD && replaying && replay_left == 0)
                replaying <= 1'b0;
            if (park_pop)
                park_rd <= park_rd + 1'b1;
            if (park_push)
                park_wr <= park_wr + 1'b1;
            park_count <= park_count + (PW+1)'(park_push) - (PW+1)'(park_pop);
        end
    end
endmodule
