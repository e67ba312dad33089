// Complex product on one (re, im) lane pair (MF_OP_CPROD: MPI_PROD on the
// complex types; fpga_model/hw/aglu.c, AGLU_CPROD), WIDTH 32 (float) or 64
// (double) per lane:
//   re = a.re * b.re - a.im * b.im,  im = a.re * b.im + a.im * b.re
// each product and the sum / difference rounded, as C computes it without
// a fused multiply-add (x86-64's default).  The two products of the lanes'
// own units come in (p_re = a.re * b.re, p_im = a.im * b.im); the cross
// products and the two adders are this unit's.
module mf_aglu_cprod #(
    parameter int WIDTH = 32
) (
    input  logic [2*WIDTH-1:0] a,      // {im, re}
    input  logic [2*WIDTH-1:0] b,
    input  logic [WIDTH-1:0]   p_re,
    input  logic [WIDTH-1:0]   p_im,
    output logic [2*WIDTH-1:0] y
);
    logic [WIDTH-1:0] re_im, im_re;   // a.re * b.im, a.im * b.re

    mf_fp_mul #(.WIDTH(WIDTH)) u_re_im (.a(a[0+:WIDTH]), .b(b[WIDTH+:WIDTH]), .y(re_im));
    mf_fp_mul #(.WIDTH(WIDTH)) u_im_re (.a(a[WIDTH+:WIDTH]), .b(b[0+:WIDTH]), .y(im_re));
    mf_fp_add #(.WIDTH(WIDTH)) u_re (.a(p_re), .b(p_im), .sub_b(1'b1), .y(y[0+:WIDTH]));
    mf_fp_add #(.WIDTH(WIDTH)) u_im (.a(re_im), .b(im_re), .sub_b(1'b0), .y(y[WIDTH+:WIDTH]));
endmodule
