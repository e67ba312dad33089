// The engine's byte realigner: a 32-byte FIFO of bytes.  It takes 1..16
// bytes a cycle (bytes 0..s_nbytes-1 of s_tdata) and gives beats of
// m_need bytes (1..8) from its head, zero-padded to 8, so that streams
// that end mid-beat can be joined (gather: the members' blocks back to
// back) and a stream cut where blocks end (scatter, reduce_scatter: each
// block starts a beat).  s_tready may depend on m_take (same cycle).
module mf_engine_pack (
    input  logic         clk,
    input  logic         rst_n,
    input  logic         s_tvalid,
    output logic         s_tready,
    input  logic [127:0] s_tdata,
    input  logic [4:0]   s_nbytes,
    input  logic [3:0]   m_need,
    output logic         m_tvalid,
    input  logic         m_take,
    output logic [63:0]  m_tdata,
    output logic         empty
);
    logic [255:0] buf_q, shifted, pushed, data_mask;
    logic [5:0] cnt, after_pop;
    logic [5:0] pop_n;

    assign m_tvalid = m_need != 0 && cnt >= {2'd0, m_need};
    assign empty = cnt == 0;
    always_comb begin
        for (int i = 0; i < 8; i++)
            m_tdata[8*i+:8] = 4'(i) < m_need ? buf_q[8*i+:8] : 8'd0;
        pop_n = m_take ? {2'd0, m_need} : 6'd0;
        after_pop = cnt - pop_n;
        shifted = buf_q >> {pop_n, 3'd0};
        s_tready = after_pop <= 6'd16;
        for (int i = 0; i < 16; i++)
            data_mask[8*i+:8] = 5'(i) < s_nbytes ? 8'hff : 8'h00;
        data_mask[255:128] = '0;
        pushed = ({128'd0, s_tdata} & data_mask) << {after_pop, 3'd0};
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            cnt <= '0;
            buf_q <= '0;
        end else if (s_tvalid && s_tready) begin
            buf_q <= shifted | pushed;
            cnt <= after_pop + {1'b0, s_nbytes};
        end else begin
            buf_q <= shifted;
            cnt <= after_pop;
        end
    end
endmodule
