/* -*- P4_16 -*- */
/*
 * container_read.p4 -- reading a header's validity bit that shares a PHV
 * container with another header's validity bit a table wrote (TNA).
 * Written for p4cost's tests; the expected placement is derived by hand
 * from bf-p4c's rules in tests/stages_explain.rs and tests/golden.rs.
 *
 * bf-p4c's dependency graph compares fields (FindDataDependencyGraph,
 * mau/table_dependency_graph.cpp): only two tables WRITING fields of one
 * container conflict (`container_conflicts`, kept one stage apart by
 * table placement). A table reading hdr.ipv4.$valid after one that wrote
 * hdr.vlan.$valid has no dependency, so it is not moved; the assembler's
 * container comparison can still make the stage it sits in match
 * dependent.
 *
 *   classify  key ether_type, writes ig_md.cls                 stage 0
 *   tag       key ingress_port, writes hdr.vlan.$valid, vid    stage 0
 *   route     key hdr.ipv4.$valid, dst_addr: reads a field no
 *             earlier table writes (hdr.vlan.$valid is another
 *             field of its container): no dependency            stage 0
 *   mark      action reads ig_md.cls (classify, stage 0): an
 *             action dependency                                 stage 1
 *             its key reads hdr.ethernet.$valid, in the container
 *             tag (stage 0) wrote: stage 1 is match dependent
 *
 * Cycles (Tofino 1, docs/models.md "Stage lengths and latency"): exact
 * tables only, so every group is 20 cycles: stage 0 (match) 20, stage 1
 * (match, the container read) 20, stages 2-5 concurrent 4 x 1, stage 6
 * (the corner, always match dependent) 20, stages 7-11 5 x 1, corner
 * turn 4: 20 + 20 + 4 + 20 + 5 + 4 = 73. Egress is empty: 187.
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

header ipv4_h {
    bit<8>  version_ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<32> misc;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
    ipv4_h     ipv4;
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
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
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
    action push_tag(bit<12> vid) {
        hdr.vlan.setValid();
        hdr.vlan.vid = vid;
    }
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action set_src(bit<48> s) { hdr.ethernet.src_addr = s + (bit<48>)ig_md.cls; }

    table classify {
        key = { hdr.ethernet.ether_type : exact; }
        actions = { set_class; NoAction; }
        const default_action = NoAction;
        size = 64;
    }
    table tag {
        key = { ig_intr_md.ingress_port : exact; }
        actions = { push_tag; NoAction; }
        const default_action = NoAction;
        size = 256;
    }
    table route {
        key = {
            hdr.ipv4.isValid() : exact;
            hdr.ipv4.dst_addr  : exact;
        }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }
    table mark {
        key = { hdr.ethernet.isValid() : exact; }
        actions = { set_src; NoAction; }
        const default_action = NoAction;
        size = 2;
    }

    apply {
        classify.apply();
        tag.apply();
        route.apply();
        mark.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
