/* -*- P4_16 -*- */
/*
 * gateways_full.p4 -- nine nested conditions `if (a_i) { if (b_i) {
 * t_i.apply(); } }` on nine distinct header fields each, no table writing
 * anything (TNA). Written for p4cost's tests (tests/resources.rs).
 *
 * bf-p4c merges a gateway into a match table it controls
 * (TablePlacement::gateway_merge): the inner `if (b_i)` goes with t_i,
 * one gateway row and t_i's logical table. The outer `if (a_i)` controls
 * only another condition: a gateway table of its own, one gateway row and
 * one logical table (Memories::analyze_tables, independent_gw_tables).
 * A Tofino stage has 16 gateway rows (8 rows x GATEWAYS_PER_ROW 2) and 16
 * logical tables. Derived by hand:
 *   nothing depends on anything: every unit may go to stage 0, and the
 *   units are placed in control-flow order (no chain below any of them;
 *   `if (b_i)` becomes ready once `if (a_i)` is placed, before
 *   `if (a_{i+1})` in control-flow order);
 *   a_i takes a row and a logical table; b_i merges into t_i, and t_i
 *   takes b_i's row and its own logical table: 2 + 2 per pair;
 *   a1..a8, b1..b8, t1..t8: 16 rows and 16 logical tables, stage 0 full;
 *   a9 finds no logical table (nor row) left: stage 1, and b9 with t9
 *   after it (control dependency): 2 rows, 2 logical tables.
 * Expected: stage 0 16/16 gateways, 16/16 logical tables; stage 1 2/16
 * and 2/16; "if (hdr.c.a9 == 1) moved past stage 0: no logical table
 * left" (logical tables are checked first; both are full). Counted as
 * before (gateways after the placement, the outer ones without a logical
 * table), stage 0 held 9 tables and 18 gateways, over its 16.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header cond_h {
    bit<8> a1;
    bit<8> b1;
    bit<8> k1;
    bit<8> a2;
    bit<8> b2;
    bit<8> k2;
    bit<8> a3;
    bit<8> b3;
    bit<8> k3;
    bit<8> a4;
    bit<8> b4;
    bit<8> k4;
    bit<8> a5;
    bit<8> b5;
    bit<8> k5;
    bit<8> a6;
    bit<8> b6;
    bit<8> k6;
    bit<8> a7;
    bit<8> b7;
    bit<8> k7;
    bit<8> a8;
    bit<8> b8;
    bit<8> k8;
    bit<8> a9;
    bit<8> b9;
    bit<8> k9;
}

struct header_t {
    ethernet_h ethernet;
    cond_h     c;
}

struct ingress_metadata_t {}

parser IgParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.c);
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
    table t1 {
        key = { hdr.c.k1 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t2 {
        key = { hdr.c.k2 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t3 {
        key = { hdr.c.k3 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t4 {
        key = { hdr.c.k4 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t5 {
        key = { hdr.c.k5 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t6 {
        key = { hdr.c.k6 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t7 {
        key = { hdr.c.k7 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t8 {
        key = { hdr.c.k8 : exact; }
        actions = { NoAction; }
        size = 256;
    }
    table t9 {
        key = { hdr.c.k9 : exact; }
        actions = { NoAction; }
        size = 256;
    }

    apply {
        if (hdr.c.a1 == 1) {
            if (hdr.c.b1 == 2) {
                t1.apply();
            }
        }
        if (hdr.c.a2 == 1) {
            if (hdr.c.b2 == 2) {
                t2.apply();
            }
        }
        if (hdr.c.a3 == 1) {
            if (hdr.c.b3 == 2) {
                t3.apply();
            }
        }
        if (hdr.c.a4 == 1) {
            if (hdr.c.b4 == 2) {
                t4.apply();
            }
        }
        if (hdr.c.a5 == 1) {
            if (hdr.c.b5 == 2) {
                t5.apply();
            }
        }
        if (hdr.c.a6 == 1) {
            if (hdr.c.b6 == 2) {
                t6.apply();
            }
        }
        if (hdr.c.a7 == 1) {
            if (hdr.c.b7 == 2) {
                t7.apply();
            }
        }
        if (hdr.c.a8 == 1) {
            if (hdr.c.b8 == 2) {
                t8.apply();
            }
        }
        if (hdr.c.a9 == 1) {
            if (hdr.c.b9 == 2) {
                t9.apply();
            }
        }
    }
}

Pipeline(IgParser(), Ig(), IgDeparser(), EgParser(), Eg(), EgDeparser()) pipe;
Switch(pipe) main;
