/* -*- P4_16 -*- */
/*
 * alu_overflow.p4 -- one table whose action runs five RegisterActions on
 * five registers (TNA). Written for p4cost's tests (tests/resources.rs):
 * a Tofino 1 stage has 4 meter/stateful ALUs and one table's stateful
 * calls all run in the stage that holds it, so no stage can hold
 * `Ig.count_all` and the program does not fit (a finding, exit 1), however
 * many stages are free.
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
    bit<8> cls;
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
    Register<bit<32>, bit<8>>(256) r1;
    RegisterAction<bit<32>, bit<8>, bit<32>>(r1) bump1 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    Register<bit<32>, bit<8>>(256) r2;
    RegisterAction<bit<32>, bit<8>, bit<32>>(r2) bump2 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    Register<bit<32>, bit<8>>(256) r3;
    RegisterAction<bit<32>, bit<8>, bit<32>>(r3) bump3 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    Register<bit<32>, bit<8>>(256) r4;
    RegisterAction<bit<32>, bit<8>, bit<32>>(r4) bump4 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };
    Register<bit<32>, bit<8>>(256) r5;
    RegisterAction<bit<32>, bit<8>, bit<32>>(r5) bump5 = {
        void apply(inout bit<32> v) { v = v + 1; }
    };

    action count_five() {
        bump1.execute(ig_md.cls);
        bump2.execute(ig_md.cls);
        bump3.execute(ig_md.cls);
        bump4.execute(ig_md.cls);
        bump5.execute(ig_md.cls);
    }

    table count_all {
        key = { hdr.ethernet.ether_type : exact; }
        actions = { count_five; NoAction; }
        const default_action = NoAction;
        size = 64;
    }

    apply {
        count_all.apply();
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
