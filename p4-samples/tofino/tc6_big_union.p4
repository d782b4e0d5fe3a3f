/* -*- P4_16 -*- */
/*
 * tc6_big_union.p4 -- multi-tenant gateway whose parser recognises the
 * union of many encapsulations (Tofino 1, TNA).
 *
 * Latency validation cases TC6A and TC6B (see CASES.md) are two packets
 * through this ONE program:
 *   TC6A (200 B packets): IPv4 (20 B) -> GRE base header (4 B) -> NVGRE key
 *        (VSID + flow id, 4 B) -> inner Ethernet (14 B).
 *   TC6B (300 B packets): IPv6 (40 B) -> UDP (8 B), non-VXLAN port.
 * Other alternatives: single VLAN tag, IPv4/IPv6 TCP, UDP, ICMP, VXLAN.
 *
 * Ingress tables:
 *   TC6A, applied under hdr.gre.isValid():
 *     tenant_mac_pair : inner src MAC + inner dst MAC (48 + 48, exact), 5120
 *                       entries, NoAction only.
 *     nvgre_endpoint  : outer IPv4 dst + VSID (32 + 24, exact), 1024 entries,
 *                       sets the egress port.
 *   TC6B, applied under hdr.ipv6.isValid():
 *     v6_route        : IPv6 dst (128, LPM), 30720 entries, sets the port.
 *     flow_watch      : 32-bit CRC32 flow id (exact), 1536 entries, the
 *                       action writes the packet's arrival time into a
 *                       register slot (last-seen time of a watched flow).
 *
 * NOTE: p4cost currently counts every table of the ingress control for the
 * control term, i.e. all four tables here, even though a TC6A packet only
 * reaches the first two and a TC6B packet only the last two.  The paper's
 * published predictions leave the control term out, so the parse path is
 * what distinguishes the two cases.
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_IPV6 = 16w0x86dd;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;
const bit<16> ETHERTYPE_TEB  = 16w0x6558;   // transparent Ethernet bridging

const bit<8> IP_PROTO_ICMP   = 8w1;
const bit<8> IP_PROTO_TCP    = 8w6;
const bit<8> IP_PROTO_UDP    = 8w17;
const bit<8> IP_PROTO_GRE    = 8w47;
const bit<8> IP_PROTO_ICMPV6 = 8w58;

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

header icmp_h {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
}

/* GRE base header (RFC 2784 with the RFC 2890 key/sequence bits), 4 bytes. */
header gre_h {
    bit<1>  checksum_present;
    bit<1>  routing_present;
    bit<1>  key_present;
    bit<1>  seq_present;
    bit<9>  reserved0;
    bit<3>  version;
    bit<16> protocol;
}

/* NVGRE (RFC 7637) uses the GRE key field: 24-bit VSID + 8-bit flow id. */
header nvgre_h {
    bit<24> vsid;
    bit<8>  flow_id;
}

header vxlan_h {
    bit<8>  flags;
    bit<24> reserved;
    bit<24> vni;
    bit<8>  reserved2;
}

struct header_t {
    ethernet_h ethernet;
    vlan_tag_h vlan;
    ipv4_h     ipv4;
    ipv6_h     ipv6;
    gre_h      gre;
    nvgre_h    nvgre;
    tcp_h      tcp;
    udp_h      udp;
    icmp_h     icmp;
    vxlan_h    vxlan;
    ethernet_h inner_ethernet;
}

struct ingress_metadata_t {
    bit<32> flow_id;
    bit<32> arrival_ns;
}

struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser UnionIngressParser(packet_in pkt,
                          out header_t hdr,
                          out ingress_metadata_t ig_md,
                          out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.flow_id = 32w0;
        ig_md.arrival_ns = 32w0;
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
            (4w5, 13w0, IP_PROTO_GRE)  : parse_gre;
            (4w5, 13w0, IP_PROTO_UDP)  : parse_udp;
            (4w5, 13w0, IP_PROTO_TCP)  : parse_tcp;
            (4w5, 13w0, IP_PROTO_ICMP) : parse_icmp;
            default                    : accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_UDP    : parse_udp;
            IP_PROTO_TCP    : parse_tcp;
            IP_PROTO_ICMPV6 : parse_icmp;
            IP_PROTO_GRE    : parse_gre;
            default         : accept;
        }
    }

    /* NVGRE: key present, no checksum/sequence, version 0, TEB payload. */
    state parse_gre {
        pkt.extract(hdr.gre);
        transition select(hdr.gre.checksum_present, hdr.gre.key_present,
                          hdr.gre.seq_present, hdr.gre.version,
                          hdr.gre.protocol) {
            (1w0, 1w1, 1w0, 3w0, ETHERTYPE_TEB) : parse_nvgre;
            default                             : accept;
        }
    }

    state parse_nvgre {
        pkt.extract(hdr.nvgre);
        transition parse_inner_ethernet;
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
        transition parse_inner_ethernet;
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }

    state parse_icmp {
        pkt.extract(hdr.icmp);
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
control UnionIngress(inout header_t hdr,
                     inout ingress_metadata_t ig_md,
                     in ingress_intrinsic_metadata_t ig_intr_md,
                     in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                     inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                     inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Hash<bit<32>>(HashAlgorithm_t.CRC32) flow_hash;

    /* Last-seen time (low 32 bits of the global timestamp) per watched flow. */
    Register<bit<32>, bit<11>>(2048, 32w0) flow_last_seen;

    RegisterAction<bit<32>, bit<11>, bit<32>>(flow_last_seen) stamp_flow = {
        void apply(inout bit<32> value, out bit<32> previous) {
            previous = value;
            value = ig_md.arrival_ns;
        }
    };

    action set_port(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    action drop_packet() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    /* ---- TC6A: NVGRE termination ---- */
    table tenant_mac_pair {
        key = {
            hdr.inner_ethernet.src_addr : exact;
            hdr.inner_ethernet.dst_addr : exact;
        }
        actions = {
            NoAction;
        }
        const default_action = NoAction();
        size = 5120;
    }

    table nvgre_endpoint {
        key = {
            hdr.ipv4.dst_addr : exact;
            hdr.nvgre.vsid    : exact;
        }
        actions = {
            set_port;
            drop_packet;
        }
        const default_action = drop_packet();
        size = 1024;
    }

    /* ---- TC6B: IPv6 routing and flow watching ---- */
    table v6_route {
        key = {
            hdr.ipv6.dst_addr : lpm;
        }
        actions = {
            set_port;
            drop_packet;
        }
        const default_action = drop_packet();
        size = 30720;
    }

    action watch_flow(bit<11> slot) {
        stamp_flow.execute(slot);
    }

    table flow_watch {
        key = {
            ig_md.flow_id : exact;
        }
        actions = {
            watch_flow;
            NoAction;
        }
        const default_action = NoAction();
        size = 1536;
    }

    apply {
        ig_md.arrival_ns = ig_prsr_md.global_tstamp[31:0];

        if (hdr.gre.isValid()) {
            if (hdr.inner_ethernet.isValid()) {
                tenant_mac_pair.apply();
            }
            if (hdr.nvgre.isValid()) {
                nvgre_endpoint.apply();
            }
        }

        if (hdr.ipv6.isValid()) {
            v6_route.apply();
            if (hdr.udp.isValid()) {
                ig_md.flow_id = flow_hash.get({
                    hdr.ipv6.src_addr,
                    hdr.ipv6.dst_addr,
                    hdr.ipv6.next_hdr,
                    hdr.udp.src_port,
                    hdr.udp.dst_port
                });
                flow_watch.apply();
            }
        }
    }
}

control UnionIngressDeparser(packet_out pkt,
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
parser UnionEgressParser(packet_in pkt,
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

control UnionEgress(inout egress_header_t hdr,
                    inout egress_metadata_t eg_md,
                    in egress_intrinsic_metadata_t eg_intr_md,
                    in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                    inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                    inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control UnionEgressDeparser(packet_out pkt,
                            inout egress_header_t hdr,
                            in egress_metadata_t eg_md,
                            in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(UnionIngressParser(),
         UnionIngress(),
         UnionIngressDeparser(),
         UnionEgressParser(),
         UnionEgress(),
         UnionEgressDeparser()) pipe;

Switch(pipe) main;
