/* -*- P4_16 -*- */
/*
 * rejects.p4 -- parse paths that end in reject, counted apart (TNA).
 * Written for p4cost's tests; the figures below are derived by hand in
 * tests/classes.rs.
 *
 * start:      ethernet; ether_type 0x0800 -> ipv4, 0x8100 -> vlan,
 *             0x9999 -> reject, default -> accept
 * parse_vlan: vlan; ether_type 0x0800 -> ipv4, and no default case: any
 *             other value rejects
 * parse_ipv4: ipv4; verify(version == 4); protocol 6 -> tcp, default accept
 * parse_tcp:  tcp; accept
 *
 * Accepted paths (5): ethernet; ethernet ipv4 (tcp or not); ethernet vlan
 * ipv4 (tcp or not). Rejected paths (4): at start (the 0x9999 case), at
 * parse_vlan (no case matches), at parse_ipv4 after start or after
 * parse_vlan (verify fails).
 */
#include <core.p4>
#include <tna.p4>

error { BadIpVersion }
const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;
const bit<8>  IP_PROTO_TCP = 6;
const bit<8>  IP_PROTO_UDP = 17;

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
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header l4_ports_h {
    bit<16> src_port;
    bit<16> dst_port;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
    ipv4_h     ipv4;
    l4_ports_h tcp;
    l4_ports_h udp;
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
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_VLAN: parse_vlan;
            0x9999: reject;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.BadIpVersion);
        transition select(hdr.ipv4.protocol) {
            IP_PROTO_TCP: parse_tcp;
            default: accept;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }
}

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action drop() { ig_dprsr_md.drop_ctl = 1; }

    table ipv4_host {
        key = { hdr.ipv4.dst_addr : exact; }
        actions = { set_port; }
        size = 65536;
    }
    table vlan_map {
        key = { hdr.vlan.vid : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table l2 {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { set_port; }
        size = 4096;
    }
    table tcp_acl {
        key = { hdr.tcp.dst_port : exact; }
        actions = { drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    apply {
        if (hdr.ethernet.ether_type == ETHERTYPE_IPV4) {
            ipv4_host.apply();
        } else if (hdr.vlan.isValid()) {
            vlan_map.apply();
        } else {
            l2.apply();
        }
        if (hdr.ipv4.isValid() && hdr.ipv4.protocol == IP_PROTO_TCP) {
            tcp_acl.apply();
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
