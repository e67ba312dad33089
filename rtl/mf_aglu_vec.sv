// The vectorised AgLU datapath (001 sec. 4.3, fig. 7), combinational:
// y = a OP b lane by lane over DATA_BYTES bytes, the lanes as wide as the
// datatype (fpga_model/hw/aglu.c).  Every lane width has its own units;
// the datatype selects whose result is taken (MF_OP_CPROD: the complex
// units on lane pairs).  supported is 0 for an (op, dtype) pair the RTL
// does not compute: then y is 0.
module mf_aglu_vec #(
    parameter int DATA_BYTES = 64   // multiple of 16 (a DOUBLE_INT pair)
) (
    input  logic [3:0]              op,
    input  logic [3:0]              dtype,
    input  logic [8*DATA_BYTES-1:0] a,
    input  logic [8*DATA_BYTES-1:0] b,
    output logic [8*DATA_BYTES-1:0] y,
    output logic                    supported
);
`include "mf_codes.vh"
    localparam int W = 8 * DATA_BYTES;

    logic [W-1:0] y8, y16, y32, y64, yf, yd, yp8, yp16;
    logic [W-1:0] pf, pd, ycf, ycd;   // lane products; complex products
    logic is_signed, is_loc, is_pair, is_bitwise, is_int;

    assign is_signed = dtype <= MF_DT_INT64;

    for (genvar i = 0; i < W / 8; i++) begin : g_i8
        mf_aglu_int #(.N(8)) u (.op(op), .is_signed(is_signed),
                                .a(a[8*i+:8]), .b(b[8*i+:8]), .y(y8[8*i+:8]));
    end
    for (genvar i = 0; i < W / 16; i++) begin : g_i16
        mf_aglu_int #(.N(16)) u (.op(op), .is_signed(is_signed),
                                 .a(a[16*i+:16]), .b(b[16*i+:16]), .y(y16[16*i+:16]));
    end
    for (genvar i = 0; i < W / 32; i++) begin : g_i32
        mf_aglu_int #(.N(32)) u (.op(op), .is_signed(is_signed),
                                 .a(a[32*i+:32]), .b(b[32*i+:32]), .y(y32[32*i+:32]));
        mf_aglu_flt #(.WIDTH(32)) uf (.op(op), .a(a[32*i+:32]), .b(b[32*i+:32]),
                                      .y(yf[32*i+:32]), .prod(pf[32*i+:32]));
    end
    for (genvar i = 0; i < W / 64; i++) begin : g_i64
        mf_aglu_int #(.N(64)) u (.op(op), .is_signed(is_signed),
                                 .a(a[64*i+:64]), .b(b[64*i+:64]), .y(y64[64*i+:64]));
        mf_aglu_flt #(.WIDTH(64)) ud (.op(op), .a(a[64*i+:64]), .b(b[64*i+:64]),
                                      .y(yd[64*i+:64]), .prod(pd[64*i+:64]));
        mf_aglu_cprod #(.WIDTH(32)) ucf (.a(a[64*i+:64]), .b(b[64*i+:64]),
                                         .p_re(pf[64*i+:32]), .p_im(pf[64*i+32+:32]),
                                         .y(ycf[64*i+:64]));
        mf_aglu_pair #(.W(64)) up (.is_max(op == MF_OP_MAXLOC),
                                   .is_float(dtype == MF_DT_FLOAT_INT),
                                   .is_short(dtype == MF_DT_SHORT_INT),
                                   .a(a[64*i+:64]), .b(b[64*i+:64]), .y(yp8[64*i+:64]));
    end
    for (genvar i = 0; i < W / 128; i++) begin : g_p16
        mf_aglu_cprod #(.WIDTH(64)) ucd (.a(a[128*i+:128]), .b(b[128*i+:128]),
                                         .p_re(pd[128*i+:64]), .p_im(pd[128*i+64+:64]),
                                         .y(ycd[128*i+:128]));
        mf_aglu_pair #(.W(128)) up (.is_max(op == MF_OP_MAXLOC),
                                    .is_float(dtype == MF_DT_DOUBLE_INT), .is_short(1'b0),
                                    .a(a[128*i+:128]), .b(b[128*i+:128]),
                                    .y(yp16[128*i+:128]));
    end

    // (op, dtype) pairs computed here: those of include/mpifpga/wire.h's
    // mf_op_valid_for()
    always_comb begin
        is_loc = op == MF_OP_MINLOC || op == MF_OP_MAXLOC;
        is_pair = dtype >= MF_DT_FLOAT_INT && dtype < MF_DT_COUNT;
        is_bitwise = op == MF_OP_BAND || op == MF_OP_BOR || op == MF_OP_BXOR;
        is_int = dtype <= MF_DT_UINT64;
        if (op >= MF_OP_COUNT || dtype >= MF_DT_COUNT)
            supported = 1'b0;
        else if (op == MF_OP_CPROD)
            supported = dtype == MF_DT_FLOAT || dtype == MF_DT_DOUBLE;
        else if (is_loc || is_pair)
            supported = is_loc && is_pair;
        else
            supported = !is_bitwise || is_int;

        case (dtype)
            MF_DT_INT8, MF_DT_UINT8:                  y = y8;
            MF_DT_INT16, MF_DT_UINT16:                y = y16;
            MF_DT_INT32, MF_DT_UINT32:                y = y32;
            MF_DT_INT64, MF_DT_UINT64:                y = y64;
            MF_DT_FLOAT:                              y = op == MF_OP_CPROD ? ycf : yf;
            MF_DT_DOUBLE:                             y = op == MF_OP_CPROD ? ycd : yd;
            MF_DT_FLOAT_INT, MF_DT_2INT, MF_DT_SHORT_INT: y = yp8;
            MF_DT_DOUBLE_INT, MF_DT_LONG_INT:         y = yp16;
            default:                                  y = '0;
        endcase
        if (!supported)
            y = '0;
    end
endmodule
