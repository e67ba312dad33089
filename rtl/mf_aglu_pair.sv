// One MINLOC/MAXLOC lane (fpga_model/hw/aglu.c, AGLU_PAIR): a (value, int32
// index) pair laid out as the C struct (include/mpifpga/wire.h).  b wins if
// its value is better (max: greater, min: less), or equal with a lower
// index; then b's value and index are taken and a's pad bytes kept.
//   W=64:  FLOAT_INT (f32 @0, idx @4), 2INT (i32 @0, idx @4),
//          SHORT_INT (i16 @0, pad 2..3, idx @4)
//   W=128: DOUBLE_INT (f64 @0, idx @8, pad 12..15), LONG_INT (i64 @0, ...)
module mf_aglu_pair #(
    parameter int W = 64
) (
    input  logic           is_max,
    input  logic           is_float,  // value is IEEE (f32 / f64)
    input  logic           is_short,  // W=64 only: value is int16
    input  logic [W-1:0]   a,
    /* verilator lint_off UNUSEDSIGNAL */ // b's pad bytes are never taken
    input  logic [W-1:0]   b,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [W-1:0]   y
);
    localparam int VW = W / 2;   // value field bits (f32/i32 or f64/i64)
    localparam int IOFF = W / 2; // index bit offset

    logic [VW-1:0] av, bv;
    logic signed [31:0] ai, bi;
    logic a_nan, b_nan, lt, gt, eq, take;

    // IEEE x < z, neither NaN (the caller checks)
    function automatic logic flt_lt(input logic [VW-1:0] x, input logic [VW-1:0] z);
        if (x[VW-2:0] == '0 && z[VW-2:0] == '0)
            flt_lt = 1'b0;
        else if (x[VW-1] != z[VW-1])
            flt_lt = x[VW-1];
        else
            flt_lt = x[VW-1] ? (x[VW-2:0] > z[VW-2:0]) : (x[VW-2:0] < z[VW-2:0]);
    endfunction

    always_comb begin
        av = a[VW-1:0];
        bv = b[VW-1:0];
        if (is_short) begin // sign-extend the int16 value: compares as an int
            av = {{(VW - 16){a[15]}}, a[15:0]};
            bv = {{(VW - 16){b[15]}}, b[15:0]};
        end
        ai = a[IOFF+31:IOFF];
        bi = b[IOFF+31:IOFF];
        // exponent all ones and a nonzero mantissa (f32: 8/23, f64: 11/52)
        if (VW == 32) begin
            a_nan = &av[30:23] && |av[22:0];
            b_nan = &bv[30:23] && |bv[22:0];
        end else begin
            a_nan = &av[VW-2:VW-12] && |av[VW-13:0];
            b_nan = &bv[VW-2:VW-12] && |bv[VW-13:0];
        end
        if (is_float) begin
            lt = !a_nan && !b_nan && flt_lt(bv, av);
            gt = !a_nan && !b_nan && flt_lt(av, bv);
            eq = !a_nan && !b_nan && (av == bv || (av[VW-2:0] == '0 && bv[VW-2:0] == '0));
        end else begin
            lt = $signed(bv) < $signed(av);
            gt = $signed(bv) > $signed(av);
            eq = av == bv;
        end
        take = (is_max ? gt : lt) || (eq && bi < ai);
        y = a;
        if (take) begin
            y[IOFF+31:IOFF] = b[IOFF+31:IOFF];
            if (is_short)
                y[15:0] = b[15:0];
            else
                y[VW-1:0] = b[VW-1:0];
        end
    end
endmodule
