/* -*- P4_16 -*- */
/*
 * pipe_sram_two_gresses.p4 -- pipe_sram_overflow.p4's four tables of
 * 200,000 entries and 128 bits of action data (262 SRAM blocks each),
 * two in ingress and two in egress: each gress's 524 blocks fit in 7
 * of a Tofino 1's 12 stages of 80 blocks, the pipe's 1,048 do not fit
 * its 960 (ingress and egress share the stages' memories). `resources`
 * and `check` say so, naming the four tables (tests/sarif.rs).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<128> a; bit<128> b; bit<128> c; bit<128> d; }

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
    action set_a(bit<128> v) { md.a = v; }
    action set_b(bit<128> v) { md.b = v; }
    table by_src { key = { hdr.ipv4.src : exact; } actions = { set_a; NoAction; } size = 200000; }
    table by_dst { key = { hdr.ipv4.dst : exact; } actions = { set_b; NoAction; } size = 200000; }
    apply {
        by_src.apply();
        by_dst.apply();
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out md_t md, out egress_intrinsic_metadata_t eg) {
    state start {
        pkt.extract(eg);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ty) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}
control Eg(inout header_t hdr, inout md_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) {
    action set_c(bit<128> v) { md.c = v; }
    action set_d(bit<128> v) { md.d = v; }
    table by_id { key = { hdr.ipv4.id : exact; hdr.ipv4.len : exact; } actions = { set_c; NoAction; } size = 200000; }
    table by_mac { key = { hdr.ethernet.src[31:0] : exact; } actions = { set_d; NoAction; } size = 200000; }
    apply {
        by_id.apply();
        by_mac.apply();
    }
}
control ED(packet_out pkt, inout header_t hdr, in md_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(), Ig(), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
