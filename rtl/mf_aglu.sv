// Vectorised AgLU with AXI4-Stream ports (001 sec. 4.3, fig. 7): each beat
// carries DATA_BYTES of both operands (a: the accumulator, b: the input)
// and the op / datatype codes of include/mpifpga/wire.h (rtl/mf_codes.vh,
// generated); the result beat is a OP b lane by lane, as
// fpga_model/hw/aglu.c's mf_aglu_combine computes it.
//   * Two register stages (operands, result); the whole pipeline stalls
//     while the result is held (m_tvalid && !m_tready), so s_tready is
//     combinational from m_tready.
//   * tkeep marks the bytes that carry data (whole elements); result bytes
//     outside it are 0.  tkeep and tlast pass through.
//   * m_terror: the beat's (op, dtype) is not computed (invalid for MPI:
//     mf_aglu_vec's table, as wire.c's mf_op_valid_for); its tdata is 0.
module mf_aglu #(
    parameter int DATA_BYTES = 64   // 512 bits: 2 phits of 256 bits (u280.conf)
) (
    input  logic                    clk,
    input  logic                    rst_n,
    input  logic                    s_tvalid,
    output logic                    s_tready,
    input  logic [8*DATA_BYTES-1:0] s_tdata_a,
    input  logic [8*DATA_BYTES-1:0] s_tdata_b,
    input  logic [DATA_BYTES-1:0]   s_tkeep,
    input  logic                    s_tlast,
    input  logic [3:0]              s_op,
    input  logic [3:0]              s_dtype,
    output logic                    m_tvalid,
    input  logic                    m_tready,
    output logic [8*DATA_BYTES-1:0] m_tdata,
    output logic [DATA_BYTES-1:0]   m_tkeep,
    output logic                    m_tlast,
    output logic                    m_terror
);
    localparam int W = 8 * DATA_BYTES;

    logic advance;
    logic v1, last1;
    logic [W-1:0] a1, b1, y1, keep_bits;
    logic [DATA_BYTES-1:0] keep1;
    logic [3:0] op1, dtype1;
    logic supported1;

    assign advance = !m_tvalid || m_tready;
    assign s_tready = advance;

    mf_aglu_vec #(.DATA_BYTES(DATA_BYTES)) u_vec (
        .op(op1), .dtype(dtype1), .a(a1), .b(b1), .y(y1), .supported(supported1));

    for (genvar i = 0; i < DATA_BYTES; i++) begin : g_keep
        assign keep_bits[8*i+:8] = {8{keep1[i]}};
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            v1 <= 1'b0;
            m_tvalid <= 1'b0;
        end else if (advance) begin
            v1 <= s_tvalid;
            m_tvalid <= v1;
        end
        if (advance) begin
            a1 <= s_tdata_a;
            b1 <= s_tdata_b;
            keep1 <= s_tkeep;
            last1 <= s_tlast;
            op1 <= s_op;
            dtype1 <= s_dtype;
            m_tdata <= y1 & keep_bits;
            m_tkeep <= keep1;
            m_tlast <= last1;
            m_terror <= !supported1;
        end
    end
endmodule
