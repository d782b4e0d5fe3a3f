/* -*- P4_16 -*- */
/*
 * dep_kinds.p4 -- one instance of each table dependency kind (TNA).
 * Written for p4cost's tests; the expected graph, placement and cycles
 * are derived by hand in tests/deps_stages.rs.
 *
 *   classify -> by_class        match   (key reads ig_md.cls, set by classify)
 *   tag -> if (vlan valid)      match   (tag's action sets hdr.vlan valid)
 *   if (vlan valid) -> vlan_fwd control (applied on the true branch)
 *   tag -> vlan_fwd             match   (key reads hdr.vlan.vid, set by tag)
 *   by_class -> override_port   action  (both write ucast_egress_port)
 *   tag -> rewrite_src          reverse read (tag keys on src_addr, rewrite_src writes it)
 *   acl -> fallback             control (applied on acl's miss)
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

    action set_class(bit<8> c) { ig_md.cls = c; }
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action push_tag(bit<12> vid) {
        hdr.vlan.setValid();
        hdr.vlan.vid = vid;
    }
    action set_src(bit<48> s) { hdr.ethernet.src_addr = s; }
    action deny() { ig_dprsr_md.drop_ctl = 1; }

    table classify {
        key = { hdr.ethernet.ether_type : exact; }
        actions = { set_class; NoAction; }
        const default_action = NoAction;
        size = 64;
    }
    table by_class {
        key = { ig_md.cls : exact; }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table tag {
        key = { hdr.ethernet.src_addr : exact; }
        actions = { push_tag; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }
    table vlan_fwd {
        key = { hdr.vlan.vid : exact; }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        size = 4096;
    }
    table override_port {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }
    table rewrite_src {
        key = { ig_intr_md.ingress_port : exact; }
        actions = { set_src; NoAction; }
        const default_action = NoAction;
        size = 512;
    }
    table acl {
        key = { ig_intr_md.ingress_port : exact; }
        actions = { deny; NoAction; }
        const default_action = NoAction;
        size = 512;
    }
    table fallback {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { deny; NoAction; }
        const default_action = NoAction;
        size = 512;
    }

    apply {
        classify.apply();
        by_class.apply();
        tag.apply();
        if (hdr.vlan.isValid()) {
            vlan_fwd.apply();
        }
        override_port.apply();
        rewrite_src.apply();
        if (!acl.apply().hit) {
            fallback.apply();
        }
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
