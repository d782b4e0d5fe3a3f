/* -*- P4_16 -*- */
/*
 * direct_counter_sram.p4 -- a direct counter's SRAM counts in its stage
 * (tests/resources.rs, direct_counter_sram_fills_the_stage). Tofino 1,
 * a 32-bit exact key and 4 overhead bits: 3 entries per 128-bit word,
 * 3,072 per 1,024-word block, at least 4 blocks (4 ways). `big`: 184,320
 * entries, 60 blocks. `counted`: 24,576 entries, 8 match blocks, and a
 * direct packets-and-bytes counter of 64 bits a cell, 2 per word, 2,048
 * per block: 12 blocks and the two-port spare bank, 13 SRAM blocks and
 * 13 map RAMs (bf-p4c `StageUseEstimate`: units + 1 spare, counted in
 * `srams` and `maprams`). Both in stage 0 would take 60 + 8 + 13 = 81 of
 * its 80 SRAM blocks, so `counted` cannot all go there: 20 blocks are
 * free; a part of n entries takes ceil(n / 3072) + ceil(n / 2048) + 1,
 * 20 for n = 22,528, so split it would end in stage 1 (the other 2,048
 * entries). The compiler keeps a table whole when waiting ends no later
 * than splitting: `counted` goes whole to stage 1 (21 SRAM blocks).
 */
#include <core.p4>
#include <tna.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h {
    bit<8> ver_ihl; bit<8> tos; bit<16> len; bit<16> id; bit<16> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<8> a; bit<8> b; }
struct emd_t {}

parser IgParser(packet_in pkt, out header_t hdr, out md_t md,
                out ingress_intrinsic_metadata_t ig) {
    state start {
        pkt.extract(ig);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ty) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) hits;
    action set_a(bit<8> v) { md.a = v; }
    action set_b(bit<8> v) { md.b = v; hits.count(); }
    table big { key = { hdr.ipv4.src : exact; } actions = { set_a; } size = 184320; }
    table counted {
        key = { hdr.ipv4.dst : exact; }
        actions = { set_b; }
        counters = hits;
        size = 24576;
    }
    apply {
        big.apply();
        counted.apply();
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
