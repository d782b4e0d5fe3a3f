// A TNA-style L3 router with a flow counter, written for p4cost's parser tests.
// It declares the few architecture pieces it uses itself, so no #include.
#pragma once
# 1 "tna_router.p4"

typedef bit<9>  PortId_t;
typedef bit<16> MulticastGroupId_t;
typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_VLAN = 0x8100;
const int     TABLE_SIZE     = 1_024;

match_kind { exact, ternary, lpm, range, selector }
error { NoError, PacketTooShort, HeaderTooShort }

extern packet_in {
    void extract<T>(out T hdr);
    void extract<T>(out T variableSizeHeader, in bit<32> varFieldSizeInBits);
    T lookahead<T>();
    void advance(in bit<32> sizeInBits);
    bit<32> length();
}
extern packet_out {
    void emit<T>(in T hdr);
}
extern Checksum {
    Checksum();
    void add<T>(in T data);
    bool verify();
    bit<16> get();
    bit<16> update<T>(in T data, @optional in bool zeros_as_ones);
}
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in I index);
    void write(in I index, in T value);
}
extern RegisterAction<T, I, U> {
    RegisterAction(Register<T, I> reg);
    U execute(in I index);
    @synchronous(execute)
    abstract void apply(inout T value, @optional out U rv);
}
extern Counter<W, I> {
    Counter(bit<32> size, CounterType_t type);
    void count(in I index, @optional in bit<32> adjust_byte_count);
}
enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }
enum bit<8> MirrorType_t { NONE = 0, I2E = 1, E2E = 0x2 }
extern void mark_to_drop<M>(inout M meta);

struct ingress_intrinsic_metadata_t { bit<1> resubmit_flag; PortId_t ingress_port; }
struct ingress_intrinsic_metadata_for_tm_t { PortId_t ucast_egress_port; bit<1> bypass_egress; MulticastGroupId_t mcast_grp_a; }
struct ingress_intrinsic_metadata_for_deparser_t { bit<3> drop_ctl; }

parser IngressParserT<H, M>(packet_in pkt, out H hdr, out M ig_md, out ingress_intrinsic_metadata_t ig_intr_md);
control IngressT<H, M>(inout H hdr, inout M ig_md, in ingress_intrinsic_metadata_t ig_intr_md,
                       inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                       inout ingress_intrinsic_metadata_for_tm_t ig_tm_md);
control IngressDeparserT<H, M>(packet_out pkt, inout H hdr, in M metadata);
package Pipeline<IH, IM>(IngressParserT<IH, IM> ingress_parser, IngressT<IH, IM> ingress,
                         IngressDeparserT<IH, IM> ingress_deparser);
@pkginfo(arch="TNA", version="1.0.0")
package Switch<IH0, IM0>(Pipeline<IH0, IM0> pipe0);

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}
header vlan_tag_h {
    bit<3>  pcp;
    bit<1>  cfi;
    bit<12> vid;
    bit<16> ether_type;
}
header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}
header ipv4_opts_h { varbit<320> data; }

struct header_t {
    ethernet_h    ethernet;
    vlan_tag_h[2] vlan;
    ipv4_h        ipv4;
}
struct metadata_t {
    bool        checksum_err;
    bit<16>     flow_idx;
    bit<32>     seen;
    MirrorType_t mirror;
}

parser SwitchIngressParser(packet_in pkt, out header_t hdr, out metadata_t ig_md,
                           out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() ipv4_checksum;
    value_set<bit<16>>(4) custom_ethertypes;

    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(64);
        ig_md.checksum_err = false;
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            ETHERTYPE_VLAN : parse_vlan;
            custom_ethertypes : accept;
            0x9000 .. 0x90FF : accept;
            default : reject;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.ether_type, pkt.lookahead<bit<4>>()) {
            (ETHERTYPE_VLAN, _) : parse_vlan;
            (ETHERTYPE_IPV4, 4w4) : parse_ipv4;
            (0x8000 &&& 0xF000, _) : accept;
            default : reject;
        }
    }
    state parse_ipv4 {
        pkt.extract<ipv4_h>(hdr.ipv4);
        ipv4_checksum.add(hdr.ipv4);
        ig_md.checksum_err = ipv4_checksum.verify();
        verify(hdr.ipv4.ihl >= 5, error.HeaderTooShort);
        if (hdr.ipv4.ihl == 5) {
            ig_md.flow_idx = hdr.ipv4.src_addr[15:0] ^ hdr.ipv4.dst_addr[15:0];
        } else {
            ig_md.flow_idx = 0;
        }
        transition accept;
    }
}

control SwitchIngress(inout header_t hdr, inout metadata_t ig_md,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Counter<bit<32>, bit<16>>(TABLE_SIZE, CounterType_t.PACKETS_AND_BYTES) flow_counter;
    Register<bit<32>, bit<16>>(32w65536, 0) seen_reg;
    RegisterAction<bit<32>, bit<16>, bit<32>>(seen_reg) mark_seen = {
        void apply(inout bit<32> value, out bit<32> rv) {
            rv = value;
            value = value |+| 1;
        }
    };
    bit<12> vid = 0;

    action drop() {
        ig_dprsr_md.drop_ctl = 0x1;
    }
    action set_port(PortId_t port, mac_addr_t dmac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    @name(".nop") action nop() { }
    action set_mcast(MulticastGroupId_t grp) { ig_tm_md.mcast_grp_a = grp; }

    @pragma stage 2
    @name("SwitchIngress.ipv4_lpm")
    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr : lpm @name("dst");
            vid               : ternary;
        }
        actions = {
            set_port;
            set_mcast;
            @defaultonly drop;
            nop;
        }
        size = TABLE_SIZE;
        const default_action = drop();
        idle_timeout = true;
    }

    table acl {
        key = {
            hdr.ipv4.protocol : exact;
            hdr.ipv4.src_addr : ternary;
        }
        actions = { nop; drop; }
        const entries = {
            (6, 0x0A000000 &&& 0xFF000000) : drop();
            (17, _) : nop();
            priority = 5 : (1, 32w0x01020304) : nop();
        }
        default_action = nop;
    }

    apply {
        vid = hdr.vlan[0].isValid() ? hdr.vlan[0].vid : 12w0;
        if (!hdr.ipv4.isValid() || ig_md.checksum_err) {
            drop();
            exit;
        }
        switch (ipv4_lpm.apply().action_run) {
            set_port: {
                flow_counter.count(ig_md.flow_idx);
            }
            set_mcast:
            nop: { }
            default: {
                if (acl.apply().hit) {
                    return;
                }
            }
        }
        ig_md.seen = mark_seen.execute(ig_md.flow_idx);
        if (ig_md.seen == 0 && acl.apply().miss) {
            ig_md.mirror = MirrorType_t.I2E;
        }
        bit<8> shifted = (bit<8>)(hdr.ipv4.ttl >> 1) + 8w1;
        hdr.ipv4.diffserv = shifted & 0xFC | (bit<8>)ig_md.mirror;
    }
}

control SwitchIngressDeparser(packet_out pkt, inout header_t hdr, in metadata_t ig_md) {
    Checksum() ipv4_checksum;
    apply {
        hdr.ipv4.hdr_checksum = ipv4_checksum.update({
            hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
            hdr.ipv4.total_len, hdr.ipv4.identification,
            hdr.ipv4.flags, hdr.ipv4.frag_offset,
            hdr.ipv4.ttl, hdr.ipv4.protocol,
            hdr.ipv4.src_addr, hdr.ipv4.dst_addr });
        pkt.emit(hdr);
    }
}

Pipeline(SwitchIngressParser(), SwitchIngress(), SwitchIngressDeparser()) pipe;
Switch(pipe) main;
