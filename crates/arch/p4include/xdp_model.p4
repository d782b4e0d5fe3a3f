/*
 * xdp_model.p4 -- bundled with p4cost.
 *
 * The XDP (eXpress Data Path) model: eBPF code run in the driver's
 * receive path.  Two shapes are offered: the eBPF packet filter (pulled
 * in from ebpf_model.p4) and a switch of parser, control and deparser
 * whose control picks an XDP verdict and an output port.  Names and
 * signatures follow the model's published include file; the text is
 * p4cost's own.
 */

#ifndef _XDP_MODEL_P4
#define _XDP_MODEL_P4

#include <core.p4>
#include <ebpf_model.p4>

/* The verdict handed back to the kernel. */
enum xdp_action {
    XDP_ABORTED,   // processing failed
    XDP_DROP,      // discard
    XDP_PASS,      // continue into the kernel network stack
    XDP_TX,        // send back out of the receiving interface
    XDP_REDIRECT   // send out of another interface
}

struct xdp_input {
    bit<32> input_port;
}

struct xdp_output {
    xdp_action output_action;
    bit<32>    output_port;
}

/* IPv4 header checksum computed from the header's fields. */
extern bit<16> ebpf_ipv4_checksum(in bit<4> version, in bit<4> ihl, in bit<8> diffserv,
                                  in bit<16> totalLen, in bit<16> identification,
                                  in bit<3> flags, in bit<13> fragOffset, in bit<8> ttl,
                                  in bit<8> protocol, in bit<32> srcAddr, in bit<32> dstAddr);

/* Incremental checksum update (RFC 1624) for a changed 16- or 32-bit
 * field: the old checksum, the old field value, the new field value. */
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

/* Kernel helpers: perf event output and the monotonic clock (returned
 * in 32 bits by this model). */
extern bit<32> BPF_PERF_EVENT_OUTPUT();
extern bit<32> BPF_KTIME_GET_NS();

/* The switch shape. */
parser xdp_parse<H>(packet_in packet, out H headers);
control xdp_switch<H>(inout H headers, in xdp_input imd, out xdp_output omd);
control xdp_deparse<H>(in H headers, packet_out packet);

package xdp<H>(xdp_parse<H> p, xdp_switch<H> s, xdp_deparse<H> d);

#endif /* _XDP_MODEL_P4 */
