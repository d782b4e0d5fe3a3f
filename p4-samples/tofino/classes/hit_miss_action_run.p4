/* -*- P4_16 -*- */
/*
 * hit_miss_action_run.p4 -- packet classes that differ by validity, by a
 * switch on action_run and by a hit/miss branch (TNA). Written for
 * p4cost's tests; the classes below are derived by hand in tests/classes.rs.
 *
 * Parse paths: ethernet; ethernet -> ipv4; ethernet -> ipv6.
 * Ingress:
 *   if (ipv4 valid)      switch (route_v4.apply().action_run)
 *                            set_nhop: nexthop.apply()
 *                            drop_pkt: (nothing; the same way as the
 *                                       actions without a case)
 *   else if (ipv6 valid) route_v6.apply()
 *   if (!acl.apply().hit) default_route.apply()
 *
 * Classes: ethernet 2 (acl hit / miss), ipv4 2 x 2 = 4, ipv6 2: 8 in all.
 */
#include <core.p4>
#include <tna.p4>

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
    ipv4_h     ipv4;
    ipv6_h     ipv6;
}

struct ingress_metadata_t {
    bit<16> nhop;
}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
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

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_nhop(bit<16> n) { ig_md.nhop = n; }
    action drop_pkt() { ig_dprsr_md.drop_ctl = 1; }
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }
    action permit() { }

    table route_v4 {
        key = { hdr.ipv4.dst_addr : lpm; }
        actions = { set_nhop; drop_pkt; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table nexthop {
        key = { ig_md.nhop : exact; }
        actions = { set_port; }
        size = 256;
    }
    table route_v6 {
        key = { hdr.ipv6.dst_addr : lpm; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table acl {
        key = { hdr.ethernet.src_addr : ternary; }
        actions = { permit; drop_pkt; }
        size = 256;
    }
    table default_route {
        actions = { set_port; }
        default_action = set_port(1);
    }

    apply {
        if (hdr.ipv4.isValid()) {
            switch (route_v4.apply().action_run) {
                set_nhop: { nexthop.apply(); }
                drop_pkt: { }
            }
        } else if (hdr.ipv6.isValid()) {
            route_v6.apply();
        }
        if (!acl.apply().hit) {
            default_route.apply();
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
