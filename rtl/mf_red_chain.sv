// The reduction chain of 001 sec. 4.3, fig. 7, shared by the CGR's
// reduction path (mf_cgr) and the engine's (mf_engine_red): a joined beat
// of K inputs reduced by a chain of vectorised AgLUs, one pipeline stage
// each, in the order of fpga_model/hw/cgr.c's mf_cgr_reduce: out = in0,
// then out = out OP in_k for k = 1 .. K-1 (the order matters for float
// sums).  A stage whose input is not active passes the accumulator on, so
// one chain serves 1 .. K inputs.
//   * The beat enters when `advance` (the caller's: nothing held at the
//     end, or the result taken) with in_valid saying whether it is one.
//   * op, dtype, the active inputs and a side band of SB bits (the
//     caller's: tkeep, tlast, ...) travel with the beat.
//   * out_unsupported: an active stage's AgLU does not compute (op, dtype)
//     (mf_aglu_vec); out_acc is then that AgLU's output, not a result.
//   * The whole pipeline moves together: it stalls while the result is held.
module mf_red_chain #(
    parameter int K = 4,
    parameter int DATA_BYTES = 64,  // mf_aglu_vec: a multiple of 16
    parameter int SB = 1
) (
    input  logic                      clk,
    input  logic                      rst_n,
    input  logic                      advance,
    input  logic                      in_valid,
    input  logic [K*8*DATA_BYTES-1:0] in_data,   // input k at [k*8*DATA_BYTES +: ...]
    input  logic [K-1:0]              in_active, // bit 0 ignored: input 0 starts the sum
    input  logic [3:0]                op,
    input  logic [3:0]                dtype,
    input  logic [SB-1:0]             in_sb,
    output logic                      out_valid,
    output logic [8*DATA_BYTES-1:0]   out_acc,
    output logic [SB-1:0]             out_sb,
    output logic                      out_unsupported
);
    localparam int W = 8 * DATA_BYTES;

    // Stage s holds the reduction of inputs 0..s (acc) and the inputs
    // still to come; stage 0 is the joined beat.
    for (genvar s = 0; s < K; s++) begin : g_stage
        logic v, uns;
        logic [W-1:0] acc;
        logic [SB-1:0] sb;
        /* verilator lint_off UNUSEDSIGNAL */ // the last stage's: synthesis drops them
        logic [K*W-1:0] ins;
        logic [K-1:0] active;
        logic [3:0] op_q, dtype_q;
        /* verilator lint_on UNUSEDSIGNAL */
        if (s == 0) begin : g_join
            always_ff @(posedge clk) begin
                if (!rst_n)
                    v <= 1'b0;
                else if (advance)
                    v <= in_valid;
                if (advance) begin
                    ins <= in_data;
                    acc <= in_data[0+:W];
                    sb <= in_sb;
                    uns <= 1'b0;
                    active <= in_active;
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
                    acc <= g_stage[s-1].active[s] ? y : g_stage[s-1].acc;
                    sb <= g_stage[s-1].sb;
                    uns <= g_stage[s-1].uns || (g_stage[s-1].active[s] && !supported);
                    active <= g_stage[s-1].active;
                    op_q <= g_stage[s-1].op_q;
                    dtype_q <= g_stage[s-1].dtype_q;
                end
            end
        end
    end

    assign out_valid = g_stage[K-1].v;
    assign out_acc = g_stage[K-1].acc;
    assign out_sb = g_stage[K-1].sb;
    assign out_unsupported = g_stage[K-1].uns;
endmodule
