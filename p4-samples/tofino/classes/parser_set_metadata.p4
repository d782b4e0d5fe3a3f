/* -*- P4_16 -*- */
/*
 * parser_set_metadata.p4 -- conditions on metadata the parser set to a
 * constant prune packet classes (TNA). Written for p4cost's tests; the
 * classes below are derived by hand in tests/classes.rs.
 *
 * Parse paths (4): ethernet; ethernet ipv4; ethernet ipv4 tcp;
 * ethernet ipv4 udp. The start state sets ig_md.l4_type = L4_NONE (0),
 * parse_tcp sets L4_TCP (1), parse_udp sets L4_UDP (2).
 * Ingress:
 *   if (l4_type == L4_TCP) tcp_acl  else if (l4_type == L4_UDP) udp_acl
 *   if (ipv4 valid) classify          (its action may rewrite l4_type)
 *   if (l4_type != L4_NONE) l4_stats
 * The parser decides the first test on every path. The second decides
 * l4_stats only where classify did not run (ethernet alone: l4_type is
 * still 0, so l4_stats is skipped); after classify, l4_type is unknown and
 * the test forks. Classes: ethernet 1, ethernet ipv4 2, tcp 2, udp 2 = 7.
 * Without the parser's constants every path would fork three ways on the
 * first test, and the ethernet path twice more on the last.
 */
#include <core.p4>
#include <tna.p4>

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<8>  IP_PROTO_TCP = 6;
const bit<8>  IP_PROTO_UDP = 17;
const bit<2>  L4_NONE = 0;
const bit<2>  L4_TCP = 1;
const bit<2>  L4_UDP = 2;

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
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
    ipv4_h     ipv4;
    l4_ports_h tcp;
    l4_ports_h udp;
}

struct ingress_metadata_t {
    bit<2> l4_type;
}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        ig_md.l4_type = L4_NONE;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            IP_PROTO_TCP: parse_tcp;
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        ig_md.l4_type = L4_TCP;
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        ig_md.l4_type = L4_UDP;
        transition accept;
    }
}

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action drop() { ig_dprsr_md.drop_ctl = 1; }
    action reclassify(bit<2> t) { ig_md.l4_type = t; }
    action count() { }

    table tcp_acl {
        key = { hdr.tcp.dst_port : exact; }
        actions = { drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table udp_acl {
        key = { hdr.udp.dst_port : exact; }
        actions = { drop; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table classify {
        key = { hdr.ipv4.dst_addr : exact; }
        actions = { reclassify; NoAction; }
        default_action = NoAction();
        size = 4096;
    }
    table l4_stats {
        key = { ig_md.l4_type : exact; }
        actions = { count; }
        size = 4;
    }

    apply {
        if (ig_md.l4_type == L4_TCP) {
            tcp_acl.apply();
        } else if (ig_md.l4_type == L4_UDP) {
            udp_acl.apply();
        }
        if (hdr.ipv4.isValid()) {
            classify.apply();
        }
        if (ig_md.l4_type != L4_NONE) {
            l4_stats.apply();
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
