/* -*- P4_16 -*- */
/*
 * hash_bits_full.p4 -- eleven exact tables of a 32-bit key, no dependency
 * between them (tests/resources.rs, hash_bits_fill_the_stage). Tofino 1:
 * 1,024 entries of 32 + 4 overhead bits, 3 a word, fit one RAM, but an
 * exact table takes at least 4 ways (a 32-bit key is wider than the 10
 * line-select bits, so no identity hash), one RAM each: 4 x 10 = 40 hash
 * bits. A stage has 8 hash groups of 52 bits, 416: ten tables take 400,
 * the eleventh would make 440, so it goes to stage 1 (4 SRAM blocks each,
 * 44 of 80, and 11 of 16 logical tables would have fitted stage 0).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t {
    bit<32> k0; bit<8> o0;
    bit<32> k1; bit<8> o1;
    bit<32> k2; bit<8> o2;
    bit<32> k3; bit<8> o3;
    bit<32> k4; bit<8> o4;
    bit<32> k5; bit<8> o5;
    bit<32> k6; bit<8> o6;
    bit<32> k7; bit<8> o7;
    bit<32> k8; bit<8> o8;
    bit<32> k9; bit<8> o9;
    bit<32> k10; bit<8> o10;
}
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
    action set0(bit<8> v) { md.o0 = v; }
    table t0 { key = { md.k0 : exact; } actions = { set0; } size = 1024; }
    action set1(bit<8> v) { md.o1 = v; }
    table t1 { key = { md.k1 : exact; } actions = { set1; } size = 1024; }
    action set2(bit<8> v) { md.o2 = v; }
    table t2 { key = { md.k2 : exact; } actions = { set2; } size = 1024; }
    action set3(bit<8> v) { md.o3 = v; }
    table t3 { key = { md.k3 : exact; } actions = { set3; } size = 1024; }
    action set4(bit<8> v) { md.o4 = v; }
    table t4 { key = { md.k4 : exact; } actions = { set4; } size = 1024; }
    action set5(bit<8> v) { md.o5 = v; }
    table t5 { key = { md.k5 : exact; } actions = { set5; } size = 1024; }
    action set6(bit<8> v) { md.o6 = v; }
    table t6 { key = { md.k6 : exact; } actions = { set6; } size = 1024; }
    action set7(bit<8> v) { md.o7 = v; }
    table t7 { key = { md.k7 : exact; } actions = { set7; } size = 1024; }
    action set8(bit<8> v) { md.o8 = v; }
    table t8 { key = { md.k8 : exact; } actions = { set8; } size = 1024; }
    action set9(bit<8> v) { md.o9 = v; }
    table t9 { key = { md.k9 : exact; } actions = { set9; } size = 1024; }
    action set10(bit<8> v) { md.o10 = v; }
    table t10 { key = { md.k10 : exact; } actions = { set10; } size = 1024; }
    apply {
        t0.apply();
        t1.apply();
        t2.apply();
        t3.apply();
        t4.apply();
        t5.apply();
        t6.apply();
        t7.apply();
        t8.apply();
        t9.apply();
        t10.apply();
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
