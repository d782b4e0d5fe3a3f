/* -*- P4_16 -*- */
/*
 * stage_full.p4 -- nine independent ternary tables (TNA). Written for
 * p4cost's tests (tests/stages_explain.rs): a Tofino 1 stage has 8 ternary
 * logical tables, so t1..t8 share stage 0 and t9, which depends on
 * nothing, goes to stage 1 for want of room (`stages --explain` says so).
 * They write nothing, so no dependency orders them.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_h {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
}

struct ingress_metadata_t {
    bit<8> cls;
}

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

struct egress_metadata_t {}

parser EgParser(packet_in pkt, out header_t hdr, out egress_metadata_t eg_md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

control Eg(inout header_t hdr, inout egress_metadata_t eg_md,
           in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
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

    table t1 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t2 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t3 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t4 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t5 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t6 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t7 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t8 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table t9 {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 256;
    }

    apply {
        t1.apply();
        t2.apply();
        t3.apply();
        t4.apply();
        t5.apply();
        t6.apply();
        t7.apply();
        t8.apply();
        t9.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
