/* -*- P4_16 -*- */
/*
 * gateway_three_tables.p4 -- a condition on what a table wrote, and
 * mutually exclusive tables (TNA). Written for p4cost's tests; the
 * expected placement is derived by hand from bf-p4c's rules in
 * tests/stages_explain.rs and tests/golden.rs.
 *
 *   classify                 writes ig_md.cls
 *   set_class arm:
 *     if (ig_md.cls == 1)    match dependency on classify (stage 1)
 *       fwd                  keys on hdr.ethernet.dst_addr; with its gateway
 *   default arm:
 *     rw_dst                 writes hdr.ethernet.dst_addr; control
 *                            dependent on classify (stage 0)
 *
 * fwd reads what rw_dst writes, but no packet runs both (exclusive arms
 * of one switch): no dependency between them. bf-p4c builds its graph
 * with a control-flow visitor (FindDataDependencyGraph: what one branch of
 * a next-table map writes does not flow into its sibling branches), and
 * records the exclusion in TablesMutuallyExclusive (mau/table_mutex.h).
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
    action set_dst(bit<48> d) { hdr.ethernet.dst_addr = d; }

    table classify {
        key = { hdr.ethernet.ether_type : exact; }
        actions = { set_class; NoAction; }
        const default_action = NoAction;
        size = 64;
    }
    table fwd {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }
    table rw_dst {
        key = { hdr.ethernet.src_addr : exact; }
        actions = { set_dst; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }

    apply {
        switch (classify.apply().action_run) {
            set_class: {
                if (ig_md.cls == 1) {
                    fwd.apply();
                }
            }
            default: {
                rw_dst.apply();
            }
        }
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
