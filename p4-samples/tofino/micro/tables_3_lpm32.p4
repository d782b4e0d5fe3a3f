/* -*- P4_16 -*- */
/*
 * tables_3_lpm32.p4 -- match-action micro-benchmark (Tofino 1, TNA).
 *
 * After Ethernet (EtherType 0x88b5) one state extracts a 12-byte key
 * header holding 3 field(s) of 32 bits.  The ingress control applies 3
 * independent LPM table(s), table i keyed on field i alone, each
 * with 1024 entries and a set-egress-port action.  Expected parse path:
 *   --path hdr.keys
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48> mac_addr_t;

/* IEEE 802 local experimental EtherType 1: marks benchmark frames. */
const bit<16> ETHERTYPE_BENCH = 16w0x88b5;

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

/* 3 key field(s) of 32 bits = 12 bytes. */
header bench_keys_h {
    bit<32> f0;
    bit<32> f1;
    bit<32> f2;
}

struct header_t {
    ethernet_h   ethernet;
    bench_keys_h keys;
}

struct ingress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress
 * --------------------------------------------------------------------- */
parser BenchIngressParser(packet_in pkt,
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
            ETHERTYPE_BENCH : parse_keys;
            default         : accept;
        }
    }

    state parse_keys {
        pkt.extract(hdr.keys);
        transition accept;
    }
}

control BenchIngress(inout header_t hdr,
                     inout ingress_metadata_t ig_md,
                     in ingress_intrinsic_metadata_t ig_intr_md,
                     in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                     inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                     inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action set_port(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    table t0 {
        key = {
            hdr.keys.f0 : lpm;
        }
        actions = {
            set_port;
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    table t1 {
        key = {
            hdr.keys.f1 : lpm;
        }
        actions = {
            set_port;
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    table t2 {
        key = {
            hdr.keys.f2 : lpm;
        }
        actions = {
            set_port;
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    apply {
        if (hdr.keys.isValid()) {
            t0.apply();
            t1.apply();
            t2.apply();
        }
    }
}

control BenchIngressDeparser(packet_out pkt,
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
struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

parser BenchEgressParser(packet_in pkt,
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

control BenchEgress(inout egress_header_t hdr,
                    inout egress_metadata_t eg_md,
                    in egress_intrinsic_metadata_t eg_intr_md,
                    in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                    inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                    inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control BenchEgressDeparser(packet_out pkt,
                            inout egress_header_t hdr,
                            in egress_metadata_t eg_md,
                            in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(BenchIngressParser(),
         BenchIngress(),
         BenchIngressDeparser(),
         BenchEgressParser(),
         BenchEgress(),
         BenchEgressDeparser()) pipe;

Switch(pipe) main;
