/* PSA with every block and both pipelines as named instances: the parser
 * and controls are instances (`ig_parser`, ...), given to named
 * IngressPipeline and EgressPipeline instances (`ip`, `ep`), which
 * PSA_Switch binds by name. Same blocks as nested_pipelines.p4. */
#include <core.p4>
#include <psa.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> checksum;
    bit<32> src; bit<32> dst;
}
header ipv6_t {
    bit<4> version; bit<8> traffic_class; bit<20> flow_label;
    bit<16> payload_len; bit<8> next_hdr; bit<8> hop_limit;
    bit<128> src; bit<128> dst;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; ipv6_t ipv6; }
struct metadata_t { }
struct empty_t { }

parser IgParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                in psa_ingress_parser_input_metadata_t istd,
                in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            0x86dd: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
    state parse_ipv6 { pkt.extract(hdr.ipv6); transition accept; }
}

control Ig(inout headers_t hdr, inout metadata_t meta,
           in psa_ingress_input_metadata_t istd,
           inout psa_ingress_output_metadata_t ostd) {
    action send(PortId_t port) { send_to_port(ostd, port); }
    action drop() { ingress_drop(ostd); }
    table route4 {
        key = { hdr.ipv4.dst : lpm; }
        actions = { send; drop; }
        default_action = drop();
        size = 1024;
    }
    table route6 {
        key = { hdr.ipv6.dst : lpm; }
        actions = { send; drop; }
        default_action = drop();
        size = 1024;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            route4.apply();
        } else if (hdr.ipv6.isValid()) {
            route6.apply();
        }
    }
}

control IgDeparser(packet_out pkt, out empty_t clone_i2e_meta,
                   out empty_t resubmit_meta, out empty_t normal_meta,
                   inout headers_t hdr, in metadata_t meta,
                   in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.ipv6); }
}

parser EgParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                in psa_egress_parser_input_metadata_t istd,
                in empty_t normal_meta, in empty_t clone_i2e_meta,
                in empty_t clone_e2e_meta) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}

control Eg(inout headers_t hdr, inout metadata_t meta,
           in psa_egress_input_metadata_t istd,
           inout psa_egress_output_metadata_t ostd) {
    action rewrite(bit<48> src) { hdr.ethernet.src = src; }
    table smac {
        key = { hdr.ethernet.dst : exact; }
        actions = { rewrite; NoAction; }
        default_action = NoAction();
        size = 256;
    }
    apply { smac.apply(); }
}

control EgDeparser(packet_out pkt, out empty_t clone_e2e_meta,
                   out empty_t recirculate_meta, inout headers_t hdr,
                   in metadata_t meta, in psa_egress_output_metadata_t istd,
                   in psa_egress_deparser_input_metadata_t edstd) {
    apply { pkt.emit(hdr.ethernet); }
}

IgParser() ig_parser;
Ig() ig;
IgDeparser() ig_deparser;
EgParser() eg_parser;
Eg() eg;
EgDeparser() eg_deparser;
IngressPipeline(ig_parser, ig, ig_deparser) ip;
EgressPipeline(eg_parser, eg, eg_deparser) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
