/* PNA: PNA_NIC(main_parser, pre_control, main_control, main_deparser).
 * The main parser reads Ethernet then IPv4 (or nothing more); the main
 * control has one exact table on the IPv4 destination. The pre-control is
 * empty, as in p4c's PNA samples. */
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> checksum;
    bit<32> src; bit<32> dst;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct metadata_t { }

parser NicParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                 in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control NicPre(in headers_t hdr, inout metadata_t meta,
               in pna_pre_input_metadata_t istd,
               inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control NicMain(inout headers_t hdr, inout metadata_t meta,
                in pna_main_input_metadata_t istd,
                inout pna_main_output_metadata_t ostd) {
    action forward(PortId_t port) { send_to_port(port); }
    action drop() { drop_packet(); }
    table flows {
        key = { hdr.ipv4.dst : exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 4096;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            flows.apply();
        }
    }
}

control NicDeparser(packet_out pkt, in headers_t hdr, in metadata_t meta,
                    in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); }
}

PNA_NIC(NicParser(), NicPre(), NicMain(), NicDeparser()) main;
