/* -*- P4_16 -*- */
/*
 * l3_router.p4 -- VRF-aware IPv4/IPv6 router with L2 bridging, ACL, ECMP
 * and a SYN-rate watchdog (Tofino 1, TNA).
 *
 * This is p4cost's largest Tofino sample and is used for benchmarking the
 * front end and the analyses.  Features exercised:
 *   - parser: Ethernet, a two-entry VLAN tag stack walked by a loop state,
 *     IPv4 (with parser checksum verification), IPv6, TCP, UDP, ICMP
 *   - a bridged-metadata header carried from ingress to egress
 *   - exact, ternary and LPM tables, const entries, @name annotations
 *   - ActionProfile + ActionSelector (ECMP next hops) fed by a Hash
 *   - indexed Counter, DirectCounter, Register + RegisterAction
 *   - `if (t.apply().hit)`, `if (!t.apply().hit)` and
 *     `switch (t.apply().action_run)`
 *   - IPv4 checksum update in the ingress deparser
 *
 * Typical IPv4/TCP path after Ethernet: hdr.ipv4, hdr.tcp.
 * Tagged IPv6/UDP path after Ethernet: hdr.vlan, hdr.ipv6, hdr.udp.
 */

#include <core.p4>
#include <tna.p4>

/* ========================================================================
 * Types and constants
 * ===================================================================== */
typedef bit<48>  mac_addr_t;
typedef bit<32>  ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<12>  vlan_id_t;
typedef bit<16>  bd_t;          // bridge domain
typedef bit<12>  vrf_t;         // virtual routing and forwarding instance
typedef bit<16>  nexthop_id_t;

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_IPV6 = 16w0x86dd;
const bit<16> ETHERTYPE_VLAN = 16w0x8100;
const bit<16> ETHERTYPE_QINQ = 16w0x88a8;

const bit<8> IP_PROTO_ICMP   = 8w1;
const bit<8> IP_PROTO_TCP    = 8w6;
const bit<8> IP_PROTO_UDP    = 8w17;
const bit<8> IP_PROTO_ICMPV6 = 8w58;

const bit<8> TCP_FLAG_SYN = 8w0x02;
const bit<8> TCP_FLAG_ACK = 8w0x10;

/* CPU port of pipe 0 on a 64-port Tofino 1 system. */
const PortId_t CPU_PORT = 9w64;

/* SYNs per bucket between control-plane resets before we start dropping. */
const bit<16> SYN_ALARM_LEVEL = 16w4000;

/* ========================================================================
 * Headers
 * ===================================================================== */

/* Prepended by the ingress deparser, consumed by the egress parser. */
header bridged_md_h {
    bit<7>   pad0;
    PortId_t ingress_port;
    bd_t     bd;
}

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header vlan_tag_h {
    bit<3>    pcp;
    bit<1>    dei;
    vlan_id_t vid;
    bit<16>   ether_type;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header ipv6_h {
    bit<4>      version;
    bit<8>      traffic_class;
    bit<20>     flow_label;
    bit<16>     payload_len;
    bit<8>      next_hdr;
    bit<8>      hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

header tcp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

header icmp_h {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
}

struct header_t {
    bridged_md_h  bridged;
    ethernet_h    ethernet;
    vlan_tag_h[2] vlan;
    ipv4_h        ipv4;
    ipv6_h        ipv6;
    tcp_h         tcp;
    udp_h         udp;
    icmp_h        icmp;
}

struct ingress_metadata_t {
    vlan_id_t    vid;              // outer VLAN id, 0 when untagged
    bd_t         bd;
    vrf_t        vrf;
    nexthop_id_t nexthop_id;
    bit<16>      l4_src_port;
    bit<16>      l4_dst_port;
    bit<32>      flow_sel;         // pre-hash of the 5-tuple for ECMP
    bit<1>       punt;
    bit<1>       routed;
    bool         ipv4_checksum_ok;
}

struct egress_header_t {
    bridged_md_h  bridged;
    ethernet_h    ethernet;
    vlan_tag_h[2] vlan;
}

struct egress_metadata_t {
    vlan_id_t out_vid;
}

/* ========================================================================
 * Ingress parser
 * ===================================================================== */
parser RouterIngressParser(packet_in pkt,
                           out header_t hdr,
                           out ingress_metadata_t ig_md,
                           out ingress_intrinsic_metadata_t ig_intr_md) {

    Checksum() ipv4_checksum;

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        ig_md.vid = 12w0;
        ig_md.bd = 16w0;
        ig_md.vrf = 12w0;
        ig_md.nexthop_id = 16w0;
        ig_md.l4_src_port = 16w0;
        ig_md.l4_dst_port = 16w0;
        ig_md.flow_sel = 32w0;
        ig_md.punt = 1w0;
        ig_md.routed = 1w0;
        ig_md.ipv4_checksum_ok = true;
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_QINQ : parse_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    /* Up to two tags; a third one overflows the stack and fails parsing. */
    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_IPV6 : parse_ipv6;
            default        : accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        ipv4_checksum.add(hdr.ipv4);
        ig_md.ipv4_checksum_ok = ipv4_checksum.verify();
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_TCP)  : parse_tcp;
            (4w5, 13w0, IP_PROTO_UDP)  : parse_udp;
            (4w5, 13w0, IP_PROTO_ICMP) : parse_icmp;
            default                    : accept;
        }
    }

    state parse_ipv6 {
        pkt.extract(hdr.ipv6);
        transition select(hdr.ipv6.next_hdr) {
            IP_PROTO_TCP    : parse_tcp;
            IP_PROTO_UDP    : parse_udp;
            IP_PROTO_ICMPV6 : parse_icmp;
            default         : accept;
        }
    }

    state parse_tcp {
        pkt.extract(hdr.tcp);
        ig_md.l4_src_port = hdr.tcp.src_port;
        ig_md.l4_dst_port = hdr.tcp.dst_port;
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        ig_md.l4_src_port = hdr.udp.src_port;
        ig_md.l4_dst_port = hdr.udp.dst_port;
        transition accept;
    }

    state parse_icmp {
        pkt.extract(hdr.icmp);
        transition accept;
    }
}

/* ========================================================================
 * Ingress control
 * ===================================================================== */
control RouterIngress(inout header_t hdr,
                      inout ingress_metadata_t ig_md,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    /* ---------------- statistics and state ---------------- */
    Counter<bit<32>, PortId_t>(512, CounterType_t.PACKETS_AND_BYTES) port_rx_stats;
    DirectCounter<bit<32>>(CounterType_t.PACKETS_AND_BYTES) acl_stats;

    Hash<bit<32>>(HashAlgorithm_t.CRC32) flow_prehash;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) ecmp_hash;
    Hash<bit<12>>(HashAlgorithm_t.CRC16) syn_bucket_hash;

    ActionProfile(2048) nexthop_members;
    ActionSelector(nexthop_members, ecmp_hash, SelectorMode_t.FAIR, 64, 256) nexthop_groups;

    /* SYN counters per destination bucket, cleared by the control plane. */
    Register<bit<16>, bit<12>>(4096, 16w0) syn_counts;

    RegisterAction<bit<16>, bit<12>, bit<16>>(syn_counts) count_syn = {
        void apply(inout bit<16> value, out bit<16> seen) {
            seen = value;
            if (value != 16w0xffff) {
                value = value + 16w1;
            }
        }
    };

    bit<16> syns_in_bucket = 16w0;

    /* ---------------- common actions ---------------- */
    action drop() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    action punt_to_cpu() {
        ig_tm_md.ucast_egress_port = CPU_PORT;
        ig_md.punt = 1w1;
    }

    /* ---------------- port/VLAN to bridge domain ---------------- */
    action set_bd(bd_t bd, vrf_t vrf) {
        ig_md.bd = bd;
        ig_md.vrf = vrf;
    }

    @name("ingress.port_vlan_to_bd")
    table port_vlan_to_bd {
        key = {
            ig_intr_md.ingress_port : exact;
            ig_md.vid               : exact;
        }
        actions = {
            set_bd;
            @defaultonly drop;
        }
        const default_action = drop();
        size = 4096;
    }

    /* ---------------- link-local control protocols ---------------- */
    @name("ingress.l2_trap")
    table l2_trap {
        key = {
            hdr.ethernet.dst_addr   : ternary;
            hdr.ethernet.ether_type : ternary;
        }
        actions = {
            punt_to_cpu;
            drop;
            NoAction;
        }
        const entries = {
            /* STP/RSTP BPDUs, LACP, 802.1X ... (01:80:c2:00:00:0x) */
            (48w0x0180c2000000 &&& 48w0xfffffffffff0, 16w0 &&& 16w0) : punt_to_cpu();
            /* LLDP */
            (48w0 &&& 48w0, 16w0x88cc &&& 16w0xffff) : punt_to_cpu();
            /* PAUSE frames must never be forwarded */
            (48w0 &&& 48w0, 16w0x8808 &&& 16w0xffff) : drop();
        }
        const default_action = NoAction();
        size = 16;
    }

    /* ---------------- router MAC ---------------- */
    @name("ingress.router_mac")
    table router_mac {
        key = {
            ig_md.bd              : exact;
            hdr.ethernet.dst_addr : exact;
        }
        actions = {
            NoAction;
        }
        const default_action = NoAction();
        size = 1024;
    }

    /* ---------------- L2 forwarding inside a bridge domain ---------------- */
    action l2_forward(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }

    action l2_flood_to_cpu() {
        ig_tm_md.ucast_egress_port = CPU_PORT;
    }

    @name("ingress.dmac")
    table dmac {
        key = {
            ig_md.bd              : exact;
            hdr.ethernet.dst_addr : exact;
        }
        actions = {
            l2_forward;
            l2_flood_to_cpu;
            drop;
        }
        const default_action = l2_flood_to_cpu();
        size = 32768;
    }

    /* ---------------- IPv4 ACL ---------------- */
    action acl_permit() {
        acl_stats.count();
    }

    action acl_deny() {
        acl_stats.count();
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    action acl_remark(bit<6> dscp) {
        acl_stats.count();
        hdr.ipv4.dscp = dscp;
    }

    @name("ingress.ipv4_acl")
    table ipv4_acl {
        key = {
            hdr.ipv4.src_addr : ternary;
            hdr.ipv4.dst_addr : ternary;
            hdr.ipv4.protocol : ternary;
            ig_md.l4_src_port : ternary;
            ig_md.l4_dst_port : ternary;
        }
        actions = {
            acl_permit;
            acl_deny;
            acl_remark;
        }
        const default_action = acl_permit();
        counters = acl_stats;
        size = 2048;
    }

    /* ---------------- routing ---------------- */
    action set_nexthop(nexthop_id_t nexthop_id) {
        ig_md.nexthop_id = nexthop_id;
        ig_md.routed = 1w1;
    }

    action route_miss() {
        ig_dprsr_md.drop_ctl = 3w0x1;
    }

    @name("ingress.ipv4_host")
    table ipv4_host {
        key = {
            ig_md.vrf         : exact;
            hdr.ipv4.dst_addr : exact;
        }
        actions = {
            set_nexthop;
            punt_to_cpu;
            NoAction;
        }
        const default_action = NoAction();
        size = 16384;
    }

    @name("ingress.ipv4_lpm")
    table ipv4_lpm {
        key = {
            ig_md.vrf         : exact;
            hdr.ipv4.dst_addr : lpm;
        }
        actions = {
            set_nexthop;
            punt_to_cpu;
            route_miss;
        }
        const default_action = route_miss();
        size = 8192;
    }

    @name("ingress.ipv6_lpm")
    table ipv6_lpm {
        key = {
            ig_md.vrf         : exact;
            hdr.ipv6.dst_addr : lpm;
        }
        actions = {
            set_nexthop;
            punt_to_cpu;
            route_miss;
        }
        const default_action = route_miss();
        size = 4096;
    }

    /* ---------------- ECMP next hops ---------------- */
    action set_nexthop_port(PortId_t port, bd_t out_bd, mac_addr_t dmac) {
        ig_tm_md.ucast_egress_port = port;
        ig_md.bd = out_bd;
        hdr.ethernet.dst_addr = dmac;
    }

    @name("ingress.nexthop")
    table nexthop {
        key = {
            ig_md.nexthop_id : exact;
            ig_md.flow_sel   : selector;
        }
        actions = {
            set_nexthop_port;
            drop;
        }
        default_action = drop();
        implementation = nexthop_groups;
        size = 4096;
    }

    /* ---------------- apply ---------------- */
    apply {
        port_rx_stats.count(ig_intr_md.ingress_port);

        if (hdr.vlan[0].isValid()) {
            ig_md.vid = hdr.vlan[0].vid;
        }
        port_vlan_to_bd.apply();
        l2_trap.apply();

        if (ig_md.punt == 1w0) {
            if (router_mac.apply().hit) {
                if (hdr.ipv4.isValid()) {
                    ig_md.flow_sel = flow_prehash.get({
                        hdr.ipv4.src_addr,
                        hdr.ipv4.dst_addr,
                        hdr.ipv4.protocol,
                        ig_md.l4_src_port,
                        ig_md.l4_dst_port
                    });
                    if (!ig_md.ipv4_checksum_ok || hdr.ipv4.ttl <= 8w1) {
                        punt_to_cpu();
                    } else {
                        switch (ipv4_acl.apply().action_run) {
                            acl_deny: {
                                /* dropped: skip the route lookups */
                            }
                            default: {
                                if (!ipv4_host.apply().hit) {
                                    ipv4_lpm.apply();
                                }
                            }
                        }
                    }
                } else if (hdr.ipv6.isValid()) {
                    ig_md.flow_sel = flow_prehash.get({
                        hdr.ipv6.src_addr,
                        hdr.ipv6.dst_addr,
                        hdr.ipv6.flow_label,
                        ig_md.l4_src_port,
                        ig_md.l4_dst_port
                    });
                    if (hdr.ipv6.hop_limit <= 8w1) {
                        punt_to_cpu();
                    } else {
                        ipv6_lpm.apply();
                    }
                }

                if (ig_md.routed == 1w1) {
                    nexthop.apply();
                    hdr.ethernet.src_addr = 48w0;   // rewritten per BD in egress
                    if (hdr.ipv4.isValid()) {
                        hdr.ipv4.ttl = hdr.ipv4.ttl - 8w1;
                    } else if (hdr.ipv6.isValid()) {
                        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 8w1;
                    }
                }
            } else {
                dmac.apply();
            }
        }

        /* SYN watchdog: count bare SYNs per destination bucket. */
        if (hdr.tcp.isValid() && hdr.ipv4.isValid()) {
            if ((hdr.tcp.flags & (TCP_FLAG_SYN | TCP_FLAG_ACK)) == TCP_FLAG_SYN) {
                syns_in_bucket = count_syn.execute(syn_bucket_hash.get({
                    hdr.ipv4.dst_addr,
                    hdr.tcp.dst_port
                }));
                if (syns_in_bucket >= SYN_ALARM_LEVEL) {
                    drop();
                }
            }
        }

        /* Carry what egress needs. */
        hdr.bridged.setValid();
        hdr.bridged.pad0 = 7w0;
        hdr.bridged.ingress_port = ig_intr_md.ingress_port;
        hdr.bridged.bd = ig_md.bd;
    }
}

/* ========================================================================
 * Ingress deparser
 * ===================================================================== */
control RouterIngressDeparser(packet_out pkt,
                              inout header_t hdr,
                              in ingress_metadata_t ig_md,
                              in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4_checksum;

    apply {
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.ipv4.version,
                hdr.ipv4.ihl,
                hdr.ipv4.dscp,
                hdr.ipv4.ecn,
                hdr.ipv4.total_len,
                hdr.ipv4.identification,
                hdr.ipv4.flags,
                hdr.ipv4.frag_offset,
                hdr.ipv4.ttl,
                hdr.ipv4.protocol,
                hdr.ipv4.src_addr,
                hdr.ipv4.dst_addr
            });
        }
        pkt.emit(hdr);
    }
}

/* ========================================================================
 * Egress parser
 * ===================================================================== */
parser RouterEgressParser(packet_in pkt,
                          out egress_header_t hdr,
                          out egress_metadata_t eg_md,
                          out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition parse_bridged;
    }

    state parse_bridged {
        eg_md.out_vid = 12w0;
        pkt.extract(hdr.bridged);
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            ETHERTYPE_QINQ : parse_vlan;
            default        : accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.ether_type) {
            ETHERTYPE_VLAN : parse_vlan;
            default        : accept;
        }
    }
}

/* ========================================================================
 * Egress control: per-BD source MAC and VLAN tagging
 * ===================================================================== */
control RouterEgress(inout egress_header_t hdr,
                     inout egress_metadata_t eg_md,
                     in egress_intrinsic_metadata_t eg_intr_md,
                     in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                     inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                     inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {

    Counter<bit<32>, PortId_t>(512, CounterType_t.PACKETS_AND_BYTES) port_tx_stats;

    action egress_untagged(mac_addr_t smac) {
        hdr.ethernet.src_addr = smac;
    }

    action egress_tagged(mac_addr_t smac, vlan_id_t vid) {
        hdr.ethernet.src_addr = smac;
        eg_md.out_vid = vid;
    }

    action egress_drop() {
        eg_dprsr_md.drop_ctl = 3w0x1;
    }

    @name("egress.port_bd")
    table port_bd {
        key = {
            eg_intr_md.egress_port : exact;
            hdr.bridged.bd         : exact;
        }
        actions = {
            egress_untagged;
            egress_tagged;
            egress_drop;
        }
        const default_action = egress_drop();
        size = 4096;
    }

    apply {
        port_tx_stats.count(eg_intr_md.egress_port);

        switch (port_bd.apply().action_run) {
            egress_untagged: {
                if (hdr.vlan[0].isValid()) {
                    hdr.ethernet.ether_type = hdr.vlan[0].ether_type;
                    hdr.vlan[0].setInvalid();
                }
            }
            egress_tagged: {
                if (!hdr.vlan[0].isValid()) {
                    hdr.vlan[0].setValid();
                    hdr.vlan[0].pcp = 3w0;
                    hdr.vlan[0].dei = 1w0;
                    hdr.vlan[0].ether_type = hdr.ethernet.ether_type;
                    hdr.ethernet.ether_type = ETHERTYPE_VLAN;
                }
                hdr.vlan[0].vid = eg_md.out_vid;
            }
        }

        /* The bridged header never leaves the switch. */
        hdr.bridged.setInvalid();
    }
}

control RouterEgressDeparser(packet_out pkt,
                             inout egress_header_t hdr,
                             in egress_metadata_t eg_md,
                             in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ========================================================================
 * Package
 * ===================================================================== */
Pipeline(RouterIngressParser(),
         RouterIngress(),
         RouterIngressDeparser(),
         RouterEgressParser(),
         RouterEgress(),
         RouterEgressDeparser()) pipe;

Switch(pipe) main;
