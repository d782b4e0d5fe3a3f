/* -*- P4_16 -*- */
/*
 * ternary_tables.p4 -- five independent ternary tables in ingress
 * (i1..i5) and five in egress (e1..e5), TNA. Written for p4cost's tests
 * (tests/shared_stages.rs): a Tofino 1 stage has 8 ternary logical tables
 * (of its 16), so each gress alone fits stage 0 (5 <= 8) and both together
 * do not (10 > 8). Ingress and egress share the stages (bf-p4c places both
 * gresses in the same 12 stages): i1..i5 and e1..e3 fill stage 0's 8, and
 * e4, e5 go to stage 1, pushed there by ingress's use of stage 0. Memory is
 * not the limit: 256 entries of a 48-bit key (6 bytes, 2 TCAM blocks of 44
 * bits wide, 512 entries deep) take 2 TCAM blocks, 16 of a stage's 24 for
 * the 8 tables of stage 0, and no SRAM (NoAction: no action data). No table
 * writes anything: no dependency orders them.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct header_t {
    ethernet_h ethernet;
}

struct ingress_metadata_t {}
struct egress_metadata_t {}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control IgDeparser(packet_out pkt, inout header_t hdr, in ingress_metadata_t ig_md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

parser EgParser(packet_in pkt, out header_t hdr, out egress_metadata_t eg_md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgDeparser(packet_out pkt, inout header_t hdr, in egress_metadata_t eg_md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

control Ig(inout header_t hdr, inout ingress_metadata_t ig_md,
           in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    table i1 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table i2 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table i3 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table i4 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table i5 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }

    apply {
        i1.apply();
        i2.apply();
        i3.apply();
        i4.apply();
        i5.apply();
    }
}

control Eg(inout header_t hdr, inout egress_metadata_t eg_md,
           in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    table e1 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table e2 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table e3 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table e4 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table e5 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }

    apply {
        e1.apply();
        e2.apply();
        e3.apply();
        e4.apply();
        e5.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
