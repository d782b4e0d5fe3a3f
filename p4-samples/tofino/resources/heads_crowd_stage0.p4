/* -*- P4_16 -*- */
/*
 * heads_crowd_stage0.p4 -- seventeen small exact tables h0-h16 that depend
 * on nothing, then c1, which matches on what all seventeen wrote, then a
 * chain c2 -> ... -> c11, each matching on what the one before wrote.
 * c1 to c11 need stages 1-11 (a match dependency each), so every h must
 * be in stage 0, whose 16 logical table IDs hold sixteen of them: no
 * packing fits, although the pipe's 12 x 16 IDs hold the program's 28
 * tables and its chain (12 stages) fits the chip. It does not fit
 * (tests/resources.rs, crowded_stage_does_not_fit); an 8-bit key takes
 * one hash way (10 of a stage's 416 hash bits), so logical tables are the
 * resource that runs out.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<8> h0; bit<8> h1; bit<8> h2; bit<8> h3; bit<8> h4; bit<8> h5; bit<8> h6; bit<8> h7; bit<8> h8; bit<8> h9; bit<8> h10; bit<8> h11; bit<8> h12; bit<8> h13; bit<8> h14; bit<8> h15; bit<8> h16; bit<8> x1; bit<8> x2; bit<8> x3; bit<8> x4; bit<8> x5; bit<8> x6; bit<8> x7; bit<8> x8; bit<8> x9; bit<8> x10; bit<8> x11; }
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
    action set_h0(bit<8> v) { md.h0 = v; }
    table h0 { key = { hdr.ipv4.ttl : exact; } actions = { set_h0; NoAction; } size = 256; }
    action set_h1(bit<8> v) { md.h1 = v; }
    table h1 { key = { hdr.ipv4.ttl : exact; } actions = { set_h1; NoAction; } size = 256; }
    action set_h2(bit<8> v) { md.h2 = v; }
    table h2 { key = { hdr.ipv4.ttl : exact; } actions = { set_h2; NoAction; } size = 256; }
    action set_h3(bit<8> v) { md.h3 = v; }
    table h3 { key = { hdr.ipv4.ttl : exact; } actions = { set_h3; NoAction; } size = 256; }
    action set_h4(bit<8> v) { md.h4 = v; }
    table h4 { key = { hdr.ipv4.ttl : exact; } actions = { set_h4; NoAction; } size = 256; }
    action set_h5(bit<8> v) { md.h5 = v; }
    table h5 { key = { hdr.ipv4.ttl : exact; } actions = { set_h5; NoAction; } size = 256; }
    action set_h6(bit<8> v) { md.h6 = v; }
    table h6 { key = { hdr.ipv4.ttl : exact; } actions = { set_h6; NoAction; } size = 256; }
    action set_h7(bit<8> v) { md.h7 = v; }
    table h7 { key = { hdr.ipv4.ttl : exact; } actions = { set_h7; NoAction; } size = 256; }
    action set_h8(bit<8> v) { md.h8 = v; }
    table h8 { key = { hdr.ipv4.ttl : exact; } actions = { set_h8; NoAction; } size = 256; }
    action set_h9(bit<8> v) { md.h9 = v; }
    table h9 { key = { hdr.ipv4.ttl : exact; } actions = { set_h9; NoAction; } size = 256; }
    action set_h10(bit<8> v) { md.h10 = v; }
    table h10 { key = { hdr.ipv4.ttl : exact; } actions = { set_h10; NoAction; } size = 256; }
    action set_h11(bit<8> v) { md.h11 = v; }
    table h11 { key = { hdr.ipv4.ttl : exact; } actions = { set_h11; NoAction; } size = 256; }
    action set_h12(bit<8> v) { md.h12 = v; }
    table h12 { key = { hdr.ipv4.ttl : exact; } actions = { set_h12; NoAction; } size = 256; }
    action set_h13(bit<8> v) { md.h13 = v; }
    table h13 { key = { hdr.ipv4.ttl : exact; } actions = { set_h13; NoAction; } size = 256; }
    action set_h14(bit<8> v) { md.h14 = v; }
    table h14 { key = { hdr.ipv4.ttl : exact; } actions = { set_h14; NoAction; } size = 256; }
    action set_h15(bit<8> v) { md.h15 = v; }
    table h15 { key = { hdr.ipv4.ttl : exact; } actions = { set_h15; NoAction; } size = 256; }
    action set_h16(bit<8> v) { md.h16 = v; }
    table h16 { key = { hdr.ipv4.ttl : exact; } actions = { set_h16; NoAction; } size = 256; }
    action set_x1(bit<8> v) { md.x1 = v; }
    table c1 { key = { md.h0 : exact; md.h1 : exact; md.h2 : exact; md.h3 : exact; md.h4 : exact; md.h5 : exact; md.h6 : exact; md.h7 : exact; md.h8 : exact; md.h9 : exact; md.h10 : exact; md.h11 : exact; md.h12 : exact; md.h13 : exact; md.h14 : exact; md.h15 : exact; md.h16 : exact; } actions = { set_x1; NoAction; } size = 256; }
    action set_x2(bit<8> v) { md.x2 = v; }
    table c2 { key = { md.x1 : exact; } actions = { set_x2; NoAction; } size = 256; }
    action set_x3(bit<8> v) { md.x3 = v; }
    table c3 { key = { md.x2 : exact; } actions = { set_x3; NoAction; } size = 256; }
    action set_x4(bit<8> v) { md.x4 = v; }
    table c4 { key = { md.x3 : exact; } actions = { set_x4; NoAction; } size = 256; }
    action set_x5(bit<8> v) { md.x5 = v; }
    table c5 { key = { md.x4 : exact; } actions = { set_x5; NoAction; } size = 256; }
    action set_x6(bit<8> v) { md.x6 = v; }
    table c6 { key = { md.x5 : exact; } actions = { set_x6; NoAction; } size = 256; }
    action set_x7(bit<8> v) { md.x7 = v; }
    table c7 { key = { md.x6 : exact; } actions = { set_x7; NoAction; } size = 256; }
    action set_x8(bit<8> v) { md.x8 = v; }
    table c8 { key = { md.x7 : exact; } actions = { set_x8; NoAction; } size = 256; }
    action set_x9(bit<8> v) { md.x9 = v; }
    table c9 { key = { md.x8 : exact; } actions = { set_x9; NoAction; } size = 256; }
    action set_x10(bit<8> v) { md.x10 = v; }
    table c10 { key = { md.x9 : exact; } actions = { set_x10; NoAction; } size = 256; }
    action set_x11(bit<8> v) { md.x11 = v; }
    table c11 { key = { md.x10 : exact; } actions = { set_x11; NoAction; } size = 256; }
    apply {
        h0.apply();
        h1.apply();
        h2.apply();
        h3.apply();
        h4.apply();
        h5.apply();
        h6.apply();
        h7.apply();
        h8.apply();
        h9.apply();
        h10.apply();
        h11.apply();
        h12.apply();
        h13.apply();
        h14.apply();
        h15.apply();
        h16.apply();
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
