// The stand-alone (UC1) latency-control pipeline of the BMv2
// service-chaining paper, written out by p4cost from the paper's prose
// (its code is not published): ingress Table0 forwards, Store records the
// arrival time of a latency-constrained (LC) packet before the VNF,
// Enforce pairs it with the packet's return and reads PL, DL and the queue
// time; egress CongestionCheck copies the queue time of best-effort
// traffic into T_queue. `p4cost throughput --model bmv2-coarse` counts
// each class's register reads and writes: UDP (the LC path) 6 reads and
// 4 writes, the others the egress write only.
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
    bit<48> lat;
    bit<1>  enforce_hit;
}

register<bit<48>>(16384) t1;
register<bit<48>>(16384) t2;
register<bit<32>>(4) offset1;
register<bit<32>>(4) offset2;
register<bit<48>>(1) PL;
register<bit<48>>(1) DL;
register<bit<32>>(1) T_queue;

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
    action drop() { mark_to_drop(std); }
    action set_egress_port(bit<9> port) { std.egress_spec = port; }
    table Table0 {
        key = { std.ingress_port: exact; hdr.ethernet.srcAddr: exact;
                hdr.ethernet.dstAddr: exact; }
        actions = { set_egress_port; drop; }
        default_action = drop();
    }
    action store(bit<32> f) {
        bit<32> o;
        offset1.read(o, f);
        t1.write((f << 12) + o, std.ingress_global_timestamp);
        offset1.write(f, (o + 1) & 4095);
    }
    table Store {
        key = { std.ingress_port: exact; hdr.ipv4.srcAddr: exact;
                hdr.ipv4.dstAddr: exact; hdr.udp.srcPort: exact;
                hdr.udp.dstPort: exact; }
        actions = { store; NoAction; }
        default_action = NoAction();
    }
    action enforce(bit<32> f) {
        bit<32> o;
        offset2.read(o, f);
        bit<48> a;
        t1.read(a, (f << 12) + o);
        t2.write((f << 12) + o, std.ingress_global_timestamp);
        offset2.write(f, (o + 1) & 4095);
        bit<32> q;
        T_queue.read(q, 0);
        meta.lat = (std.ingress_global_timestamp - a) + (bit<48>) q;
        meta.enforce_hit = 1;
    }
    table Enforce {
        key = { std.ingress_port: exact; hdr.ipv4.srcAddr: exact;
                hdr.ipv4.dstAddr: exact; hdr.udp.srcPort: exact;
                hdr.udp.dstPort: exact; }
        actions = { enforce; NoAction; }
        default_action = NoAction();
    }
    apply {
        Table0.apply();
        if (hdr.udp.isValid()) {
            Store.apply();
            Enforce.apply();
            if (meta.enforce_hit == 1) {
                bit<48> pl;
                PL.read(pl, 0);
                bit<48> dl;
                DL.read(dl, 0);
                if (meta.lat > dl) {
                    mark_to_drop(std);
                } else if (meta.lat > pl) {
                    std.priority = 7;
                }
            }
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
    action record_q() { T_queue.write(0, std.deq_timedelta); }
    table CongestionCheck {
        key = { std.ingress_port: exact; hdr.ethernet.srcAddr: exact;
                hdr.ethernet.dstAddr: exact; }
        actions = { record_q; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (!hdr.udp.isValid()) {
            CongestionCheck.apply();
        }
    }
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
