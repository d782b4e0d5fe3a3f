/* -*- P4_16 -*- */
/*
 * tc3_edge_mpls.p4 -- MPLS edge/LSR carrying Ethernet pseudowires
 * (Tofino 1, TNA).
 *
 * Latency validation case TC3 (see CASES.md).  Measured path after the
 * outer Ethernet header: four MPLS labels (4 B each, one loop iteration per
 * label) -> inner Ethernet (14 B), with 700 B packets.  The pseudowire runs
 * without a control word, so the byte after the bottom-of-stack label is
 * the customer's Ethernet header.
 *
 * Ingress applies one table, mpls_lfib: top label (20 bits, exact), 20480
 * entries; the action swaps the top label and sets the egress port.
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<20>  mpls_label_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_IPV6 = 16w0x86dd;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;
const bit<16> ETHERTYPE_MPLS = 16w0x8847;

/* ------------------------------------------------------------------------
 * Headers
 * --------------------------------------------------------------------- */
header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header vlan_tag_h {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

/* RFC 3032 label stack entry. */
header mpls_h {
    mpls_label_t label;
    bit<3>       tc;
    bit<1>       bos;
    bit<8>       ttl;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header ipv6_h {
    bit<4>      version;
    bit<8>      traffic_class;
    bit<20>     flow_label;
    bit<16>     payload_len;
    bit<8>      next_hdr;
    bit<8>      hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

struct header_t {
    ethernet_h             ethernet;
    vlan_tag_h             vlan;
    mpls_h[6]              mpls;    // deeper label stacks fail parsing
    ipv4_h                 ipv4;
    ipv6_h                 ipv6;
    ethernet_h             inner_ethernet;
}

struct ingress_metadata_t {
}

struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser EdgeIngressParser(packet_in pkt,
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
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_MPLS : parse_mpls;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_MPLS : parse_mpls;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    /* One iteration per label stack entry, until bottom of stack. */
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            1w0 : parse_mpls;
            1w1 : parse_mpls_payload;
        }
    }

    /* No payload type in MPLS: peek at the first nibble.  IP payloads start
     * with their version; anything else is an Ethernet pseudowire frame. */
    state parse_mpls_payload {
        transition select(pkt.lookahead<bit<4>>()) {
            4w4     : parse_ipv4;
            4w6     : parse_ipv6;
            default : parse_inner_ethernet;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition accept;
    }

    state parse_inner_ethernet {
        pkt.extract(hdr.inner_ethernet);
        transition accept;
    }
}

/* ------------------------------------------------------------------------
 * Ingress control
 * --------------------------------------------------------------------- */
control EdgeIngress(inout header_t hdr,
                    inout ingress_metadata_t ig_md,
                    in ingress_intrinsic_metadata_t ig_intr_md,
                    in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* Label swap: new outgoing label towards the next LSR. */
    action swap_label(PortId_t port, mpls_label_t out_label) {
        ig_tm_md.ucast_egress_port = port;
        hdr.mpls[0].label = out_label;
    }

    action unknown_label() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    table mpls_lfib {
        key = {
            hdr.mpls[0].label : exact;
        }
        actions = {
            swap_label;
            unknown_label;
        }
        const default_action = unknown_label();
        size = 20480;
    }

    apply {
        if (hdr.mpls[0].isValid()) {
            mpls_lfib.apply();
        }
    }
}

control EdgeIngressDeparser(packet_out pkt,
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
parser EdgeEgressParser(packet_in pkt,
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

control EdgeEgress(inout egress_header_t hdr,
                   inout egress_metadata_t eg_md,
                   in egress_intrinsic_metadata_t eg_intr_md,
                   in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                   inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                   inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control EdgeEgressDeparser(packet_out pkt,
                           inout egress_header_t hdr,
                           in egress_metadata_t eg_md,
                           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(EdgeIngressParser(),
         EdgeIngress(),
         EdgeIngressDeparser(),
         EdgeEgressParser(),
         EdgeEgress(),
         EdgeEgressDeparser()) pipe;

Switch(pipe) main;
