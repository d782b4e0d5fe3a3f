// Two pipelines with different parsers and controls, bound by one Switch
// (the pattern of a 2-pipe Tofino profile): pipe_l2 parses Ethernet and
// IPv4 and applies two tables; pipe_l3 also parses TCP/UDP and applies
// three. Used by the multi-pipeline tests (`--pipe`).
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id;
    bit<3> flags; bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum;
    bit<32> src; bit<32> dst;
}
header l4_h { bit<16> sport; bit<16> dport; }
struct headers_t { ethernet_h ethernet; ipv4_h ipv4; l4_h l4; }
struct meta_t { }

// ---- pipe_l2 -------------------------------------------------------------
parser L2IgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                  out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}
control L2Ingress(inout headers_t hdr, inout meta_t md,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action fwd(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    table port_map { key = { ig_intr_md.ingress_port : exact; } actions = { fwd; } }
    table vlan_map { key = { hdr.ethernet.ether_type : exact; } actions = { fwd; } }
    apply { port_map.apply(); vlan_map.apply(); }
}
control L2IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                     in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}
parser L2EgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                  out egress_intrinsic_metadata_t eg_intr_md) {
    state start { pkt.extract(eg_intr_md); transition accept; }
}
control L2Egress(inout headers_t hdr, inout meta_t md,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
}
control L2EgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                     in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { pkt.emit(hdr); }
}

// ---- pipe_l3 -------------------------------------------------------------
parser L3IgParser(packet_in pkt, out headers_t hdr, out meta_t md,
                  out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.proto) {
            6: parse_l4;
            17: parse_l4;
            default: accept;
        }
    }
    state parse_l4 { pkt.extract(hdr.l4); transition accept; }
}
control L3Ingress(inout headers_t hdr, inout meta_t md,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action fwd(PortId_t port) { ig_tm_md.ucast_egress_port = port; }
    table route { key = { hdr.ipv4.dst : exact; } actions = { fwd; } }
    table acl { key = { hdr.ipv4.src : exact; hdr.l4.dport : exact; } actions = { fwd; } }
    table port_map { key = { ig_intr_md.ingress_port : exact; } actions = { fwd; } }
    apply { route.apply(); acl.apply(); port_map.apply(); }
}
control L3IgDeparser(packet_out pkt, inout headers_t hdr, in meta_t md,
                     in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply { pkt.emit(hdr); }
}

Pipeline(L2IgParser(), L2Ingress(), L2IgDeparser(),
         L2EgParser(), L2Egress(), L2EgDeparser()) pipe_l2;
Pipeline(L3IgParser(), L3Ingress(), L3IgDeparser(),
         L2EgParser(), L2Egress(), L2EgDeparser()) pipe_l3;
Switch(pipe_l2, pipe_l3) main;
