// Configurable gather/reduction unit, reduction path (001 sec. 4.3, fig. 7):
// K AXI4-Stream inputs reduced into one stream by the reduction chain
// (mf_red_chain: K-1 vectorised AgLUs, one pipeline stage each, in the
// order of fpga_model/hw/cgr.c's mf_cgr_reduce).
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
    localparam int SB = DATA_BYTES + 2; // {tkeep, tlast, out of step} with the beat

    logic advance, out_of_step, unsupported;
    logic [W-1:0] keep_bits, acc;
    logic [SB-1:0] sb;
    logic [DATA_BYTES-1:0] keep;
    logic last, err;

    assign advance = !m_tvalid || m_tready;
    assign s_tready = {K{&s_tvalid && advance}};

    always_comb begin
        out_of_step = 1'b0;
        for (int k = 1; k < K; k++)
            if (s_tkeep[k*DATA_BYTES+:DATA_BYTES] != s_tkeep[0+:DATA_BYTES] ||
                s_tlast[k] != s_tlast[0])
                out_of_step = 1'b1;
    end

    mf_red_chain #(.K(K), .DATA_BYTES(DATA_BYTES), .SB(SB)) u_chain (
        .clk(clk), .rst_n(rst_n), .advance(advance), .in_valid(&s_tvalid),
        .in_data(s_tdata), .in_active({K{1'b1}}), .op(op), .dtype(dtype),
        .in_sb({s_tkeep[0+:DATA_BYTES], s_tlast[0], out_of_step}),
        .out_valid(m_tvalid), .out_acc(acc), .out_sb(sb), .out_unsupported(unsupported));

    assign {keep, last} = sb[SB-1:1];
    assign err = sb[0] || unsupported;
    for (genvar i = 0; i < DATA_BYTES; i++) begin : g_keep
        assign keep_bits[8*i+:8] = {8{keep[i]}};
    end
    assign m_tdata = err ? '0 : acc & keep_bits;
    assign m_tkeep = keep;
    assign m_tlast = last;
    assign m_terror = err;
endmodule
