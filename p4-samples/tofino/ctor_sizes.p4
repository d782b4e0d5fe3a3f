/* -*- P4_16 -*- */
/*
 * ctor_sizes.p4 -- table sizes given by control constructor parameters
 * (switch.p4 style, TNA): Acl is instantiated with a positional argument
 * (acl_a: 1024), a named one (acl_b: 2048) and none (acl_c: its default,
 * 300); Fib gets a constant and a macro expression (host 4096, lpm
 * 8192) and passes its own parameter down to a nested Acl (fib_acl:
 * 4096). Each instance's table has its own size (crates/front/tests).
 */
#include <core.p4>
#include <tna.p4>

#define LPM_BASE 4096
const bit<32> HOST_SIZE = 4096;

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ty; }
header ipv4_h { bit<32> src; bit<32> dst; }
struct header_t { ethernet_h ethernet; ipv4_h ipv4; }
struct md_t { bit<16> nh; }
struct emd_t {}

control Acl(inout header_t hdr, inout md_t md)(bit<32> table_size = 300) {
    action deny() { md.nh = 0; }
    table acl {
        key = { hdr.ipv4.src : ternary; }
        actions = { deny; NoAction; }
        const default_action = NoAction;
        size = table_size;
    }
    apply { acl.apply(); }
}

control Fib(inout header_t hdr, inout md_t md)(bit<32> host_size, bit<32> lpm_size,
                                               bool host_enable = true) {
    action hit(bit<16> nh) { md.nh = nh; }
    Acl(host_size) fib_acl;
    table host {
        key = { hdr.ipv4.dst : exact; }
        actions = { hit; NoAction; }
        const default_action = NoAction;
        size = host_size;
    }
    table lpm {
        key = { hdr.ipv4.dst : lpm; }
        actions = { hit; NoAction; }
        const default_action = NoAction;
        size = lpm_size;
    }
    apply {
        if (!host.apply().hit) { lpm.apply(); }
        fib_acl.apply(hdr, md);
    }
}

control Ig(inout header_t hdr, inout md_t md, in ingress_intrinsic_metadata_t ig,
           in ingress_intrinsic_metadata_from_parser_t pr,
           inout ingress_intrinsic_metadata_for_deparser_t dp,
           inout ingress_intrinsic_metadata_for_tm_t tm) {
    Acl(1024) acl_a;
    Acl(table_size = 2048) acl_b;
    Acl() acl_c;
    Fib(HOST_SIZE, LPM_BASE * 2) fib;
    apply {
        acl_a.apply(hdr, md);
        acl_b.apply(hdr, md);
        acl_c.apply(hdr, md);
        fib.apply(hdr, md);
        tm.ucast_egress_port = (PortId_t)md.nh[8:0];
    }
}
parser IP(packet_in pkt, out header_t hdr, out md_t md, out ingress_intrinsic_metadata_t ig) {
    state start {
        pkt.extract(ig);
        pkt.advance(PORT_METADATA_SIZE);
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}
control ID(packet_out pkt, inout header_t hdr, in md_t md, in ingress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
parser EP(packet_in pkt, out header_t hdr, out emd_t md, out egress_intrinsic_metadata_t eg) { state start { pkt.extract(eg); transition accept; } }
control Eg(inout header_t hdr, inout emd_t md, in egress_intrinsic_metadata_t eg,
           in egress_intrinsic_metadata_from_parser_t pr,
           inout egress_intrinsic_metadata_for_deparser_t dp,
           inout egress_intrinsic_metadata_for_output_port_t op) { apply { } }
control ED(packet_out pkt, inout header_t hdr, in emd_t md, in egress_intrinsic_metadata_for_deparser_t dp) { apply { pkt.emit(hdr); } }
Pipeline(IP(), Ig(), ID(), EP(), Eg(), ED()) pipe;
Switch(pipe) main;
