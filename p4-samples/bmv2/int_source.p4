// An INT source in the manner of the BMv2 service-chaining paper's
// multi-switch segment (section 2.2, written by p4cost; the paper's code
// is not published): a UDP packet of a monitored flow gets, after its UDP
// header, an INT v1.0 shim (4 B), an INT metadata header (8 B) and this
// hop's three metadata words, switch id, hop latency and timestamp (4 B
// each): 24 B, as the paper's capture shows (Fig. 21, 996 -> 1020 B). The
// parser extracts none of them, so every pass through this pipeline adds
// 24 B: `p4cost predict --packet-size 1500` reports 1524 B over the
// 1500 B MTU (int_bytes_exceed_mtu); at the default 512 B it fits.
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

header int_shim_t {
    bit<8> int_type;
    bit<8> rsvd1;
    bit<8> len;
    bit<6> dscp;
    bit<2> rsvd2;
}

header int_md_t {
    bit<4>  ver;
    bit<2>  rep;
    bit<1>  c;
    bit<1>  e;
    bit<1>  m;
    bit<7>  rsvd1;
    bit<3>  rsvd2;
    bit<5>  hop_ml;
    bit<8>  remaining_hop_cnt;
    bit<16> instruction_mask;
    bit<16> rsvd3;
}

header int_word_t {
    bit<32> value;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    int_shim_t int_shim;
    int_md_t   int_md;
    int_word_t int_switch_id;
    int_word_t int_hop_latency;
    int_word_t int_tstamp;
}

struct meta_t { }

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
    apply { l2.apply(); }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t std) {
    action int_source(bit<32> switch_id) {
        hdr.int_shim.setValid();
        hdr.int_shim.int_type = 1;
        hdr.int_shim.len = 6;
        hdr.int_md.setValid();
        hdr.int_md.ver = 1;
        hdr.int_md.hop_ml = 3;
        hdr.int_md.instruction_mask = 0xA400;
        hdr.int_switch_id.setValid();
        hdr.int_switch_id.value = switch_id;
        hdr.int_hop_latency.setValid();
        hdr.int_hop_latency.value = (bit<32>) (std.egress_global_timestamp - std.ingress_global_timestamp);
        hdr.int_tstamp.setValid();
        hdr.int_tstamp.value = (bit<32>) std.egress_global_timestamp;
        hdr.ipv4.totalLen = hdr.ipv4.totalLen + 24;
        hdr.udp.len = hdr.udp.len + 24;
    }
    table int_flows {
        key = { hdr.ipv4.srcAddr: exact; hdr.ipv4.dstAddr: exact;
                hdr.udp.dstPort: exact; }
        actions = { int_source; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.udp.isValid()) {
            int_flows.apply();
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.int_shim);
        pkt.emit(hdr.int_md);
        pkt.emit(hdr.int_switch_id);
        pkt.emit(hdr.int_hop_latency);
        pkt.emit(hdr.int_tstamp);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
