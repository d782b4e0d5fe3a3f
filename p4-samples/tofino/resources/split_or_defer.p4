/* -*- P4_16 -*- */
/*
 * split_or_defer.p4 -- when a table that does not fit whole in the stage
 * its dependencies allow is split there, and when it waits whole for a
 * later stage (bf-p4c decides stage by stage, TablePlacement::
 * try_place_table; it prefers a placement that is not split,
 * DecidePlacement::is_better NEED_MORE). Tofino 1: 24 TCAM blocks a
 * stage; every key here is at most 44 bits wide, so a ternary table takes
 * one block per 512 entries (whole rows of 512).
 *
 *   a: 8,192 entries, 16 blocks: stage 0 (8 blocks left there).
 *   b: 6,144 entries, 12 blocks, no dependency: stage 0 holds 8 of its
 *      blocks; split from stage 0 it would end in stage 1 (4,096 + 2,048),
 *      and stage 1 holds it whole: it waits, whole in stage 1 (12 left).
 *   c: 15,360 entries, 30 blocks, matches on md.a that a writes: stage 1
 *      at the earliest, which holds 12 blocks (6,144 entries); no stage
 *      holds 30 blocks, so it is split: 6,144 in stage 1, the other 9,216
 *      (18 blocks) in stage 2 (6 left).
 *   d: 8,192 entries, 16 blocks, no dependency, executes an indirect
 *      meter: a Tofino 1 table with one cannot be split over stages
 *      (TablePlacement::can_split), so it passes stage 0 (8 left), stage 1
 *      (none) and stage 2 (6 left) and goes whole to stage 3.
 *
 * Without these rules the estimate split b over stages 0-1, put d in
 * stage 1 and c over stages 1-3 (2,048 + 12,288 + 1,024): three parts
 * and one stage more for c. tests/resources.rs,
 * split_or_defer_places_by_hand.
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct emd_t {}

parser IgParser(packet_in pkt, out header_t hdr, out md_t md,
                out ingress_intrinsic_metadata_t ig) {
    state start {
        pkt.extract(ig);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
    Meter<bit<10>>(1024, MeterType_t.BYTES) m;
    action set_a(bit<8> v) { md.a = v; }
    action set_b(bit<8> v) { md.b = v; }
    action set_c(bit<8> v) { md.c = v; }
    action meter_d(bit<10> i) { md.d = (bit<8>) m.execute(i); }
    table a { key = { hdr.ipv4.src : ternary; } actions = { set_a; NoAction; } size = 8192; }
    table b { key = { hdr.ipv4.dst : ternary; } actions = { set_b; NoAction; } size = 6144; }
    table c { key = { md.a : ternary; } actions = { set_c; NoAction; } size = 15360; }
    table d { key = { hdr.ipv4.ttl : ternary; } actions = { meter_d; NoAction; } size = 8192; }
    apply {
        a.apply();
        b.apply();
        c.apply();
        d.apply();
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }
control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }
control ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IgParser(), Ig(), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
