/* -*- P4_16 -*- */
/*
 * tc1_enterprise.p4 -- campus/enterprise access switch (Tofino 1, TNA).
 *
 * Latency validation case TC1 (see CASES.md).  Measured path after the
 * Ethernet header: 802.1ad S-tag (4 B) -> 802.1Q C-tag (4 B) -> IPv6 (40 B)
 * -> UDP (8 B), with 600 B packets.
 *
 * Ingress applies exactly three tables:
 *   1. station_check : src MAC (48, exact) + outer VLAN id (12, exact), 64
 *                      entries, action list is NoAction only (the table
 *                      has no action of its own).
 *   2. v6_flow_block : IPv6 src (128, exact) + IPv6 dst (128, exact), 10240
 *                      entries of blocked flows; the measured traffic never
 *                      matches it.
 *   3. v6_udp_route  : IPv6 dst (128, LPM) + UDP dst port (16, exact), 1024
 *                      entries; sets the egress port and rewrites the
 *                      destination MAC.
 */

#include <core.p4>
#include <tna.p4>

/* ------------------------------------------------------------------------
 * Types and constants
 * --------------------------------------------------------------------- */
typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<12>  vlan_id_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_IPV6 = 16w0x86dd;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;
const bit<16> ETHERTYPE_QINQ = 16w0x88a8;

const bit<8> IP_PROTO_ICMP   = 8w1;
const bit<8> IP_PROTO_TCP    = 8w6;
const bit<8> IP_PROTO_UDP    = 8w17;
const bit<8> IP_PROTO_ICMPV6 = 8w58;

/* ------------------------------------------------------------------------
 * Headers
 * --------------------------------------------------------------------- */
header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header vlan_tag_h {
    bit<3>    pcp;
    bit<1>    dei;
    vlan_id_t vid;
    bit<16>   ether_type;
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

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

header tcp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header icmp_h {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
}

/* ------------------------------------------------------------------------
 * Ingress headers and metadata
 * --------------------------------------------------------------------- */
struct header_t {
    ethernet_h    ethernet;
    vlan_tag_h[2] vlan;       // [0] = outer (S-tag or only tag), [1] = C-tag
    ipv4_h        ipv4;
    ipv6_h        ipv6;
    tcp_h         tcp;
    udp_h         udp;
    icmp_h        icmp;
}

struct ingress_metadata_t {
    vlan_id_t outer_vid;
    bit<1>    blocked;
}

/* Egress only needs the outer Ethernet header. */
struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser EnterpriseIngressParser(packet_in pkt,
                               out header_t hdr,
                               out ingress_metadata_t ig_md,
                               out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.outer_vid = 12w0;
        ig_md.blocked = 1w0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_QINQ : parse_outer_vlan;
            ETHERTYPE_VLAN : parse_outer_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    /* First (or only) tag. */
    state parse_outer_vlan {
        pkt.extract(hdr.vlan[0]);
        ig_md.outer_vid = hdr.vlan[0].vid;
        transition select(hdr.vlan[0].ether_type) {
            ETHERTYPE_VLAN : parse_inner_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    /* Customer tag behind an S-tag (or a double 0x8100 stack). */
    state parse_inner_vlan {
        pkt.extract(hdr.vlan[1]);
        transition select(hdr.vlan[1].ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_TCP)  : parse_tcp;
            (4w5, 13w0, IP_PROTO_UDP)  : parse_udp;
            (4w5, 13w0, IP_PROTO_ICMP) : parse_icmp;
            default                    : accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_TCP    : parse_tcp;
            IP_PROTO_UDP    : parse_udp;
            IP_PROTO_ICMPV6 : parse_icmp;
            default         : accept;
        }
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }

    state parse_icmp {
        pkt.extract(hdr.icmp);
        transition accept;
    }
}

/* ------------------------------------------------------------------------
 * Ingress control
 * --------------------------------------------------------------------- */
control EnterpriseIngress(inout header_t hdr,
                          inout ingress_metadata_t ig_md,
                          in ingress_intrinsic_metadata_t ig_intr_md,
                          in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                          inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                          inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* Table 1: known stations per access VLAN.  Only NoAction is
     * available; the control plane uses the entry hit counters. */
    table station_check {
        key = {
            hdr.ethernet.src_addr : exact;
            ig_md.outer_vid       : exact;
        }
        actions = {
            NoAction;
        }
        const default_action = NoAction();
        size = 64;
    }

    /* Table 2: flows quarantined by the security team. */
    action block_flow() {
        ig_dprsr_md.drop_ctl = 3w0x1;
        ig_md.blocked = 1w1;
    }

    table v6_flow_block {
        key = {
            hdr.ipv6.src_addr : exact;
            hdr.ipv6.dst_addr : exact;
        }
        actions = {
            block_flow;
            NoAction;
        }
        const default_action = NoAction();
        size = 10240;
    }

    /* Table 3: per-service IPv6 routes (e.g. voice, video, DNS). */
    action route_service(PortId_t port, mac_addr_t next_hop_mac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.dst_addr = next_hop_mac;
    }

    action route_miss() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    table v6_udp_route {
        key = {
            hdr.ipv6.dst_addr : lpm;
            hdr.udp.dst_port  : exact;
        }
        actions = {
            route_service;
            route_miss;
        }
        const default_action = route_miss();
        size = 1024;
    }

    apply {
        station_check.apply();
        if (hdr.ipv6.isValid()) {
            v6_flow_block.apply();
            if (hdr.udp.isValid()) {
                v6_udp_route.apply();
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * Ingress deparser
 * --------------------------------------------------------------------- */
control EnterpriseIngressDeparser(packet_out pkt,
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
parser EnterpriseEgressParser(packet_in pkt,
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

control EnterpriseEgress(inout egress_header_t hdr,
                         inout egress_metadata_t eg_md,
                         in egress_intrinsic_metadata_t eg_intr_md,
                         in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                         inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                         inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control EnterpriseEgressDeparser(packet_out pkt,
                                 inout egress_header_t hdr,
                                 in egress_metadata_t eg_md,
                                 in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(EnterpriseIngressParser(),
         EnterpriseIngress(),
         EnterpriseIngressDeparser(),
         EnterpriseEgressParser(),
         EnterpriseEgress(),
         EnterpriseEgressDeparser()) pipe;

Switch(pipe) main;
