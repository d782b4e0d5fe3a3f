/* -*- P4_16 -*- */
/*
 * action_data_fills.p4 -- a chain of twelve match-dependent tables c0-c11
 * (each on what the one before wrote, a 16-bit key: 4 ways of one SRAM
 * block each: stages 0-11
 * of a Tofino 1, what the chip has) and one independent table `wide` of
 * 65,536 entries with 512 bits of action data: 65,536 x 512 / (1,024 x
 * 128) = 256 SRAM blocks of action data beside its match entries. The
 * placement takes c0 first (the longest chain below it), then `wide`,
 * which its dependencies allow in stage 0: with its action data it fills
 * stages 0-2 (80 blocks a stage) and c1 finds stages 1 and 2 full, so the
 * chain would end in stage 13. Every stage together holds 960 blocks and
 * the program needs about 300, and counting match entries only `wide` fits
 * in stage 0 beside c0: the estimate reports that placement, with a
 * caveat saying what the full count needed (tests/resources.rs,
 * action_data_overflow_is_a_caveat_when_the_pipe_holds_it).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<16> x0; bit<16> x1; bit<16> x2; bit<16> x3; bit<16> x4; bit<16> x5; bit<16> x6; bit<16> x7; bit<16> x8; bit<16> x9; bit<16> x10; bit<16> x11; bit<512> wide_data; }
struct emd_t {}

parser IgParser(packet_in pkt, out header_t hdr, out md_t md,
                out ingress_intrinsic_metadata_t ig) {
    state start {
        pkt.extract(ig);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ty) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
    action set_x0(bit<16> v) { md.x0 = v; }
    table c0 { key = { hdr.ipv4.dst : exact; } actions = { set_x0; NoAction; } size = 1024; }
    action set_x1(bit<16> v) { md.x1 = v; }
    table c1 { key = { md.x0 : exact; } actions = { set_x1; NoAction; } size = 1024; }
    action set_x2(bit<16> v) { md.x2 = v; }
    table c2 { key = { md.x1 : exact; } actions = { set_x2; NoAction; } size = 1024; }
    action set_x3(bit<16> v) { md.x3 = v; }
    table c3 { key = { md.x2 : exact; } actions = { set_x3; NoAction; } size = 1024; }
    action set_x4(bit<16> v) { md.x4 = v; }
    table c4 { key = { md.x3 : exact; } actions = { set_x4; NoAction; } size = 1024; }
    action set_x5(bit<16> v) { md.x5 = v; }
    table c5 { key = { md.x4 : exact; } actions = { set_x5; NoAction; } size = 1024; }
    action set_x6(bit<16> v) { md.x6 = v; }
    table c6 { key = { md.x5 : exact; } actions = { set_x6; NoAction; } size = 1024; }
    action set_x7(bit<16> v) { md.x7 = v; }
    table c7 { key = { md.x6 : exact; } actions = { set_x7; NoAction; } size = 1024; }
    action set_x8(bit<16> v) { md.x8 = v; }
    table c8 { key = { md.x7 : exact; } actions = { set_x8; NoAction; } size = 1024; }
    action set_x9(bit<16> v) { md.x9 = v; }
    table c9 { key = { md.x8 : exact; } actions = { set_x9; NoAction; } size = 1024; }
    action set_x10(bit<16> v) { md.x10 = v; }
    table c10 { key = { md.x9 : exact; } actions = { set_x10; NoAction; } size = 1024; }
    action set_x11(bit<16> v) { md.x11 = v; }
    table c11 { key = { md.x10 : exact; } actions = { set_x11; NoAction; } size = 1024; }
    action set_wide(bit<512> d) { md.wide_data = d; }
    table wide {
        key = { hdr.ipv4.src : exact; }
        actions = { set_wide; NoAction; }
        size = 65536;
    }
    apply {
        c0.apply();
        wide.apply();
        c1.apply();
        c2.apply();
        c3.apply();
        c4.apply();
        c5.apply();
        c6.apply();
        c7.apply();
        c8.apply();
        c9.apply();
        c10.apply();
        c11.apply();
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }
control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }
control ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(), Ig(), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
