/* -*- P4_16 -*- */
/*
 * mpls_stack8.p4 -- an MPLS label stack of 8 filled by a parser loop (TNA).
 * Written for p4cost's tests; the paths and classes below are derived by
 * hand in tests/classes.rs.
 *
 * Parse paths: ethernet alone, or ethernet then 1 to 8 labels, the last
 * with bottom-of-stack set: 9 paths (a 9th label would overflow the
 * stack: the parser rejects it).
 * Ingress:
 *   if (mpls[0] valid) mpls_fib.apply(); else l2.apply();
 *   if (mpls[7] valid) deep.apply();
 * Classes: one per path (validity decides both tests): ethernet alone
 * applies l2; 1 to 7 labels mpls_fib; 8 labels mpls_fib and deep.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header mpls_h {
    bit<20> label;
    bit<3>  exp;
    bit<1>  bos;
    bit<8>  ttl;
}

struct header_t {
    ethernet_h ethernet;
    mpls_h[8]  mpls;
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
            0x8847: parse_mpls;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: accept;
        }
    }
}

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }

    table mpls_fib {
        key = { hdr.mpls[0].label : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table l2 {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table deep {
        key = { hdr.mpls[7].label : exact; }
        actions = { set_port; }
        size = 256;
    }

    apply {
        if (hdr.mpls[0].isValid()) {
            mpls_fib.apply();
        } else {
            l2.apply();
        }
        if (hdr.mpls[7].isValid()) {
            deep.apply();
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
