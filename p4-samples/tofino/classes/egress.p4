/* -*- P4_16 -*- */
/*
 * egress.p4 -- packet classes that run through ingress AND egress (TNA).
 * Written for p4cost's tests; the classes below are derived by hand in
 * tests/classes.rs.
 *
 * Parse paths: ethernet; ethernet -> ipv4; ethernet -> ipv6.
 * Ingress:
 *   if (ipv4 valid)      { route_v4.apply(); hdr.vlan.setValid(); }
 *   else if (ipv6 valid) { route_v6.apply(); }
 *   if (acl.apply().hit) { exit; }          (the packet still goes to egress)
 * The ingress deparser emits ethernet, vlan, ipv4, ipv6; the egress parser
 * extracts ethernet, vlan and ipv4 but never ipv6. So in egress:
 *   vlan is valid exactly on the IPv4 path (ingress pushed it),
 *   ipv6 is invalid on every path (the egress parser does not parse it).
 * Egress:
 *   if (vlan valid) vlan_xlate.apply();
 *   if (ipv6 valid) v6_acl.apply();         (never)
 *   if (port_stats.apply().miss) unknown_port.apply();
 *
 * Classes per path: acl hit / miss x port_stats hit / miss = 4; 12 in all.
 * The linear Tofino models charge the ingress tables only (the paper
 * measured ingress); egress tables are listed with every class.
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

header ipv6_h {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    bit<128> src_addr;
    bit<128> dst_addr;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
    ipv4_h     ipv4;
    ipv6_h     ipv6;
}

struct metadata_t { }

parser IgParser(packet_in pkt, out header_t hdr, out metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            0x86dd: parse_ipv6;
            default: accept;
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

control Ingress(inout header_t hdr, inout metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action punt() { ig_tm_md.ucast_egress_port = 64; }

    table route_v4 {
        key = { hdr.ipv4.dst_addr : lpm; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table route_v6 {
        key = { hdr.ipv6.dst_addr : lpm; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table acl {
        key = { hdr.ethernet.src_addr : exact; }
        actions = { punt; NoAction; }
        default_action = NoAction();
        size = 256;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            route_v4.apply();
            hdr.vlan.setValid();
            hdr.vlan.vid = 10;
            hdr.vlan.ether_type = 0x0800;
            hdr.ethernet.ether_type = 0x8100;
        } else if (hdr.ipv6.isValid()) {
            route_v6.apply();
        }
        if (acl.apply().hit) {
            exit;
        }
    }
}

control IgDeparser(packet_out pkt, inout header_t hdr, in metadata_t ig_md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv6);
    }
}

parser EgParser(packet_in pkt, out header_t hdr, out metadata_t eg_md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control Egress(inout header_t hdr, inout metadata_t eg_md,
               in egress_intrinsic_metadata_t eg_intr_md,
               in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
               inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
               inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    action set_vid(bit<12> vid) { hdr.vlan.vid = vid; }
    action count() { }
    action drop_pkt() { eg_dprsr_md.drop_ctl = 1; }

    table vlan_xlate {
        key = { eg_intr_md.egress_port : exact; hdr.vlan.vid : exact; }
        actions = { set_vid; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table v6_acl {
        key = { hdr.ipv6.dst_addr : ternary; }
        actions = { drop_pkt; NoAction; }
        default_action = NoAction();
        size = 256;
    }
    table port_stats {
        key = { eg_intr_md.egress_port : exact; }
        actions = { count; }
        size = 512;
    }
    table unknown_port {
        actions = { drop_pkt; }
        default_action = drop_pkt();
    }

    apply {
        if (hdr.vlan.isValid()) {
            vlan_xlate.apply();
        }
        if (hdr.ipv6.isValid()) {
            v6_acl.apply();
        }
        if (port_stats.apply().miss) {
            unknown_port.apply();
        }
    }
}

control EgDeparser(packet_out pkt, inout header_t hdr, in metadata_t eg_md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(IgParser(), Ingress(), IgDeparser(), EgParser(), Egress(), EgDeparser()) pipe;
Switch(pipe) main;
