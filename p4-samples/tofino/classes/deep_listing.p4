/* -*- P4_16 -*- */
/*
 * deep_listing.p4 -- a path with more packet classes than any listing shows,
 * whose slowest class comes late in listing order (TNA). Written for
 * p4cost's tests (tests/explain.rs): explain, predict, check and diff must
 * name the same slowest class and figure however far down the listing it is.
 *
 * Parse paths: ethernet; ethernet -> ipv4.
 * Ingress: six independent tests of metadata the parser does not set, each
 * applying nothing on its `then` way and a wide LPM table on its `else`
 * way, so the slowest class takes every `else`: 2^6 = 64 classes per path,
 * the slowest the last in control order (then before else), class 64,
 * past the 8 listed per path and the 32 listed for `--path`.
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

struct header_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
}

struct ingress_metadata_t {
    bit<8> f1;
    bit<8> f2;
    bit<8> f3;
    bit<8> f4;
    bit<8> f5;
    bit<8> f6;
    bit<16> port;
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
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control Ingress(inout header_t hdr, inout ingress_metadata_t ig_md,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(bit<16> p) { ig_md.port = p; }

    table wide1 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table wide2 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table wide3 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table wide4 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table wide5 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    table wide6 {
        key = { hdr.ethernet.dst_addr : lpm; hdr.ethernet.src_addr : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    apply {
        if (ig_md.f1 == 0) {
        } else {
            wide1.apply();
        }
        if (ig_md.f2 == 0) {
        } else {
            wide2.apply();
        }
        if (ig_md.f3 == 0) {
        } else {
            wide3.apply();
        }
        if (ig_md.f4 == 0) {
        } else {
            wide4.apply();
        }
        if (ig_md.f5 == 0) {
        } else {
            wide5.apply();
        }
        if (ig_md.f6 == 0) {
        } else {
            wide6.apply();
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
