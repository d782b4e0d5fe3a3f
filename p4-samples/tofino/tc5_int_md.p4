/* -*- P4_16 -*- */
/*
 * tc5_int_md.p4 -- INT-MD transit hop for TCP flows (Tofino 1, TNA).
 *
 * Latency validation case TC5 (see CASES.md).  Measured path after the
 * Ethernet header: IPv4 (20 B) -> TCP (20 B) -> INT shim (4 B) -> INT-MD
 * metadata header (12 B) -> two per-hop metadata records pushed by earlier
 * hops (8 B each), with 1100 B packets.
 *
 * INT presence is signalled by a reserved DSCP value (INT spec 2.x,
 * "INT over TCP/UDP").  The shim length counts the INT-MD header plus the
 * hop records in 4-byte words: 3 = no hops, 5 = one hop, 7 = two hops.
 * Each hop record here carries node id + hop latency (instruction bits 0
 * and 2), 8 bytes.
 *
 * Ingress applies two tables:
 *   1. flow_forward   : IPv4 src + dst (32 + 32, exact), 50 entries, sets the
 *                       egress port.
 *   2. int_inst_0003  : instruction bits 0-3 (4 bits, exact), 1024 entries
 *                       (control plane sized; only 16 keys are distinct);
 *                       three actions that each write INT metadata fields.
 */

#include <core.p4>
#include <tna.p4>

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;

const bit<8> IP_PROTO_TCP = 8w6;
const bit<8> IP_PROTO_UDP = 8w17;

const bit<6> DSCP_INT     = 6w0x17;   // operator-chosen INT marker
const bit<4> INT_TYPE_MD  = 4w1;

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

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/* INT shim for TCP/UDP transport, 4 bytes. */
header int_shim_h {
    bit<4>  int_type;
    bit<2>  npt;
    bit<2>  rsvd;
    bit<8>  len;            // INT-MD header + hop records, in 4-byte words
    bit<16> npt_field;      // original DSCP / port, depending on npt
}

/* INT-MD metadata header, 12 bytes. */
header int_md_h {
    bit<4>  ver;
    bit<1>  d;
    bit<1>  e;
    bit<1>  m;
    bit<12> rsvd;
    bit<5>  hop_ml;               // words per hop record
    bit<8>  remaining_hop_cnt;
    bit<4>  inst_mask_0003;
    bit<4>  inst_mask_0407;
    bit<4>  inst_mask_0811;
    bit<4>  inst_mask_1215;
    bit<16> domain_id;
    bit<16> ds_instruction;
    bit<16> ds_flags;
}

/* One hop record (node id + hop latency), 8 bytes. */
header int_hop_h {
    bit<32> node_id;
    bit<32> hop_latency;
}

struct header_t {
    ethernet_h   ethernet;
    vlan_tag_h   vlan;
    ipv4_h       ipv4;
    tcp_h        tcp;
    udp_h        udp;
    int_shim_h   int_shim;
    int_md_h     int_md;
    int_hop_h[2] int_hops;
}

struct ingress_metadata_t {
    bit<32> int_node_id;
    bit<32> int_ingress_tstamp;
    bit<1>  int_add_node_id;
    bit<1>  int_add_latency;
}

struct egress_header_t {
    ethernet_h ethernet;
}

struct egress_metadata_t {
}

/* ------------------------------------------------------------------------
 * Ingress parser
 * --------------------------------------------------------------------- */
parser IntIngressParser(packet_in pkt,
                        out header_t hdr,
                        out ingress_metadata_t ig_md,
                        out ingress_intrinsic_metadata_t ig_intr_md) {

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.int_node_id = 32w0;
        ig_md.int_ingress_tstamp = 32w0;
        ig_md.int_add_node_id = 1w0;
        ig_md.int_add_latency = 1w0;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            default        : accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            default        : accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_TCP) : parse_tcp;
            (4w5, 13w0, IP_PROTO_UDP) : parse_udp;
            default                   : accept;
        }
    }

    /* INT follows a TCP header without options when DSCP says so. */
    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition select(hdr.ipv4.dscp, hdr.tcp.data_offset) {
            (DSCP_INT, 4w5) : parse_int_shim;
            default         : accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.ipv4.dscp) {
            DSCP_INT : parse_int_shim;
            default  : accept;
        }
    }

    state parse_int_shim {
        pkt.extract(hdr.int_shim);
        transition select(hdr.int_shim.int_type) {
            INT_TYPE_MD : parse_int_md;
            default     : accept;
        }
    }

    state parse_int_md {
        pkt.extract(hdr.int_md);
        transition select(hdr.int_shim.len) {
            8w3     : accept;              // no hop records yet
            8w5     : parse_int_last_hop;  // one record
            8w7     : parse_int_hop;       // two records
            default : accept;              // longer stacks stay in payload
        }
    }

    state parse_int_hop {
        pkt.extract(hdr.int_hops.next);
        transition parse_int_last_hop;
    }

    state parse_int_last_hop {
        pkt.extract(hdr.int_hops.next);
        transition accept;
    }
}

/* ------------------------------------------------------------------------
 * Ingress control
 * --------------------------------------------------------------------- */
control IntIngress(inout header_t hdr,
                   inout ingress_metadata_t ig_md,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* ---- Table 1: host-pair forwarding ---- */
    action set_port(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    action flow_miss() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    table flow_forward {
        key = {
            hdr.ipv4.src_addr : exact;
            hdr.ipv4.dst_addr : exact;
        }
        actions = {
            set_port;
            flow_miss;
        }
        const default_action = flow_miss();
        size = 50;
    }

    /* ---- Table 2: what this hop must report, from bits 0-3 ---- */
    action int_report_node(bit<32> node_id) {
        ig_md.int_node_id = node_id;
        ig_md.int_add_node_id = 1w1;
    }

    action int_report_latency() {
        ig_md.int_ingress_tstamp = ig_prsr_md.global_tstamp[31:0];
        ig_md.int_add_latency = 1w1;
    }

    action int_report_node_and_latency(bit<32> node_id) {
        ig_md.int_node_id = node_id;
        ig_md.int_add_node_id = 1w1;
        ig_md.int_ingress_tstamp = ig_prsr_md.global_tstamp[31:0];
        ig_md.int_add_latency = 1w1;
    }

    table int_inst_0003 {
        key = {
            hdr.int_md.inst_mask_0003 : exact;
        }
        actions = {
            int_report_node;
            int_report_latency;
            int_report_node_and_latency;
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            flow_forward.apply();
        }
        if (hdr.int_md.isValid()) {
            int_inst_0003.apply();
        }
    }
}

control IntIngressDeparser(packet_out pkt,
                           inout header_t hdr,
                           in ingress_metadata_t ig_md,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ------------------------------------------------------------------------
 * Egress: pass-through (the hop record itself would be pushed here; the
 * latency study only covers ingress)
 * --------------------------------------------------------------------- */
parser IntEgressParser(packet_in pkt,
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

control IntEgress(inout egress_header_t hdr,
                  inout egress_metadata_t eg_md,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {
    }
}

control IntEgressDeparser(packet_out pkt,
                          inout egress_header_t hdr,
                          in egress_metadata_t eg_md,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

Pipeline(IntIngressParser(),
         IntIngress(),
         IntIngressDeparser(),
         IntEgressParser(),
         IntEgress(),
         IntEgressDeparser()) pipe;

Switch(pipe) main;
