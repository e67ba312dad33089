// One integer lane of the AgLU (fpga_model/hw/aglu.c, OP_* macros): N-bit
// two's-complement or unsigned elements.  Sum and product wrap modulo 2^N
// (the low N bits, the same for signed and unsigned); logical ops give 0/1.
// y = a OP b, where a is the accumulator's element and b the input's.
module mf_aglu_int #(
    parameter int N = 8
) (
    input  logic [3:0]   op,
    input  logic         is_signed,
    input  logic [N-1:0] a,
    input  logic [N-1:0] b,
    output logic [N-1:0] y
);
`include "mf_codes.vh"

    logic b_lt_a, b_gt_a, a_true, b_true;

    always_comb begin
        b_lt_a = is_signed ? ($signed(b) < $signed(a)) : (b < a);
        b_gt_a = is_signed ? ($signed(b) > $signed(a)) : (b > a);
        a_true = |a;
        b_true = |b;
        case (op)
            MF_OP_SUM:  y = a + b;
            MF_OP_PROD: y = a * b;
            MF_OP_MIN:  y = b_lt_a ? b : a;
            MF_OP_MAX:  y = b_gt_a ? b : a;
            MF_OP_LAND: y = {{(N - 1){1'b0}}, a_true & b_true};
            MF_OP_LOR:  y = {{(N - 1){1'b0}}, a_true | b_true};
            MF_OP_LXOR: y = {{(N - 1){1'b0}}, a_true ^ b_true};
            MF_OP_BAND: y = a & b;
            MF_OP_BOR:  y = a | b;
            MF_OP_BXOR: y = a ^ b;
            default:    y = '0;
        endcase
    end
endmodule
