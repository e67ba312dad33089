// IEEE-754 binary addition y = a + b, or subtraction y = a - b if sub_b
// (WIDTH 32: float, 8-bit exponent; 64: double, 11-bit), bit-exact with
// x86-64 SSE in its default mode: round to nearest even, subnormal inputs
// and results (no flush to zero), and SSE's NaN rules: a NaN operand is
// returned quieted and with its own sign (also b's when subtracting), a's
// if both are NaN; an invalid inf - inf gives the default NaN (sign set,
// quiet bit only).  An exact zero result is +0 unless both addends are -0.
// Working significand: carry, hidden bit, MW bits, guard, round, sticky.
module mf_fp_add #(
    parameter int WIDTH = 32        // 32: float, 64: double
) (
    input  logic [WIDTH-1:0] a,
    input  logic [WIDTH-1:0] b,
    input  logic             sub_b,
    output logic [WIDTH-1:0] y
);
    localparam int EW = WIDTH == 32 ? 8 : 11;  // exponent bits
    localparam int MW = WIDTH - EW - 1;        // mantissa bits
    localparam int N = WIDTH;
    localparam int SW = MW + 5;  // carry + hidden + MW + guard/round/sticky
    localparam logic [EW-1:0] EMAX = {EW{1'b1}};
    localparam logic [N-1:0] QNAN = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    localparam logic [N-1:0] QUIET = {{(EW + 1){1'b0}}, 1'b1, {(MW - 1){1'b0}}};

    // leading zeros of the SW-1 bits below the carry
    function automatic int lzc(input logic [SW-2:0] v);
        lzc = SW - 1;
        for (int i = 0; i < SW - 1; i++)
            if (v[i]) lzc = SW - 2 - i;
    endfunction

    logic a_nan, b_nan, a_inf, b_inf, swap, sub, sx;
    /* verilator lint_off UNUSEDSIGNAL */ // z's sign: sub is from a and b
    logic [N-1:0] bb, x, z;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [EW:0] ex, ez, d, e;
    logic [SW-1:0] mx, mz, mz_sh, r;
    logic [EW-1:0] exp_f;
    logic [MW-1:0] man_f;
    logic guard, rest, inc;
    int lz, sh, e_int;

    always_comb begin
        lz = 0;
        sh = 0;
        e_int = 0;
        a_nan = &a[N-2:MW] && |a[MW-1:0];
        b_nan = &b[N-2:MW] && |b[MW-1:0];
        a_inf = &a[N-2:MW] && !(|a[MW-1:0]);
        b_inf = &b[N-2:MW] && !(|b[MW-1:0]);
        bb = {b[N-1] ^ sub_b, b[N-2:0]};  // the addend; NaNs are returned as b
        // x: the addend of larger magnitude
        swap = b[N-2:0] > a[N-2:0];
        x = swap ? bb : a;
        z = swap ? a : bb;
        sub = a[N-1] ^ bb[N-1];
        sx = x[N-1];
        ex = {1'b0, x[N-2:MW]} | {{EW{1'b0}}, x[N-2:MW] == '0}; // subnormal: 1
        ez = {1'b0, z[N-2:MW]} | {{EW{1'b0}}, z[N-2:MW] == '0};
        mx = {1'b0, x[N-2:MW] != '0, x[MW-1:0], 3'b000};
        mz = {1'b0, z[N-2:MW] != '0, z[MW-1:0], 3'b000};
        d = ex - ez;
        // align z, the bits shifted out ORed into the sticky bit
        mz_sh = mz >> d;
        mz_sh[0] = mz_sh[0] | |(mz & ~({SW{1'b1}} << d));
        r = sub ? mx - mz_sh : mx + mz_sh;
        e = ex;
        if (r[SW-1]) begin
            r = {1'b0, r[SW-1:2], r[1] | r[0]};
            e = e + 1'b1;
        end else begin
            lz = lzc(r[SW-2:0]);
            e_int = {{(31 - EW){1'b0}}, e};
            sh = (lz < e_int - 1) ? lz : e_int - 1;  // not below the subnormal exponent
            r = r << sh;
            e = e - sh[EW:0];
        end
        exp_f = r[SW-2] ? e[EW-1:0] : '0;
        man_f = r[SW-3:3];
        guard = r[2];
        rest = r[1] | r[0];
        inc = guard & (rest | man_f[0]);

        if (a_nan)
            y = a | QUIET;
        else if (b_nan)
            y = b | QUIET;
        else if (a_inf && b_inf && sub)
            y = QNAN;
        else if (a_inf)
            y = a;
        else if (b_inf)
            y = bb;
        else if (r == '0)
            y = {a[N-1] & bb[N-1], {(N - 1){1'b0}}};
        else if (e >= {1'b0, EMAX})
            y = {sx, EMAX, {MW{1'b0}}};
        else
            y = {sx, {exp_f, man_f} + {{(N - 2){1'b0}}, inc}};
    end
endmodule
