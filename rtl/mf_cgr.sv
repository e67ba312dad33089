// Configurable gather/reduction unit, reduction path (001 sec. 4.3, fig. 7):
// K AXI4-Stream inputs reduced into one stream by a chain of K-1
// vectorised AgLUs, one pipeline stage each, in the order of
// fpga_model/hw/cgr.c's mf_cgr_reduce: out = in0, then out = out OP in_k
// for k = 1 .. K-1 (the order matters for float sums).
//   * The inputs are joined: a beat is taken from every input in the same
//     cycle, when all are valid and the pipeline can advance.
//   * op / dtype (the reduction-table entry's codes, mf_codes.vh) are
//     sampled with each joined beat.
//   * m_terror: the (op, dtype) is not computed (mf_aglu_vec), or the
//     inputs' tkeep or tlast differ (streams out of step); tdata is 0.
//   * The whole pipeline stalls while the result is held.
module mf_cgr #(
    parameter int K = 4,            // inputs (switch ports), at least 2
    parameter int DATA_BYTES = 64
) (
    input  logic                      clk,
    input  logic                      rst_n,
    input  logic [K-1:0]              s_tvalid,
    output logic [K-1:0]              s_tready,
    input  logic [K*8*DATA_BYTES-1:0] s_tdata,   // input k at [k*8*DATA_BYTES +: ...]
    input  logic [K*DATA_BYTES-1:0]   s_tkeep,
    input  logic [K-1:0]              s_tlast,
    input  logic [3:0]                op,
    input  logic [3:0]                dtype,
    output logic                      m_tvalid,
    input  logic                      m_tready,
    output logic [8*DATA_BYTES-1:0]   m_tdata,
    output logic [DATA_BYTES-1:0]     m_tkeep,
    output logic                      m_tlast,
    output logic                      m_terror
);
    localparam int W = 8 * DATA_BYTES;

    logic advance, join_fire, out_of_step;
    logic [W-1:0] keep_bits;

    assign advance = !m_tvalid || m_tready;
    assign join_fire = &s_tvalid && advance;
    assign s_tready = {K{&s_tvalid && advance}};

    always_comb begin
        out_of_step = 1'b0;
        for (int k = 1; k < K; k++)
            if (s_tkeep[k*DATA_BYTES+:DATA_BYTES] != s_tkeep[0+:DATA_BYTES] ||
                s_tlast[k] != s_tlast[0])
                out_of_step = 1'b1;
    end

    // Stage s holds the reduction of inputs 0..s (acc) and the inputs
    // still to come; stage 0 is the joined beat.
    for (genvar s = 0; s < K; s++) begin : g_stage
        logic v, last, err;
        logic [W-1:0] acc;
        logic [DATA_BYTES-1:0] keep;
        /* verilator lint_off UNUSEDSIGNAL */ // the last stage's: synthesis drops them
        logic [K*W-1:0] ins;
        logic [3:0] op_q, dtype_q;
        /* verilator lint_on UNUSEDSIGNAL */
        if (s == 0) begin : g_join
            always_ff @(posedge clk) begin
                if (!rst_n)
                    v <= 1'b0;
                else if (advance)
                    v <= join_fire;
                if (advance) begin
                    ins <= s_tdata;
                    acc <= s_tdata[0+:W];
                    keep <= s_tkeep[0+:DATA_BYTES];
                    last <= s_tlast[0];
                    err <= out_of_step;
                    op_q <= op;
                    dtype_q <= dtype;
                end
            end
        end else begin : g_combine
            logic [W-1:0] y;
            logic supported;
            mf_aglu_vec #(.DATA_BYTES(DATA_BYTES)) u_vec (
                .op(g_stage[s-1].op_q), .dtype(g_stage[s-1].dtype_q),
                .a(g_stage[s-1].acc), .b(g_stage[s-1].ins[s*W+:W]),
                .y(y), .supported(supported));
            always_ff @(posedge clk) begin
                if (!rst_n)
                    v <= 1'b0;
                else if (advance)
                    v <= g_stage[s-1].v;
                if (advance) begin
                    ins <= g_stage[s-1].ins;
                    acc <= y;
                    keep <= g_stage[s-1].keep;
                    last <= g_stage[s-1].last;
                    err <= g_stage[s-1].err || !supported;
                    op_q <= g_stage[s-1].op_q;
                    dtype_q <= g_stage[s-1].dtype_q;
                end
            end
        end
    end

    for (genvar i = 0; i < DATA_BYTES; i++) begin : g_keep
        assign keep_bits[8*i+:8] = {8{g_stage[K-1].keep[i]}};
    end
    assign m_tvalid = g_stage[K-1].v;
    assign m_tdata = g_stage[K-1].err ? '0 : g_stage[K-1].acc & keep_bits;
    assign m_tkeep = g_stage[K-1].keep;
    assign m_tlast = g_stage[K-1].last;
    assign m_terror = g_stage[K-1].err;
endmodule
