/* -*- P4_16 -*- */
/*
 * ctor_params.p4 -- a parser and a control passed as constructor
 * parameters (TNA): IgParser(VlanTag()) applies its `tag` parameter in
 * parse_vlan, Ig(Mark()) applies its `step` parameter before by_x, which
 * keys on what Mark sets. p4cost follows both (tests/deps_stages.rs).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header vlan_h { bit<16> tci; bit<16> ty; }
struct header_t { ethernet_h ethernet; vlan_h vlan; }
struct md_t { bit<8> x; }
struct emd_t {}

parser TagT(packet_in pkt, out header_t hdr);
parser VlanTag(packet_in pkt, out header_t hdr) {
    state start { pkt.extract(hdr.vlan); transition accept; }
}

parser IgParser(packet_in pkt, out header_t hdr, out md_t md,
                out ingress_intrinsic_metadata_t ig)(TagT tag) {
    state start {
        pkt.extract(ig);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ty) {
            0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan {
        tag.apply(pkt, hdr);
        transition accept;
    }
}

control StepT(inout header_t hdr, inout md_t md);
control Mark(inout header_t hdr, inout md_t md) {
    action set_x(bit<8> v) { md.x = v; }
    table mark { key = { hdr.ethernet.dst : exact; } actions = { set_x; NoAction; } const default_action = NoAction; }
    apply { mark.apply(); }
}

control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm)(StepT step) {
    action fwd(PortId_t p) { tm.ucast_egress_port = p; }
    table by_x { key = { md.x : exact; } actions = { fwd; NoAction; } const default_action = NoAction; }
    apply {
        step.apply(hdr, md);
        by_x.apply();
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }
control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }
control ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(VlanTag()), Ig(Mark()), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
