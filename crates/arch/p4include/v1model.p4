/*
 * v1model.p4 -- bundled with p4cost.
 *
 * The v1model architecture of the BMv2 simple_switch target: the
 * standard_metadata_t struct, the stateful and utility externs, and the
 * V1Switch package with its six blocks.  Names, widths, signatures and
 * the V1MODEL_VERSION switch (20180101 by default; 20200408 and later
 * give PortId_t and index-typed counter/meter/register) follow the
 * published v1model interface; the text is p4cost's own.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include <core.p4>

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

const bit<32> __v1model_version = V1MODEL_VERSION;

/* Match kinds beyond exact / ternary / lpm. */
match_kind {
    range,     // min..max
    optional,  // exact value or don't care
    selector   // member choice inside an action_selector group
}

#if V1MODEL_VERSION >= 20200408
typedef bit<9> PortId_t;
#endif

/* =========================================================================
 * Per-packet metadata maintained by the switch.
 * The @alias names are the ones simple_switch uses internally.
 * ========================================================================= */
@metadata @name("standard_metadata")
struct standard_metadata_t {
#if V1MODEL_VERSION >= 20200408
    PortId_t ingress_port;   // port the packet arrived on
    PortId_t egress_spec;    // port chosen by ingress (511 drops)
    PortId_t egress_port;    // port actually used, valid in egress
#else
    bit<9>   ingress_port;
    bit<9>   egress_spec;
    bit<9>   egress_port;
#endif
    bit<32>  instance_type;  // normal, clone, resubmit, recirculate, ...
    bit<32>  packet_length;  // bytes

    @alias("queueing_metadata.enq_timestamp")       bit<32> enq_timestamp;   // us
    @alias("queueing_metadata.enq_qdepth")          bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta")       bit<32> deq_timedelta;   // us spent queued
    @alias("queueing_metadata.deq_qdepth")          bit<19> deq_qdepth;
    @alias("intrinsic_metadata.ingress_global_timestamp") bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp")  bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp")          bit<16> mcast_grp;       // 0 means unicast
    @alias("intrinsic_metadata.egress_rid")         bit<16> egress_rid;      // replica id

    bit<1>   checksum_error; // set by verify_checksum
    error    parser_error;   // parser outcome
    @alias("intrinsic_metadata.priority")           bit<3>  priority;
}

/* =========================================================================
 * Enumerations
 * ========================================================================= */
enum CounterType { packets, bytes, packets_and_bytes }

enum MeterType { packets, bytes }

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

enum CloneType { I2E, E2E }

/* Colors written by meters. */
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

/* =========================================================================
 * Stateful externs
 * ========================================================================= */
#if V1MODEL_VERSION >= 20200408

extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}

extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}

extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}

#else

extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}

extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}

extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}

#endif

/* Counter / meter bound to the entries of one table. */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

/* Table implementations. */
extern action_profile {
    action_profile(bit<32> size);
}

extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

@deprecated("use verify_checksum / update_checksum")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* =========================================================================
 * Extern functions
 * ========================================================================= */

/* Uniform value in lo..hi. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send data to the control-plane receiver. */
extern void digest<T>(in bit<32> receiver, in T data);

@deprecated("use mark_to_drop(standard_metadata)")
extern void mark_to_drop();

@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (hash(data) mod max) */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Packet replication and looping. */
extern void clone(in CloneType type, in bit<32> session);

@deprecated("use clone_preserving_field_list")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

@deprecated("use resubmit_preserving_field_list")
extern void resubmit<T>(in T data);

extern void resubmit_preserving_field_list(bit<8> index);

@deprecated("use recirculate_preserving_field_list")
extern void recirculate<T>(in T data);

extern void recirculate_preserving_field_list(bit<8> index);

/* Keep only the first `length` bytes on output. */
extern void truncate(in bit<32> length);

/* Checks for debugging and verification tools. */
extern void assert(in bool check);
extern void assume(in bool check);

/* Write a message to the simulator log. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* =========================================================================
 * Blocks and the package
 * ========================================================================= */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr, inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr, inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif /* _V1_MODEL_P4_ */
