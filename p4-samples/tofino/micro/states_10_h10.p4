/* -*- P4_16 -*- */
/*
 * states_10_h10.p4 -- parser micro-benchmark (Tofino 1, TNA).
 *
 * After Ethernet (EtherType 0x88b5) the parser walks a chain of 10 state(s),
 * each extracting one 10-byte header.  Expected parse path:
 *   --path hdr.h1,hdr.h2,hdr.h3,hdr.h4,hdr.h5,hdr.h6,hdr.h7,hdr.h8,hdr.h9,hdr.h10
 * The ingress control applies no table (it reflects the packet to the
 * paired port), so only the parser/deparser term varies between variants.
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48> mac_addr_t;

/* IEEE 802 local experimental EtherType 1: marks benchmark frames. */
const bit<16> ETHERTYPE_BENCH = 16w0x88b5;

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

/* One 10-byte benchmark header (80 bits). */
header bench10_h {
    bit<16> kind;
    bit<64> value;
}

struct header_t {
    ethernet_h ethernet;
    bench10_h  h1;
    bench10_h  h2;
    bench10_h  h3;
    bench10_h  h4;
    bench10_h  h5;
    bench10_h  h6;
    bench10_h  h7;
    bench10_h  h8;
    bench10_h  h9;
    bench10_h  h10;
}

struct ingress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress
 * --------------------------------------------------------------------- */
parser BenchIngressParser(packet_in pkt,
                         out header_t hdr,
                         out ingress_metadata_t ig_md,
                         out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_BENCH : parse_h1;
            default         : accept;
        }
    }

    state parse_h1 {
        pkt.extract(hdr.h1);
        transition parse_h2;
    }

    state parse_h2 {
        pkt.extract(hdr.h2);
        transition parse_h3;
    }

    state parse_h3 {
        pkt.extract(hdr.h3);
        transition parse_h4;
    }

    state parse_h4 {
        pkt.extract(hdr.h4);
        transition parse_h5;
    }

    state parse_h5 {
        pkt.extract(hdr.h5);
        transition parse_h6;
    }

    state parse_h6 {
        pkt.extract(hdr.h6);
        transition parse_h7;
    }

    state parse_h7 {
        pkt.extract(hdr.h7);
        transition parse_h8;
    }

    state parse_h8 {
        pkt.extract(hdr.h8);
        transition parse_h9;
    }

    state parse_h9 {
        pkt.extract(hdr.h9);
        transition parse_h10;
    }

    state parse_h10 {
        pkt.extract(hdr.h10);
        transition accept;
    }
}

control BenchIngress(inout header_t hdr,
                     inout ingress_metadata_t ig_md,
                     in ingress_intrinsic_metadata_t ig_intr_md,
                     in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                     inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                     inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply {
        /* Ports are cabled in pairs (0-1, 2-3, ...): send back to the peer. */
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port ^ 9w1;
    }
}

control BenchIngressDeparser(packet_out pkt,
                             inout header_t hdr,
                             in ingress_metadata_t ig_md,
                             in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ------------------------------------------------------------------------
 * Egress: pass-through
 * --------------------------------------------------------------------- */
struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

parser BenchEgressParser(packet_in pkt,
                         out egress_header_t hdr,
                         out egress_metadata_t eg_md,
                         out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control BenchEgress(inout egress_header_t hdr,
                    inout egress_metadata_t eg_md,
                    in egress_intrinsic_metadata_t eg_intr_md,
                    in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                    inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                    inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control BenchEgressDeparser(packet_out pkt,
                            inout egress_header_t hdr,
                            in egress_metadata_t eg_md,
                            in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(BenchIngressParser(),
         BenchIngress(),
         BenchIngressDeparser(),
         BenchEgressParser(),
         BenchEgress(),
         BenchEgressDeparser()) pipe;

Switch(pipe) main;
