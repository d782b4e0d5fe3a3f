/* -*- P4_16 -*- */
/*
 * stage_lengths.p4 -- what lengthens a Tofino stage (TNA), for p4cost's
 * tests: a chain of three match dependencies puts
 *   stage 0: t_tern, a ternary table (TCAM: +2 cycles)
 *   stage 1: t_reg, whose action runs a RegisterAction (stateful ALU: +4)
 *   stage 2: t_sel, implemented by an ActionSelector with groups of up to
 *            200 members (selector: +8, wide selector: +2)
 * Expected figures are derived by hand in tests/deps_stages.rs.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_h {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

struct header_t {
    ethernet_h ethernet;
    vlan_h     vlan;
}

struct ingress_metadata_t {
    bit<16> a;
    bit<32> b;
}

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

    Register<bit<32>, bit<16>>(65536) counts;
    RegisterAction<bit<32>, bit<16>, bit<32>>(counts) bump = {
        void apply(inout bit<32> v, out bit<32> rv) {
            v = v + 1;
            rv = v;
        }
    };
    ActionProfile(1024) profile;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) sel_hash;
    ActionSelector(profile, sel_hash, SelectorMode_t.FAIR, 200, 64) selector;

    action set_a(bit<16> a) { ig_md.a = a; }
    action count_a() { ig_md.b = bump.execute(ig_md.a); }
    action set_port(PortId_t p) { ig_tm_md.ucast_egress_port = p; }

    table t_tern {
        key = { hdr.ethernet.dst_addr : ternary; }
        actions = { set_a; NoAction; }
        const default_action = NoAction;
        size = 512;
    }
    table t_reg {
        key = { ig_md.a : exact; }
        actions = { count_a; NoAction; }
        const default_action = NoAction;
        size = 1024;
    }
    table t_sel {
        key = {
            ig_md.b : exact;
            hdr.ethernet.src_addr : selector;
        }
        actions = { set_port; NoAction; }
        const default_action = NoAction;
        implementation = selector;
        size = 1024;
    }

    apply {
        t_tern.apply();
        t_reg.apply();
        t_sel.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
