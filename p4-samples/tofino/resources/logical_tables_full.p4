/* -*- P4_16 -*- */
/*
 * logical_tables_full.p4 -- sixteen small exact tables s0-s15 that depend
 * on nothing (an 8-bit key: one hash way each, 16 x 10 of a stage's 416
 * hash bits), then a chain of twelve, c0 -> ... -> c11, each matching on
 * what the one before wrote. The chain alone takes stages 0-11 of a
 * Tofino 1. In control-flow order s0-s15 would take stage 0's 16 logical
 * table IDs and push c11 to stage 12; the compiler places the table with
 * the longest chain below it first, so c0 takes stage 0 beside s0-s14 and
 * s15 goes to stage 1: it fits (tests/resources.rs,
 * full_stages_name_the_resource; on Tofino 2, explain_names_the_full_stage).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<8> x0; bit<8> x1; bit<8> x2; bit<8> x3; bit<8> x4; bit<8> x5; bit<8> x6; bit<8> x7; bit<8> x8; bit<8> x9; bit<8> x10; bit<8> x11; }
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
    table s0 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s1 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s2 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s3 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s4 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s5 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s6 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s7 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s8 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s9 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s10 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s11 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s12 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s13 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s14 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    table s15 { key = { hdr.ipv4.ttl : exact; } actions = { NoAction; } size = 1024; }
    action set_x0(bit<8> v) { md.x0 = v; }
    table c0 { key = { hdr.ipv4.dst : exact; } actions = { set_x0; NoAction; } size = 1024; }
    action set_x1(bit<8> v) { md.x1 = v; }
    table c1 { key = { md.x0 : exact; } actions = { set_x1; NoAction; } size = 1024; }
    action set_x2(bit<8> v) { md.x2 = v; }
    table c2 { key = { md.x1 : exact; } actions = { set_x2; NoAction; } size = 1024; }
    action set_x3(bit<8> v) { md.x3 = v; }
    table c3 { key = { md.x2 : exact; } actions = { set_x3; NoAction; } size = 1024; }
    action set_x4(bit<8> v) { md.x4 = v; }
    table c4 { key = { md.x3 : exact; } actions = { set_x4; NoAction; } size = 1024; }
    action set_x5(bit<8> v) { md.x5 = v; }
    table c5 { key = { md.x4 : exact; } actions = { set_x5; NoAction; } size = 1024; }
    action set_x6(bit<8> v) { md.x6 = v; }
    table c6 { key = { md.x5 : exact; } actions = { set_x6; NoAction; } size = 1024; }
    action set_x7(bit<8> v) { md.x7 = v; }
    table c7 { key = { md.x6 : exact; } actions = { set_x7; NoAction; } size = 1024; }
    action set_x8(bit<8> v) { md.x8 = v; }
    table c8 { key = { md.x7 : exact; } actions = { set_x8; NoAction; } size = 1024; }
    action set_x9(bit<8> v) { md.x9 = v; }
    table c9 { key = { md.x8 : exact; } actions = { set_x9; NoAction; } size = 1024; }
    action set_x10(bit<8> v) { md.x10 = v; }
    table c10 { key = { md.x9 : exact; } actions = { set_x10; NoAction; } size = 1024; }
    action set_x11(bit<8> v) { md.x11 = v; }
    table c11 { key = { md.x10 : exact; } actions = { set_x11; NoAction; } size = 1024; }
    apply {
        s0.apply();
        s1.apply();
        s2.apply();
        s3.apply();
        s4.apply();
        s5.apply();
        s6.apply();
        s7.apply();
        s8.apply();
        s9.apply();
        s10.apply();
        s11.apply();
        s12.apply();
        s13.apply();
        s14.apply();
        s15.apply();
        c0.apply();
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
