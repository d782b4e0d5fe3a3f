/* -*- P4_16 -*- */
/*
 * selector_words.p4 -- five independent tables, each with its own
 * ActionSelector of up to 1,200 members in 1,024 groups (TNA). Written
 * for p4cost's tests (tests/resources.rs).
 *
 * A selector's words take a RAM line per 120 members of its largest
 * group, per group (bf-p4c Memories::swbox_bus_selectors_indirects:
 * SelectorRAMLinesPerEntry x num_pools lines, two-port: mems_needed adds
 * a spare bank; a map RAM beside each block). Derived by hand with the
 * model's figures (models/tofino1-mau-estimate.json):
 *   selector: ceil(1200 / 120) = 10 lines x 1,024 groups = 10,240 lines
 *   = 10 blocks of 1,024, plus the spare: 11 SRAM blocks, 11 map RAMs,
 *   one meter ALU;
 *   match: 512 entries of a 16-bit key: 4 SRAM blocks (4 ways);
 *   action data: set_i's 8 bits ride in the match result.
 *   15 SRAM blocks and 11 map RAMs per table; stage 0 (control-flow
 *   order, nothing depends on anything) holds four: 44 of 48 map RAMs
 *   and 4 of 4 meter ALUs; t5 needs 55 map RAMs and a fifth ALU: stage
 *   1 (map RAMs are checked after the ALUs: "no meter/stateful ALU left").
 * Expected: stage 0 60/80 SRAM, 44/48 map RAMs, 4/4 meter ALUs; stage 1
 * 15, 11, 1. Before the selector's words were counted: 4 SRAM blocks and
 * no map RAM per table (t5 still in stage 1, by its meter ALU).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_h {
    bit<16> k1;
    bit<16> k2;
    bit<16> k3;
    bit<16> k4;
    bit<16> k5;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
}

struct ingress_metadata_t {
    bit<8> m1;
    bit<8> m2;
    bit<8> m3;
    bit<8> m4;
    bit<8> m5;
}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.vlan);
        transition accept;
    }
}

control IgDeparser(packet_out pkt, inout header_t hdr, in ingress_metadata_t ig_md,
                   in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

struct egress_metadata_t {}

parser EgParser(packet_in pkt, out header_t hdr, out egress_metadata_t eg_md,
                out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

control Eg(inout header_t hdr, inout egress_metadata_t eg_md,
           in egress_intrinsic_metadata_t eg_intr_md,
           in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
           inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
           inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
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

    action set1(bit<8> v) { ig_md.m1 = v; }
    ActionProfile(1024) prof1;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h1;
    ActionSelector(prof1, h1, SelectorMode_t.FAIR, 1200, 1024) sel1;
    table t1 {
        key = { hdr.vlan.k1 : exact; hdr.ethernet.src_addr : selector; }
        actions = { set1; }
        implementation = sel1;
        size = 512;
    }

    action set2(bit<8> v) { ig_md.m2 = v; }
    ActionProfile(1024) prof2;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h2;
    ActionSelector(prof2, h2, SelectorMode_t.FAIR, 1200, 1024) sel2;
    table t2 {
        key = { hdr.vlan.k2 : exact; hdr.ethernet.src_addr : selector; }
        actions = { set2; }
        implementation = sel2;
        size = 512;
    }

    action set3(bit<8> v) { ig_md.m3 = v; }
    ActionProfile(1024) prof3;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h3;
    ActionSelector(prof3, h3, SelectorMode_t.FAIR, 1200, 1024) sel3;
    table t3 {
        key = { hdr.vlan.k3 : exact; hdr.ethernet.src_addr : selector; }
        actions = { set3; }
        implementation = sel3;
        size = 512;
    }

    action set4(bit<8> v) { ig_md.m4 = v; }
    ActionProfile(1024) prof4;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h4;
    ActionSelector(prof4, h4, SelectorMode_t.FAIR, 1200, 1024) sel4;
    table t4 {
        key = { hdr.vlan.k4 : exact; hdr.ethernet.src_addr : selector; }
        actions = { set4; }
        implementation = sel4;
        size = 512;
    }

    action set5(bit<8> v) { ig_md.m5 = v; }
    ActionProfile(1024) prof5;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) h5;
    ActionSelector(prof5, h5, SelectorMode_t.FAIR, 1200, 1024) sel5;
    table t5 {
        key = { hdr.vlan.k5 : exact; hdr.ethernet.src_addr : selector; }
        actions = { set5; }
        implementation = sel5;
        size = 512;
    }

    apply {
        t1.apply();
        t2.apply();
        t3.apply();
        t4.apply();
        t5.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
