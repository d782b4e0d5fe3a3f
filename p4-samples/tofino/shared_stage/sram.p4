/* -*- P4_16 -*- */
/*
 * sram.p4 -- one large exact table in ingress (big, 159,744 entries) and
 * one small one in egress (small, 1,024 entries), TNA. Written for
 * p4cost's tests (tests/shared_stages.rs): a 48-bit exact key plus 4
 * overhead bits packs 2 entries per 128-bit word, so big takes
 * 159744 / 2 / 1024 = 78 SRAM blocks and small 4 (the fewest an exact
 * table takes); each alone fits a stage's 80 blocks, both do not
 * (82 > 80). Ingress and egress share the stages: big fills stage 0 to 78
 * blocks, the 2 left are fewer than small's 4, so small goes to stage 1,
 * pushed there by ingress's use of stage 0.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct header_t {
    ethernet_h ethernet;
}

struct ingress_metadata_t {}
struct egress_metadata_t {}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control IgDeparser(packet_out pkt, inout header_t hdr, in ingress_metadata_t ig_md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

parser EgParser(packet_in pkt, out header_t hdr, out egress_metadata_t eg_md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgDeparser(packet_out pkt, inout header_t hdr, in egress_metadata_t eg_md,
                   in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

control Ig(inout header_t hdr, inout ingress_metadata_t ig_md,
           in ingress_intrinsic_metadata_t ig_intr_md,
           in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
           inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
           inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    table big {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 159744;
    }

    apply {
        big.apply();
    }
}

control Eg(inout header_t hdr, inout egress_metadata_t eg_md,
           in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    table small {
        key = { hdr.ethernet.dst_addr : exact; }
        actions = { NoAction; }
        const default_action = NoAction;
        size = 1024;
    }

    apply {
        small.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
