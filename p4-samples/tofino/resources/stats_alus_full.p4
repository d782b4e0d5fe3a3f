/* -*- P4_16 -*- */
/*
 * stats_alus_full.p4 -- five independent exact tables, each counting its
 * hits: four with a DirectCounter, the fifth with an indirect Counter its
 * action indexes (TNA). Written for p4cost's tests (tests/resources.rs).
 *
 * A Tofino stage has 4 statistics ALUs and each counter takes one in the
 * stage of its table (bf-p4c bf-p4c/mau/memories.h STATS_ALUS = 4;
 * Memories::mem_info::constraint_check "too many stats tables").
 * Nothing else is short in stage 0, derived by hand with the model's
 * figures (models/tofino1-mau-estimate.json):
 *   each table: 1,024 entries of a 16-bit key, 6 per 128-bit word
 *   (16 + 4 overhead bits), 4 ways of one RAM: 4 match SRAM blocks;
 *   t1-t4's direct counter: 1,024 cells x 64 bits = 0.5 block -> 1, plus
 *   the two-port spare bank: 2 SRAM blocks and 2 map RAMs;
 *   t5's Counter(1024): the same 2 + 2.
 *   Stage 0 holds 5 x 6 = 30 of 80 SRAM, 10 of 48 map RAMs, 5 of 16
 *   logical tables, 5 x 40 = 200 of 416 hash bits (4 ways x 10 bits).
 * So the statistics ALUs alone decide: t1-t4 take stage 0's four, t5
 * (last in control-flow order, no chain below any of them) goes to stage
 * 1: "no statistics ALU left". Expected per stage: stage 0 4/4 stats
 * ALUs, stage 1 1/4.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_h {
    bit<16> a;
    bit<16> b;
    bit<16> c;
    bit<16> d;
    bit<16> e;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
}

struct ingress_metadata_t {
    bit<10> idx;
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
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) c1;
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) c2;
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) c3;
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) c4;
    Counter<bit<64>, bit<10>>(1024, CounterType_t.PACKETS_AND_BYTES) c5;

    action hit1() { c1.count(); }
    action hit2() { c2.count(); }
    action hit3() { c3.count(); }
    action hit4() { c4.count(); }
    action hit5() { c5.count(ig_md.idx); }

    table t1 {
        key = { hdr.vlan.a : exact; }
        actions = { hit1; }
        counters = c1;
        size = 1024;
    }
    table t2 {
        key = { hdr.vlan.b : exact; }
        actions = { hit2; }
        counters = c2;
        size = 1024;
    }
    table t3 {
        key = { hdr.vlan.c : exact; }
        actions = { hit3; }
        counters = c3;
        size = 1024;
    }
    table t4 {
        key = { hdr.vlan.d : exact; }
        actions = { hit4; }
        counters = c4;
        size = 1024;
    }
    table t5 {
        key = { hdr.vlan.e : exact; }
        actions = { hit5; }
        size = 1024;
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
