/* -*- P4_16 -*- */
/*
 * cpu_tables.p4 -- the t4p4s CPU model's cases (tests/t4p4s.rs): tables laid
 * out as Scholz et al. (ITC 32, 2020) measured them.
 *
 *   flows  exact, 4 x 32-bit keys (the 4 x 4 B layout), one 32-bit
 *          parameter (64 B of action data once padded to a cache line)
 *   routes lpm, one 32-bit key (IPv4, DIR-24-8)
 *   acl    ternary, 4 x 32-bit keys
 *
 * Classes: a non-IPv4 packet applies no table; an IPv4 packet applies
 * flows, then routes on a miss; a TCP packet (protocol 6) also acl.
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<32> id_flags;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
    bit<32> ports;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct meta_t {
    bit<32> tag;
}

parser Parse(packet_in pkt, out headers_t hdr, inout meta_t meta,
             inout standard_metadata_t sm) {
    state start {
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

control Verify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ingress(inout headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    action forward(bit<32> port) {
        sm.egress_spec = port[8:0];
    }
    action drop() {
        mark_to_drop(sm);
    }
    table flows {
        key = {
            hdr.ipv4.src: exact;
            hdr.ipv4.dst: exact;
            hdr.ipv4.ports: exact;
            hdr.ipv4.id_flags: exact;
        }
        actions = { forward; drop; }
        size = 100;
    }
    table routes {
        key = { hdr.ipv4.dst: lpm; }
        actions = { forward; drop; }
        size = 1000;
    }
    table acl {
        key = {
            hdr.ipv4.src: ternary;
            hdr.ipv4.dst: ternary;
            hdr.ipv4.ports: ternary;
            hdr.ipv4.id_flags: ternary;
        }
        actions = { drop; NoAction; }
        size = 100;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            if (!flows.apply().hit) {
                routes.apply();
            }
            if (hdr.ipv4.protocol == 6) {
                acl.apply();
            }
        }
    }
}

control Egress(inout headers_t hdr, inout meta_t meta,
               inout standard_metadata_t sm) {
    apply { }
}

control Compute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Deparse(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(Parse(), Verify(), Ingress(), Egress(), Compute(), Deparse()) main;
