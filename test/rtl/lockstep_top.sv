// Test-only wrapper for make rtl-check: the AgLU, a K-input CGR, two
// communicator tables, a collector and a collective engine side by side in
// one Verilator model, so one harness drives them all.  CT a has u280.conf's bounds (32 rows, MAX_R 64K); CT b
// fewer rows and a small MAX_R, so that the harness reaches ct.c's range
// and size refusals.
module lockstep_top #(
    parameter int DATA_BYTES = 64,
    parameter int K = 4,
    parameter int CT_A_ROWS = 32,         // test/rtl/lockstep_ct.cpp has the same four
    parameter int CT_A_MAX_RANKS = 65536,
    parameter int CT_B_ROWS = 20,
    parameter int CT_B_MAX_RANKS = 300,
    parameter int COLL_SLOTS = 8,         // test/rtl/lockstep_coll.cpp has the same two
    parameter int COLL_PARK_BEATS = 512,
    parameter int ENGINE_HOSTS = 4        // test/rtl/lockstep_engine.h's kEngHosts
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
    output logic                      cgr_m_terror,
    // mf_ct a
    input  logic                      cta_s_tvalid,
    output logic                      cta_s_tready,
    input  logic [63:0]               cta_s_tdata,
    input  logic [7:0]                cta_s_tkeep,
    input  logic                      cta_s_tlast,
    input  logic [31:0]               cta_row_busy,
    output logic                      cta_st_valid,
    output logic [3:0]                cta_st_code,
    output logic [4:0]                cta_st_ctx,
    output logic [3:0]                cta_st_opcode,
    input  logic                      cta_lk_req,
    input  logic [4:0]                cta_lk_ctx,
    input  logic [1:0]                cta_lk_set,
    input  logic [3:0]                cta_lk_level,
    output logic                      cta_lk_valid,
    output logic                      cta_lk_hit,
    output logic [15:0]               cta_lk_size,
    output logic [15:0]               cta_lk_rank,
    output logic [4:0]                cta_lk_levels,
    output logic [4:0]                cta_lk_pof2_levels,
    output logic                      cta_lk_ident,
    output logic [15:0]               cta_lk_fold,
    output logic [15:0]               cta_lk_global0,
    output logic [15:0]               cta_lk_partner,
    // mf_ct b
    input  logic                      ctb_s_tvalid,
    output logic                      ctb_s_tready,
    input  logic [63:0]               ctb_s_tdata,
    input  logic [7:0]                ctb_s_tkeep,
    input  logic                      ctb_s_tlast,
    input  logic [31:0]               ctb_row_busy,
    output logic                      ctb_st_valid,
    output logic [3:0]                ctb_st_code,
    output logic [4:0]                ctb_st_ctx,
    output logic [3:0]                ctb_st_opcode,
    input  logic                      ctb_lk_req,
    input  logic [4:0]                ctb_lk_ctx,
    input  logic [1:0]                ctb_lk_set,
    input  logic [3:0]                ctb_lk_level,
    output logic                      ctb_lk_valid,
    output logic                      ctb_lk_hit,
    output logic [15:0]               ctb_lk_size,
    output logic [15:0]               ctb_lk_rank,
    output logic [4:0]                ctb_lk_levels,
    output logic [4:0]                ctb_lk_pof2_levels,
    output logic                      ctb_lk_ident,
    output logic [15:0]               ctb_lk_fold,
    output logic [15:0]               ctb_lk_global0,
    output logic [15:0]               ctb_lk_partner,
    // mf_collector
    input  logic                      coll_s_tvalid,
    output logic                      coll_s_tready,
    input  logic [63:0]               coll_s_tdata,
    input  logic [7:0]                coll_s_tkeep,
    input  logic                      coll_s_tlast,
    input  logic                      coll_cfg_valid,
    output logic                      coll_cfg_ready,
    input  logic [$clog2(COLL_SLOTS)-1:0] coll_cfg_slot,
    input  logic [4:0]                coll_cfg_ctx,
    input  logic [4:0]                coll_cfg_tag,
    output logic                      coll_m_tvalid,
    input  logic                      coll_m_tready,
    output logic [63:0]               coll_m_tdata,
    output logic [7:0]                coll_m_tkeep,
    output logic                      coll_m_tlast,
    output logic [$clog2(COLL_SLOTS)-1:0] coll_m_tslot,
    output logic [COLL_SLOTS-1:0]     coll_slot_open,
    output logic [$clog2(COLL_PARK_BEATS):0] coll_park_pkts,
    output logic                      coll_replaying,
    // mf_engine: host port h's stream at bits [h*64 +: 64] (tkeep [h*8 +: 8])
    input  logic [ENGINE_HOSTS-1:0]    engine_s_h2c_tvalid,
    output logic [ENGINE_HOSTS-1:0]    engine_s_h2c_tready,
    input  logic [ENGINE_HOSTS*64-1:0] engine_s_h2c_tdata,
    input  logic [ENGINE_HOSTS*8-1:0]  engine_s_h2c_tkeep,
    input  logic [ENGINE_HOSTS-1:0]    engine_s_h2c_tlast,
    output logic [ENGINE_HOSTS-1:0]    engine_m_c2h_tvalid,
    input  logic [ENGINE_HOSTS-1:0]    engine_m_c2h_tready,
    output logic [ENGINE_HOSTS*64-1:0] engine_m_c2h_tdata,
    output logic [ENGINE_HOSTS*8-1:0]  engine_m_c2h_tkeep,
    output logic [ENGINE_HOSTS-1:0]    engine_m_c2h_tlast
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

    mf_ct #(.CT_ENTRIES(CT_A_ROWS), .MAX_RANKS(CT_A_MAX_RANKS)) u_cta (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(cta_s_tvalid), .s_tready(cta_s_tready), .s_tdata(cta_s_tdata),
        .s_tkeep(cta_s_tkeep), .s_tlast(cta_s_tlast), .row_busy(cta_row_busy),
        .st_valid(cta_st_valid), .st_code(cta_st_code), .st_ctx(cta_st_ctx),
        .st_opcode(cta_st_opcode),
        .lk_req(cta_lk_req), .lk_ctx(cta_lk_ctx), .lk_set(cta_lk_set),
        .lk_level(cta_lk_level), .lk_valid(cta_lk_valid), .lk_hit(cta_lk_hit),
        .lk_size(cta_lk_size), .lk_rank(cta_lk_rank), .lk_levels(cta_lk_levels),
        .lk_pof2_levels(cta_lk_pof2_levels), .lk_ident(cta_lk_ident),
        .lk_fold(cta_lk_fold), .lk_global0(cta_lk_global0),
        .lk_partner(cta_lk_partner));

    // CT b's rows past CT_B_ROWS have no busy input
    logic unused_busy_b;
    assign unused_busy_b = |ctb_row_busy[31:CT_B_ROWS];

    mf_ct #(.CT_ENTRIES(CT_B_ROWS), .MAX_RANKS(CT_B_MAX_RANKS)) u_ctb (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(ctb_s_tvalid), .s_tready(ctb_s_tready), .s_tdata(ctb_s_tdata),
        .s_tkeep(ctb_s_tkeep), .s_tlast(ctb_s_tlast), .row_busy(ctb_row_busy[CT_B_ROWS-1:0]),
        .st_valid(ctb_st_valid), .st_code(ctb_st_code), .st_ctx(ctb_st_ctx),
        .st_opcode(ctb_st_opcode),
        .lk_req(ctb_lk_req), .lk_ctx(ctb_lk_ctx), .lk_set(ctb_lk_set),
        .lk_level(ctb_lk_level), .lk_valid(ctb_lk_valid), .lk_hit(ctb_lk_hit),
        .lk_size(ctb_lk_size), .lk_rank(ctb_lk_rank), .lk_levels(ctb_lk_levels),
        .lk_pof2_levels(ctb_lk_pof2_levels), .lk_ident(ctb_lk_ident),
        .lk_fold(ctb_lk_fold), .lk_global0(ctb_lk_global0),
        .lk_partner(ctb_lk_partner));

    mf_collector #(.SLOTS(COLL_SLOTS), .PARK_BEATS(COLL_PARK_BEATS)) u_coll (
        .clk(clk), .rst_n(rst_n),
        .s_tvalid(coll_s_tvalid), .s_tready(coll_s_tready), .s_tdata(coll_s_tdata),
        .s_tkeep(coll_s_tkeep), .s_tlast(coll_s_tlast),
        .cfg_valid(coll_cfg_valid), .cfg_ready(coll_cfg_ready), .cfg_slot(coll_cfg_slot),
        .cfg_ctx(coll_cfg_ctx), .cfg_tag(coll_cfg_tag),
        .m_tvalid(coll_m_tvalid), .m_tready(coll_m_tready), .m_tdata(coll_m_tdata),
        .m_tkeep(coll_m_tkeep), .m_tlast(coll_m_tlast), .m_tslot(coll_m_tslot),
        .slot_open(coll_slot_open), .park_pkts(coll_park_pkts), .replaying(coll_replaying));

    mf_engine #(.NHOST(ENGINE_HOSTS)) u_engine (
        .clk(clk), .rst_n(rst_n),
        .s_h2c_tvalid(engine_s_h2c_tvalid), .s_h2c_tready(engine_s_h2c_tready),
        .s_h2c_tdata(engine_s_h2c_tdata), .s_h2c_tkeep(engine_s_h2c_tkeep),
        .s_h2c_tlast(engine_s_h2c_tlast),
        .m_c2h_tvalid(engine_m_c2h_tvalid), .m_c2h_tready(engine_m_c2h_tready),
        .m_c2h_tdata(engine_m_c2h_tdata), .m_c2h_tkeep(engine_m_c2h_tkeep),
        .m_c2h_tlast(engine_m_c2h_tlast));
endmodule
