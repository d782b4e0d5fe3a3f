/* -*- P4_16 -*- */
/*
 * tc2_datacenter.p4 -- data-centre leaf acting as a VXLAN transit/VTEP
 * steering point (Tofino 1, TNA).
 *
 * Latency validation case TC2 (see CASES.md).  Measured path after the
 * outer Ethernet header: IPv4 (20 B) -> UDP (8 B) -> VXLAN (8 B) -> inner
 * Ethernet (14 B), with 900 B packets.
 *
 * Ingress applies one table, vxlan_tunnel_steer: outer IPv4 src + dst and
 * UDP src + dst ports, all exact (32+32+16+16 bits), 5120 entries, action
 * sets the egress port.
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<24>  vni_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_IPV6 = 16w0x86dd;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;

const bit<8> IP_PROTO_TCP = 8w6;
const bit<8> IP_PROTO_UDP = 8w17;

const bit<16> UDP_PORT_VXLAN = 16w4789;

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

/* RFC 7348: 8 flag bits (I = 0x08), 24 reserved, 24-bit VNI, 8 reserved. */
header vxlan_h {
    bit<8>  flags;
    bit<24> reserved;
    vni_t   vni;
    bit<8>  reserved2;
}

struct header_t {
    ethernet_h ethernet;
    vlan_tag_h vlan;
    ipv4_h     ipv4;
    ipv6_h     ipv6;
    tcp_h      tcp;
    udp_h      udp;
    vxlan_h    vxlan;
    ethernet_h inner_ethernet;
}

struct ingress_metadata_t {
    vni_t vni;
}

struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser DcIngressParser(packet_in pkt,
                       out header_t hdr,
                       out ingress_metadata_t ig_md,
                       out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.vni = 24w0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_UDP) : parse_udp;
            (4w5, 13w0, IP_PROTO_TCP) : parse_tcp;
            default                   : accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_UDP : parse_udp;
            IP_PROTO_TCP : parse_tcp;
            default      : accept;
        }
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            UDP_PORT_VXLAN : parse_vxlan;
            default        : accept;
        }
    }

    state parse_vxlan {
        pkt.extract(hdr.vxlan);
        ig_md.vni = hdr.vxlan.vni;
        transition parse_inner_ethernet;
    }

    /* The tenant frame: only its L2 header is needed for steering. */
    state parse_inner_ethernet {
        pkt.extract(hdr.inner_ethernet);
        transition accept;
    }
}

/* ------------------------------------------------------------------------
 * Ingress control
 * --------------------------------------------------------------------- */
control DcIngress(inout header_t hdr,
                  inout ingress_metadata_t ig_md,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    action steer(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    action steer_miss() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    /* One entry per tunnel flow between two VTEPs. */
    table vxlan_tunnel_steer {
        key = {
            hdr.ipv4.src_addr : exact;
            hdr.ipv4.dst_addr : exact;
            hdr.udp.src_port  : exact;
            hdr.udp.dst_port  : exact;
        }
        actions = {
            steer;
            steer_miss;
        }
        const default_action = steer_miss();
        size = 5120;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.udp.isValid()) {
            vxlan_tunnel_steer.apply();
        }
    }
}

control DcIngressDeparser(packet_out pkt,
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
parser DcEgressParser(packet_in pkt,
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

control DcEgress(inout egress_header_t hdr,
                 inout egress_metadata_t eg_md,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control DcEgressDeparser(packet_out pkt,
                         inout egress_header_t hdr,
                         in egress_metadata_t eg_md,
                         in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(DcIngressParser(),
         DcIngress(),
         DcIngressDeparser(),
         DcEgressParser(),
         DcEgress(),
         DcEgressDeparser()) pipe;

Switch(pipe) main;
