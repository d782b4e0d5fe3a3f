/* -*- P4_16 -*- */
/*
 * set_validity.p4 -- setValid/setInvalid decide later validity tests (TNA).
 * Written for p4cost's tests; the classes below are derived by hand in
 * tests/classes.rs.
 *
 * Parse paths: ethernet; ethernet -> vlan.
 * Ingress:
 *   if (!vlan valid) hdr.vlan.setValid();   vlan valid afterwards either way
 *   if (vlan valid)  vlan_map.apply();      so always applied
 *   strip.apply();                          its only action pops the tag:
 *   if (vlan valid)  never.apply();         so never applied
 *   tag.apply();                            push_tag or NoAction: unknown
 *   if (vlan valid)  maybe.apply();         so both ways
 *
 * Classes: 2 per path (maybe applied or not): 4 in all.
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
    bit<8> unused;
}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition accept;
    }
}

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action pop_tag() {
        hdr.ethernet.ether_type = hdr.vlan.ether_type;
        hdr.vlan.setInvalid();
    }
    action push_tag(bit<12> vid) {
        hdr.vlan.setValid();
        hdr.vlan.vid = vid;
    }

    table vlan_map {
        key = { hdr.vlan.vid : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table strip {
        key = { ig_intr_md.ingress_port : exact; }
        actions = { pop_tag; }
        default_action = pop_tag();
        size = 512;
    }
    table never {
        key = { hdr.vlan.vid : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table tag {
        key = { ig_intr_md.ingress_port : exact; }
        actions = { push_tag; NoAction; }
        default_action = NoAction();
        size = 512;
    }
    table maybe {
        key = { hdr.vlan.vid : exact; }
        actions = { set_port; }
        size = 4096;
    }

    apply {
        if (!hdr.vlan.isValid()) {
            hdr.vlan.setValid();
        }
        if (hdr.vlan.isValid()) {
            vlan_map.apply();
        }
        strip.apply();
        if (hdr.vlan.isValid()) {
            never.apply();
        }
        tag.apply();
        if (hdr.vlan.isValid()) {
            maybe.apply();
        }
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

control Egress(inout header_t hdr, inout egress_metadata_t eg_md,
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

Pipeline(IgParser(), Ingress(), IgDeparser(), EgParser(), Egress(), EgDeparser()) pipe;
Switch(pipe) main;
