// Test-only wrapper for make rtl-check: the AgLU and a K-input CGR side by
// side in one Verilator model, so one harness drives both.
module lockstep_top #(
    parameter int DATA_BYTES = 64,
    parameter int K = 4
) (
    input  logic                      clk,
    input  logic                      rst_n,
    // mf_aglu
    input  logic                      aglu_s_tvalid,
    output logic                      aglu_s_tready,
    input  logic [8*DATA_BYTES-1:0]   aglu_s_tdata_a,
    input  logic [8*DATA_BYTES-1:0]   aglu_s_tdata_b,
    input  logic [DATA_BYTES-1:0]     aglu_s_tkeep,
    input  logic                      aglu_s_tlast,
    input  logic [3:0]                aglu_s_op,
    input  logic [3:0]                aglu_s_dtype,
    output logic                      aglu_m_tvalid,
    input  logic                      aglu_m_tready,
    output logic [8*DATA_BYTES-1:0]   aglu_m_tdata,
    output logic [DATA_BYTES-1:0]     aglu_m_tkeep,
    output logic                      aglu_m_tlast,
    output logic                      aglu_m_terror,
    // mf_cgr
    input  logic [K-1:0]              cgr_s_tvalid,
    output logic [K-1:0]              cgr_s_tready,
    input  logic [K*8*DATA_BYTES-1:0] cgr_s_tdata,
    input  logic [K*DATA_BYTES-1:0]   cgr_s_tkeep,
    input  logic [K-1:0]              cgr_s_tlast,
    input  logic [3:0]                cgr_op,
    input  logic [3:0]                cgr_dtype,
    output logic                      cgr_m_tvalid,
    input  logic                      cgr_m_tready,
    output logic [8*DATA_BYTES-1:0]   cgr_m_tdata,
    output logic [DATA_BYTES-1:0]     cgr_m_tkeep,
    output logic                      cgr_m_tlast,
    output logic                      cgr_m_terror
);
    mf_aglu #(.DATA_BYTES(DATA_BYTES)) u_aglu (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(aglu_s_tvalid), .s_tready(aglu_s_tready),
        .s_tdata_a(aglu_s_tdata_a), .s_tdata_b(aglu_s_tdata_b),
        .s_tkeep(aglu_s_tkeep), .s_tlast(aglu_s_tlast),
        .s_op(aglu_s_op), .s_dtype(aglu_s_dtype),
        .m_tvalid(aglu_m_tvalid), .m_tready(aglu_m_tready), .m_tdata(aglu_m_tdata),
        .m_tkeep(aglu_m_tkeep), .m_tlast(aglu_m_tlast), .m_terror(aglu_m_terror));

    mf_cgr #(.K(K), .DATA_BYTES(DATA_BYTES)) u_cgr (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(cgr_s_tvalid), .s_tready(cgr_s_tready), .s_tdata(cgr_s_tdata),
        .s_tkeep(cgr_s_tkeep), .s_tlast(cgr_s_tlast), .op(cgr_op), .dtype(cgr_dtype),
        .m_tvalid(cgr_m_tvalid), .m_tready(cgr_m_tready), .m_tdata(cgr_m_tdata),
        .m_tkeep(cgr_m_tkeep), .m_tlast(cgr_m_tlast), .m_terror(cgr_m_terror));
endmodule
