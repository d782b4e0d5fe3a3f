/* -*- P4_16 -*- */
/*
 * register_actions.p4 -- registers used only through RegisterActions
 * executed in table actions (TNA). Written for p4cost's tests
 * (tests/resources.rs).
 *
 * A register's RAM, map RAMs and stateful (meter) ALU go with the table
 * whose action executes a RegisterAction on it; bf-p4c makes one
 * StatefulAlu per register however many RegisterActions run on it
 * (common/extract_maupipe.cpp, updateAttachedSalu). Derived by hand with
 * the model's figures (models/tofino1-mau-estimate.json):
 *   t1, t2, t3: 1,024 entries of a 16-bit key: 4 match SRAM blocks
 *   (4 ways), 40 hash bits; each executes one RegisterAction on its own
 *   Register<bit<32>, bit<16>>(65536): 65,536 x 32 bits = 16 blocks of
 *   1,024 x 128 bits, plus the two-port spare: 17 SRAM blocks and 17 map
 *   RAMs, one meter ALU. 21 SRAM blocks each.
 *   t4: the same match (4 blocks); its two actions execute two
 *   RegisterActions on one Register<bit<32>, bit<12>>(4096): 4,096 x 32
 *   bits = 1 block + spare = 2 SRAM blocks, 2 map RAMs, ONE meter ALU.
 *   Stage 0 (control-flow order, nothing depends on anything): t1 and t2
 *   take 42 SRAM, 34 map RAMs; t3 would need 34 + 17 = 51 map RAMs of 48:
 *   it goes to stage 1 whole (an indirect register keeps its table in one
 *   stage on Tofino 1); t4 fits: 48 SRAM, 36 map RAMs, 3 meter ALUs.
 * Expected: stage 0: t1, t2, t4, 48/80 SRAM, 36/48 map RAMs, 3/4 meter
 * ALUs; stage 1: t3, 21 SRAM, 17 map RAMs, 1 meter ALU. Before registers
 * were seen through their RegisterActions the tables took 16 SRAM blocks
 * and no map RAM in all, and t4 two meter ALUs (one per RegisterAction):
 * t1-t3 in stage 0 and t4 pushed to stage 1 (3 + 2 > 4 meter ALUs).
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
    bit<12> i4;
    bit<4>  pad;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
}

struct ingress_metadata_t {}

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
    Register<bit<32>, bit<16>>(65536) reg1;
    RegisterAction<bit<32>, bit<16>, bit<32>>(reg1) bump1 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    action a1() { bump1.execute(hdr.vlan.k1); }
    table t1 {
        key = { hdr.vlan.k1 : exact; }
        actions = { a1; }
        size = 1024;
    }

    Register<bit<32>, bit<16>>(65536) reg2;
    RegisterAction<bit<32>, bit<16>, bit<32>>(reg2) bump2 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    action a2() { bump2.execute(hdr.vlan.k2); }
    table t2 {
        key = { hdr.vlan.k2 : exact; }
        actions = { a2; }
        size = 1024;
    }

    Register<bit<32>, bit<16>>(65536) reg3;
    RegisterAction<bit<32>, bit<16>, bit<32>>(reg3) bump3 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    action a3() { bump3.execute(hdr.vlan.k3); }
    table t3 {
        key = { hdr.vlan.k3 : exact; }
        actions = { a3; }
        size = 1024;
    }

    Register<bit<32>, bit<12>>(4096) reg4;
    RegisterAction<bit<32>, bit<12>, bit<32>>(reg4) up4 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    RegisterAction<bit<32>, bit<12>, bit<32>>(reg4) down4 = {
        void apply(inout bit<32> v) { v = v - 1; }
    };
    action inc4() { up4.execute(hdr.vlan.i4); }
    action dec4() { down4.execute(hdr.vlan.i4); }
    table t4 {
        key = { hdr.vlan.k4 : exact; }
        actions = { inc4; dec4; }
        size = 1024;
    }

    apply {
        t1.apply();
        t2.apply();
        t3.apply();
        t4.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
