// IEEE-754 binary multiplication y = a * b, bit-exact with x86-64 SSE in
// its default mode (as mf_fp_add): round to nearest even, subnormals, a
// NaN operand returned quieted (a's if both are), inf * 0 gives the
// default NaN.  The full 2(MW+1)-bit product is normalised, shifted right
// into the subnormal range if the exponent underflows, then rounded.
module mf_fp_mul #(
    parameter int WIDTH = 32        // 32: float, 64: double
) (
    input  logic [WIDTH-1:0] a,
    input  logic [WIDTH-1:0] b,
    output logic [WIDTH-1:0] y
);
    localparam int EW = WIDTH == 32 ? 8 : 11;  // exponent bits
    localparam int MW = WIDTH - EW - 1;        // mantissa bits
    localparam int N = WIDTH;
    localparam int P = MW + 1;            // significand bits
    localparam int BIAS = (1 << (EW - 1)) - 1;
    localparam logic [EW-1:0] EMAX = {EW{1'b1}};
    localparam int EMAX_I = (1 << EW) - 1;
    localparam logic [N-1:0] QNAN = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    localparam logic [N-1:0] QUIET = {{(EW + 1){1'b0}}, 1'b1, {(MW - 1){1'b0}}};

    function automatic int lzc(input logic [2*P-1:0] v);
        lzc = 2 * P;
        for (int i = 0; i < 2 * P; i++)
            if (v[i]) lzc = 2 * P - 1 - i;
    endfunction

    logic a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, s;
    logic [P-1:0] ma, mb;
    logic [2*P-1:0] prod, t;
    logic [EW-1:0] exp_f;
    logic [MW-1:0] man_f;
    logic guard, sticky, inc;
    int ea, eb, er, lz, sh;

    always_comb begin
        sh = 0;
        a_nan = &a[N-2:MW] && |a[MW-1:0];
        b_nan = &b[N-2:MW] && |b[MW-1:0];
        a_inf = &a[N-2:MW] && !(|a[MW-1:0]);
        b_inf = &b[N-2:MW] && !(|b[MW-1:0]);
        a_zero = a[N-2:0] == '0;
        b_zero = b[N-2:0] == '0;
        s = a[N-1] ^ b[N-1];
        ma = {a[N-2:MW] != '0, a[MW-1:0]};
        mb = {b[N-2:MW] != '0, b[MW-1:0]};
        ea = {{(32 - EW){1'b0}}, a[N-2:MW]};  // exponent fields; a subnormal's is 1
        eb = {{(32 - EW){1'b0}}, b[N-2:MW]};
        if (ea == 0) ea = 1;
        if (eb == 0) eb = 1;
        prod = {{P{1'b0}}, ma} * {{P{1'b0}}, mb};
        lz = lzc(prod);
        er = ea + eb - BIAS + 1 - lz;     // biased exponent of the leading one
        t = prod << lz;
        sticky = 1'b0;
        exp_f = er[EW-1:0];
        if (er < 1) begin                 // subnormal: shift to exponent 1
            sh = 1 - er;
            sticky = |(t & ~({(2 * P){1'b1}} << sh));
            t = t >> sh;
            exp_f = '0;
        end
        man_f = t[2*P-2:P];
        guard = t[P-1];
        sticky = sticky | |t[P-2:0];
        inc = guard & (sticky | man_f[0]);

        if (a_nan)
            y = a | QUIET;
        else if (b_nan)
            y = b | QUIET;
        else if ((a_inf && b_zero) || (b_inf && a_zero))
            y = QNAN;
        else if (a_inf || b_inf)
            y = {s, EMAX, {MW{1'b0}}};
        else if (a_zero || b_zero)
            y = {s, {(N - 1){1'b0}}};
        else if (er >= EMAX_I)
            y = {s, EMAX, {MW{1'b0}}};
        else
            y = {s, {exp_f, man_f} + {{(N - 2){1'b0}}, inc}};
    end
endmodule
