/* -*- P4_16 -*- */
/*
 * basic_router.p4 -- small IPv4 router for the BMv2 simple_switch target
 * (v1model).
 *
 * Parse path for a routed TCP packet: ethernet, ipv4, tcp.
 * Tables:
 *   ingress: ipv4_routes (LPM on the destination, picks a next-hop index),
 *            next_hops   (exact on the index, sets port and next-hop MAC)
 *   egress:  port_mac    (exact on the egress port, sets the source MAC)
 * The IPv4 header checksum is verified on input and recomputed on output.
 */

#include <core.p4>
#include <v1model.p4>

typedef bit<9>  port_t;
typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<8>  IP_PROTO_TCP   = 8w6;
const bit<8>  IP_PROTO_UDP   = 8w17;

/* ------------------------------------------------------------------------
 * Headers
 * --------------------------------------------------------------------- */
header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
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

struct headers_t {
    ethernet_h ethernet;
    ipv4_h     ipv4;
    tcp_h      tcp;
    udp_h      udp;
}

struct metadata_t {
    bit<16> next_hop_index;
}

/* ------------------------------------------------------------------------
 * Parser
 * --------------------------------------------------------------------- */
parser RouterParser(packet_in pkt,
                    out headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t std_meta) {

    state start {
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
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

    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

/* ------------------------------------------------------------------------
 * Checksum verification
 * --------------------------------------------------------------------- */
control RouterVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 4w5,
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.total_len,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.frag_offset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.src_addr,
              hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

/* ------------------------------------------------------------------------
 * Ingress
 * --------------------------------------------------------------------- */
control RouterIngress(inout headers_t hdr,
                      inout metadata_t meta,
                      inout standard_metadata_t std_meta) {

    counter(1024, CounterType.packets) next_hop_use;

    action discard() {
        mark_to_drop(std_meta);
    }

    action use_next_hop(bit<16> index) {
        meta.next_hop_index = index;
    }

    table ipv4_routes {
        key = {
            hdr.ipv4.dst_addr : lpm;
        }
        actions = {
            use_next_hop;
            discard;
        }
        default_action = discard();
        size = 4096;
    }

    action forward(port_t port, mac_addr_t dmac) {
        std_meta.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 8w1;
    }

    table next_hops {
        key = {
            meta.next_hop_index : exact;
        }
        actions = {
            forward;
            discard;
        }
        default_action = discard();
        size = 1024;
    }

    apply {
        if (std_meta.checksum_error == 1w1) {
            discard();
        } else if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 8w1) {
            if (ipv4_routes.apply().hit) {
                next_hop_use.count((bit<32>) meta.next_hop_index);
                next_hops.apply();
            }
        } else {
            discard();
        }
    }
}

/* ------------------------------------------------------------------------
 * Egress
 * --------------------------------------------------------------------- */
control RouterEgress(inout headers_t hdr,
                     inout metadata_t meta,
                     inout standard_metadata_t std_meta) {

    action set_source_mac(mac_addr_t smac) {
        hdr.ethernet.src_addr = smac;
    }

    table port_mac {
        key = {
            std_meta.egress_port : exact;
        }
        actions = {
            set_source_mac;
            NoAction;
        }
        default_action = NoAction();
        size = 512;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            port_mac.apply();
        }
    }
}

/* ------------------------------------------------------------------------
 * Checksum update
 * --------------------------------------------------------------------- */
control RouterComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 4w5,
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.total_len,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.frag_offset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.src_addr,
              hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

/* ------------------------------------------------------------------------
 * Deparser
 * --------------------------------------------------------------------- */
control RouterDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

V1Switch(RouterParser(),
         RouterVerifyChecksum(),
         RouterIngress(),
         RouterEgress(),
         RouterComputeChecksum(),
         RouterDeparser()) main;
