// The engine's reduction chain (001 sec. 4.3, fig. 7): as mf_cgr, K
// inputs joined beat by beat and reduced by a chain of AgLUs, one pipeline
// stage each, out = in0, then out = out OP in_k for k = 1 .. nin-1; the
// stages of inputs k >= nin pass the accumulator on, so one chain serves
// communicators of 1 .. K members (input k = comm rank k).  Only the
// active inputs are joined.  No tkeep: the engine counts the bytes.
module mf_engine_red #(
    parameter int K = 4,
    parameter int DATA_BYTES = 16   // mf_aglu_vec: a multiple of 16
) (
    input  logic                      clk,
    input  logic                      rst_n,
    input  logic [$clog2(K+1)-1:0]    nin,       // active inputs, 1 .. K (0: none)
    input  logic [3:0]                op,
    input  logic [3:0]                dtype,
    input  logic [K-1:0]              s_tvalid,
    output logic                      s_tready,  // all active inputs taken together
    input  logic [K*8*DATA_BYTES-1:0] s_tdata,   // input k at [k*8*DATA_BYTES +: ...]
    output logic                      m_tvalid,
    input  logic                      m_tready,
    output logic [8*DATA_BYTES-1:0]   m_tdata
);
    localparam int W = 8 * DATA_BYTES;

    logic advance;
    logic [K-1:0] active;
    always_comb
        for (int k = 0; k < K; k++)
            active[k] = 32'(k) < 32'(nin);
    assign advance = !m_tvalid || m_tready;
    assign s_tready = nin != 0 && &(s_tvalid | ~active) && advance;

    for (genvar s = 0; s < K; s++) begin : g_stage
        logic v;
        logic [W-1:0] acc;
        /* verilator lint_off UNUSEDSIGNAL */ // the last stage's: synthesis drops them
        logic [K*W-1:0] ins;
        /* verilator lint_on UNUSEDSIGNAL */
        if (s == 0) begin : g_join
            always_ff @(posedge clk) begin
                if (!rst_n)
                    v <= 1'b0;
                else if (advance)
                    v <= s_tready;
                if (advance) begin
                    ins <= s_tdata;
                    acc <= s_tdata[0+:W];
                end
            end
        end else begin : g_combine
            logic [W-1:0] y;
            /* verilator lint_off UNUSEDSIGNAL */ // the port checks (op, dtype) first
            logic supported;
            /* verilator lint_on UNUSEDSIGNAL */
            mf_aglu_vec #(.DATA_BYTES(DATA_BYTES)) u_vec (
                .op(op), .dtype(dtype), .a(g_stage[s-1].acc), .b(g_stage[s-1].ins[s*W+:W]),
                .y(y), .supported(supported));
            always_ff @(posedge clk) begin
                if (!rst_n)
                    v <= 1'b0;
                else if (advance)
                    v <= g_stage[s-1].v;
                if (advance) begin
                    ins <= g_stage[s-1].ins;
                    acc <= active[s] ? y : g_stage[s-1].acc;
                end
            end
        end
    end

    assign m_tvalid = g_stage[K-1].v;
    assign m_tdata = g_stage[K-1].acc;
endmodule
