/* -*- P4_16 -*- */
/*
 * tc4_service_provider.p4 -- service-provider PE router: label-switched
 * transit plus IP disposition through one address-family-agnostic FIB
 * (Tofino 1, TNA).
 *
 * Latency validation case TC4 (see CASES.md).  Measured path after the
 * outer Ethernet header: five MPLS labels (4 B each, one loop iteration per
 * label) -> IPv4 (20 B), with 1300 B packets.
 *
 * Ingress applies two tables:
 *   1. mpls_ilm    : top label (20 bits, exact), 1024 entries; sets the
 *                    egress port of the label-switched path.
 *   2. unified_fib : 128-bit destination (LPM), 1024 entries.  The FIB is
 *                    keyed on one 128-bit address for both families: IPv6
 *                    destinations are used as they are, IPv4 destinations
 *                    are mapped to ::ffff:a.b.c.d (RFC 4291 IPv4-mapped
 *                    form) in metadata before the lookup.  Its action sets
 *                    the port, decrements the TTL (arithmetic) and rewrites
 *                    both MAC addresses (two field modifications).
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
    ethernet_h ethernet;
    vlan_tag_h vlan;
    mpls_h[8]  mpls;          // SR/TE stacks up to 8 labels
    ipv4_h     ipv4;
    ipv6_h     ipv6;
}

struct ingress_metadata_t {
    ipv6_addr_t fib_dst;      // lookup address, IPv4 in mapped form
}

struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser SpIngressParser(packet_in pkt,
                       out header_t hdr,
                       out ingress_metadata_t ig_md,
                       out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.fib_dst = 128w0;
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

    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            1w0 : parse_mpls;
            1w1 : parse_mpls_payload;
        }
    }

    /* L3VPN payloads are IP: choose the family from the version nibble. */
    state parse_mpls_payload {
        transition select(pkt.lookahead<bit<4>>()) {
            4w4     : parse_ipv4;
            4w6     : parse_ipv6;
            default : accept;
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
}

/* ------------------------------------------------------------------------
 * Ingress control
 * --------------------------------------------------------------------- */
control SpIngress(inout header_t hdr,
                  inout ingress_metadata_t ig_md,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* ---- Table 1: incoming label map ---- */
    action lsp_forward(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    table mpls_ilm {
        key = {
            hdr.mpls[0].label : exact;
        }
        actions = {
            lsp_forward;
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    /* ---- Table 2: unified IPv4/IPv6 FIB on a 128-bit key ---- */
    action ipv4_route(PortId_t port, mac_addr_t dmac, mac_addr_t smac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 8w1;
        hdr.ethernet.dst_addr = dmac;
        hdr.ethernet.src_addr = smac;
    }

    action ipv6_route(PortId_t port, mac_addr_t dmac, mac_addr_t smac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 8w1;
        hdr.ethernet.dst_addr = dmac;
        hdr.ethernet.src_addr = smac;
    }

    action fib_miss() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    table unified_fib {
        key = {
            ig_md.fib_dst : lpm;
        }
        actions = {
            ipv4_route;
            ipv6_route;
            fib_miss;
        }
        const default_action = fib_miss();
        size = 1024;
    }

    apply {
        if (hdr.mpls[0].isValid()) {
            mpls_ilm.apply();
        }

        if (hdr.ipv4.isValid()) {
            ig_md.fib_dst = 80w0 ++ 16w0xffff ++ hdr.ipv4.dst_addr;
        } else if (hdr.ipv6.isValid()) {
            ig_md.fib_dst = hdr.ipv6.dst_addr;
        }

        if (hdr.ipv4.isValid() || hdr.ipv6.isValid()) {
            unified_fib.apply();
        }
    }
}

control SpIngressDeparser(packet_out pkt,
                          inout header_t hdr,
                          in ingress_metadata_t ig_md,
                          in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4_checksum;

    apply {
        /* The TTL changed: recompute the IPv4 header checksum. */
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.ipv4.version,
                hdr.ipv4.ihl,
                hdr.ipv4.dscp,
                hdr.ipv4.ecn,
                hdr.ipv4.total_len,
                hdr.ipv4.identification,
                hdr.ipv4.flags,
                hdr.ipv4.frag_offset,
                hdr.ipv4.ttl,
                hdr.ipv4.protocol,
                hdr.ipv4.src_addr,
                hdr.ipv4.dst_addr
            });
        }
        pkt.emit(hdr);
    }
}

/* ------------------------------------------------------------------------
 * Egress: pass-through
 * --------------------------------------------------------------------- */
parser SpEgressParser(packet_in pkt,
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

control SpEgress(inout egress_header_t hdr,
                 inout egress_metadata_t eg_md,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control SpEgressDeparser(packet_out pkt,
                         inout egress_header_t hdr,
                         in egress_metadata_t eg_md,
                         in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(SpIngressParser(),
         SpIngress(),
         SpIngressDeparser(),
         SpEgressParser(),
         SpEgress(),
         SpEgressDeparser()) pipe;

Switch(pipe) main;
