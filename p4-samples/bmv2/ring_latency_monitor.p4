// A ring-buffer latency monitor in the manner of the BMv2 service-chaining
// paper's Store/Enforce pair (section 2.1, written by p4cost; the paper's
// code is not published): a packet of the monitored flow entering on the
// upstream port records its arrival time in the next slot of `arrivals`,
// `head` advancing by one per packet; the packet returning from the
// service reads its slot back through `tail` and keeps the difference.
// A slot lives until the ring wraps: 1024 packets. At 100 kpps a packet
// away longer than 10.24 ms finds its slot overwritten, which
// `p4cost predict --rate 100Kpps --window 20ms` reports
// (register_window_too_small on `arrivals`, written through a local slot
// index copied from `head`). `last_seen`, indexed by a hash of the
// 5-tuple, holds one cell per flow and is not judged.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<16> flags_frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> csum;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
}

struct meta_t {
    bit<32> latency;
    bit<32> flow;
}

register<bit<32>>(1024) arrivals;
register<bit<32>>(1) head;
register<bit<32>>(1) tail;
register<bit<32>>(4096) last_seen;

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t std) {
    action forward(bit<9> port) { std.egress_spec = port; }
    action drop() { mark_to_drop(std); }
    table l2 {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    action record_arrival() {
        bit<32> h;
        head.read(h, 0);
        bit<32> slot = h & 1023;
        arrivals.write(slot, (bit<32>) std.ingress_global_timestamp);
        head.write(0, h + 1);
    }
    action measure() {
        bit<32> t;
        tail.read(t, 0);
        bit<32> a;
        arrivals.read(a, t & 1023);
        meta.latency = (bit<32>) std.ingress_global_timestamp - a;
        tail.write(0, t + 1);
    }
    table monitor {
        key = { std.ingress_port: exact; hdr.udp.dstPort: exact; }
        actions = { record_arrival; measure; NoAction; }
        default_action = NoAction();
    }
    apply {
        l2.apply();
        if (hdr.udp.isValid()) {
            monitor.apply();
            hash(meta.flow, HashAlgorithm.crc32, 32w0,
                 { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.udp.srcPort,
                   hdr.udp.dstPort, hdr.ipv4.protocol }, 32w4096);
            last_seen.write(meta.flow, (bit<32>) std.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
