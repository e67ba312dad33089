// The engine's reduction path (001 sec. 4.3, fig. 7): K inputs joined
// beat by beat and reduced by the reduction chain (mf_red_chain, as in
// mf_cgr), out = in0, then out = out OP in_k for k = 1 .. nin-1; the
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
    logic advance;
    logic [K-1:0] active;
    always_comb
        for (int k = 0; k < K; k++)
            active[k] = 32'(k) < 32'(nin);
    assign advance = !m_tvalid || m_tready;
    assign s_tready = nin != 0 && &(s_tvalid | ~active) && advance;

    /* verilator lint_off PINCONNECTEMPTY */ // the port checks (op, dtype) first
    mf_red_chain #(.K(K), .DATA_BYTES(DATA_BYTES), .SB(1)) u_chain (
        .clk(clk), .rst_n(rst_n), .advance(advance), .in_valid(s_tready),
        .in_data(s_tdata), .in_active(active), .op(op), .dtype(dtype), .in_sb(1'b0),
        .out_valid(m_tvalid), .out_acc(m_tdata), .out_sb(), .out_unsupported());
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
