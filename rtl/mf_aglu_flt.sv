// One IEEE-754 binary lane of the AgLU (WIDTH 32: float, 8-bit exponent;
// 64: double, 11-bit), as fpga_model/hw/aglu.c computes it in C on x86-64:
//   min/max  b < a ? b : a  /  b > a ? b : a   (NaN compares false: a kept;
//            -0 and +0 compare equal: a kept)
//   logical  nonzero is true (NaN is, -0 is not); result 1.0 or +0.0
//   sum/prod IEEE round-to-nearest-even with subnormals (mf_fp_add/mf_fp_mul)
module mf_aglu_flt #(
    parameter int WIDTH = 32        // 32: float, 64: double
) (
    input  logic [3:0]         op,
    input  logic [WIDTH-1:0]   a,
    input  logic [WIDTH-1:0]   b,
    output logic [WIDTH-1:0]   y,
    output logic [WIDTH-1:0]   prod    // a * b, also for the complex product
);
`include "mf_codes.vh"
    localparam int EW = WIDTH == 32 ? 8 : 11;  // exponent bits
    localparam int MW = WIDTH - EW - 1;        // mantissa bits
    localparam int N = WIDTH;
    localparam logic [N-1:0] ONE = {2'b00, {(EW - 1){1'b1}}, {MW{1'b0}}};

    logic a_nan, b_nan, a_true, b_true, b_lt_a, b_gt_a;
    logic [N-1:0] sum;

    mf_fp_add #(.WIDTH(WIDTH)) u_add (.a(a), .b(b), .sub_b(1'b0), .y(sum));
    mf_fp_mul #(.WIDTH(WIDTH)) u_mul (.a(a), .b(b), .y(prod));

    // x < y on the IEEE order (false if either is NaN or both are zeros)
    function automatic logic flt_lt(input logic [N-1:0] x, input logic [N-1:0] z);
        logic [N-2:0] mx, mz;
        mx = x[N-2:0];
        mz = z[N-2:0];
        if (mx == '0 && mz == '0)
            flt_lt = 1'b0;
        else if (x[N-1] != z[N-1])
            flt_lt = x[N-1];
        else
            flt_lt = x[N-1] ? (mx > mz) : (mx < mz);
    endfunction

    always_comb begin
        a_nan = &a[N-2:MW] && |a[MW-1:0];
        b_nan = &b[N-2:MW] && |b[MW-1:0];
        a_true = |a[N-2:0];
        b_true = |b[N-2:0];
        b_lt_a = !a_nan && !b_nan && flt_lt(b, a);
        b_gt_a = !a_nan && !b_nan && flt_lt(a, b);
        case (op)
            MF_OP_SUM:  y = sum;
            MF_OP_PROD: y = prod;
            MF_OP_MIN:  y = b_lt_a ? b : a;
            MF_OP_MAX:  y = b_gt_a ? b : a;
            MF_OP_LAND: y = (a_true & b_true) ? ONE : '0;
            MF_OP_LOR:  y = (a_true | b_true) ? ONE : '0;
            MF_OP_LXOR: y = (a_true ^ b_true) ? ONE : '0;
            default:    y = '0;
        endcase
    end
endmodule
