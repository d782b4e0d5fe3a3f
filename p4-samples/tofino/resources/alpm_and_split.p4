/* -*- P4_16 -*- */
/*
 * alpm_and_split.p4 -- three independent ingress tables too large for one
 * Tofino 1 stage, or split by the compiler: a 300,000-entry exact table
 * (SRAM over two stages), a 30,720-entry LPM table in TCAM (three
 * stages) and a 30,720-entry ALPM table (a pre-classifier TCAM table,
 * then its ATCAM partitions one stage later, match dependent on it).
 * The expected stages are derived by hand in tests/resources.rs.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<16> vrf; bit<16> a; bit<16> b; bit<16> c; }
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
    action set_a(bit<16> v) { md.a = v; }
    action set_b(bit<16> v) { md.b = v; }
    action set_c(bit<16> v) { md.c = v; }
    Alpm(number_partitions = 1024, subtrees_per_partition = 2) alpm;
    table big_exact {
        key = { hdr.ipv4.src : exact; }
        actions = { set_a; NoAction; }
        size = 300000;
    }
    table routes {
        key = { hdr.ipv4.dst : lpm; }
        actions = { set_b; NoAction; }
        size = 30720;
    }
    table alpm_routes {
        key = { md.vrf : exact; hdr.ipv4.dst : lpm; }
        actions = { set_c; NoAction; }
        size = 30720;
        implementation = alpm;
    }
    apply {
        big_exact.apply();
        routes.apply();
        alpm_routes.apply();
    }
}

control IgDeparser(packet_out pkt, inout header_t hdr, in md_t md,
                   in ingress_intrinsic_metadata_for_deparser_t dp) {
    apply { pkt.emit(hdr); }
}

parser EgParser(packet_in pkt, out header_t hdr, out emd_t md,
                out egress_intrinsic_metadata_t eg) {
    state start { pkt.extract(eg); transition accept; }
}

control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) {
    apply { }
}

control EgDeparser(packet_out pkt, inout header_t hdr, in emd_t md,
                   in egress_intrinsic_metadata_for_deparser_t dp) {
    apply { pkt.emit(hdr); }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
