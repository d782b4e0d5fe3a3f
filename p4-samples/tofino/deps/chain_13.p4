/* -*- P4_16 -*- */
/*
 * chain_13.p4 -- a chain of 13 match dependencies (TNA): table t(i) keys
 * on the field t(i-1) sets, after an apply-block assignment that sets the
 * first key. It needs 14 match-dependent stages and cannot fit the 12 of
 * a Tofino 1: p4cost must say so and name the chain (tests/deps_stages.rs).
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
    bit<8> f0;
    bit<8> f1;
    bit<8> f2;
    bit<8> f3;
    bit<8> f4;
    bit<8> f5;
    bit<8> f6;
    bit<8> f7;
    bit<8> f8;
    bit<8> f9;
    bit<8> f10;
    bit<8> f11;
    bit<8> f12;
    bit<8> f13;
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
    action set_f1(bit<8> v) { ig_md.f1 = v; }
    table t0 {
        key = { ig_md.f0 : exact; }
        actions = { set_f1; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f2(bit<8> v) { ig_md.f2 = v; }
    table t1 {
        key = { ig_md.f1 : exact; }
        actions = { set_f2; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f3(bit<8> v) { ig_md.f3 = v; }
    table t2 {
        key = { ig_md.f2 : exact; }
        actions = { set_f3; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f4(bit<8> v) { ig_md.f4 = v; }
    table t3 {
        key = { ig_md.f3 : exact; }
        actions = { set_f4; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f5(bit<8> v) { ig_md.f5 = v; }
    table t4 {
        key = { ig_md.f4 : exact; }
        actions = { set_f5; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f6(bit<8> v) { ig_md.f6 = v; }
    table t5 {
        key = { ig_md.f5 : exact; }
        actions = { set_f6; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f7(bit<8> v) { ig_md.f7 = v; }
    table t6 {
        key = { ig_md.f6 : exact; }
        actions = { set_f7; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f8(bit<8> v) { ig_md.f8 = v; }
    table t7 {
        key = { ig_md.f7 : exact; }
        actions = { set_f8; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f9(bit<8> v) { ig_md.f9 = v; }
    table t8 {
        key = { ig_md.f8 : exact; }
        actions = { set_f9; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f10(bit<8> v) { ig_md.f10 = v; }
    table t9 {
        key = { ig_md.f9 : exact; }
        actions = { set_f10; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f11(bit<8> v) { ig_md.f11 = v; }
    table t10 {
        key = { ig_md.f10 : exact; }
        actions = { set_f11; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f12(bit<8> v) { ig_md.f12 = v; }
    table t11 {
        key = { ig_md.f11 : exact; }
        actions = { set_f12; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    action set_f13(bit<8> v) { ig_md.f13 = v; }
    table t12 {
        key = { ig_md.f12 : exact; }
        actions = { set_f13; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    apply {
        ig_md.f0 = hdr.ethernet.ether_type[7:0];
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
        t11.apply();
        t12.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
