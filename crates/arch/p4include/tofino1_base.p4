/*
 * tofino1_base.p4 -- bundled with p4cost.
 *
 * The chip-independent part of the Tofino Native Architecture (TNA) as
 * used with Tofino 1: parser error flags, enums, intrinsic metadata
 * layouts and the extern objects and functions.  Widths that depend on
 * the chip come from tofino1_specs.p4 (or tofino2_specs.p4 when tna.p4 is
 * compiled for Tofino 2).  Field names, widths and order and the extern
 * signatures follow the published TNA headers; the text is p4cost's own.
 */

#ifndef _TOFINO1_P4_BASE_
#define _TOFINO1_P4_BASE_

#include <core.p4>

/* The widths below need a specs file; pull in Tofino 1's if none came first. */
#ifndef PORT_ID_WIDTH
#include <tofino1_specs.p4>
#endif

#define PACK_VERSION(a, b, c) (((a) << 24) + ((b) << 12) + (c))
#define COMPILER_VERSION PACK_VERSION(__p4c_major__, __p4c_minor__, __p4c_patchlevel__)

/* =========================================================================
 * Parser error flags, as seen in the 16-bit parser_err intrinsic field.
 * ========================================================================= */
@noWarn("unused") const bit<16> PARSER_ERROR_OK           = 16w0x0000;
@noWarn("unused") const bit<16> PARSER_ERROR_NO_MATCH     = 16w0x0001;
@noWarn("unused") const bit<16> PARSER_ERROR_PARTIAL_HDR  = 16w0x0002;
@noWarn("unused") const bit<16> PARSER_ERROR_CTR_RANGE    = 16w0x0004;
@noWarn("unused") const bit<16> PARSER_ERROR_TIMEOUT_USER = 16w0x0008;
@noWarn("unused") const bit<16> PARSER_ERROR_TIMEOUT_HW   = 16w0x0010;
@noWarn("unused") const bit<16> PARSER_ERROR_SRC_EXT      = 16w0x0020;
@noWarn("unused") const bit<16> PARSER_ERROR_DST_CONT     = 16w0x0040;
@noWarn("unused") const bit<16> PARSER_ERROR_PHV_OWNER    = 16w0x0080;
@noWarn("unused") const bit<16> PARSER_ERROR_MULTIWRITE   = 16w0x0100;
@noWarn("unused") const bit<16> PARSER_ERROR_ARAM_MBE     = 16w0x0400;
@noWarn("unused") const bit<16> PARSER_ERROR_FCS          = 16w0x0800;

/* Extra parser errors on top of the ones in core.p4. */
error {
    CounterRange,   // parser counter loaded out of range
    Timeout,
    PhvOwner,       // write to a container the parser does not own
    MultiWrite,
    IbufOverflow,   // input buffer overflowed
    IbufUnderflow   // input buffer underflowed
}

/* Extra match kinds on top of exact / ternary / lpm. */
match_kind {
    range,                 // min..max interval
    selector,              // member choice inside an ActionSelector group
    atcam_partition_index  // partition key of an algorithmic TCAM table
}

/* =========================================================================
 * Enumerations
 * ========================================================================= */
enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }

enum MeterType_t { PACKETS, BYTES }

/* Meter results; the values are the ones the hardware returns. */
enum bit<8> MeterColor_t { GREEN = 8w0, YELLOW = 8w1, RED = 8w3 }

enum SelectorMode_t { FAIR, RESILIENT }

enum HashAlgorithm_t {
    IDENTITY,
    RANDOM,
    XOR8,
    XOR16,
    XOR32,
    CRC8,
    CRC16,
    CRC32,
    CRC64,
    CUSTOM      // user polynomial, given by a CRCPolynomial instance
}

/* Function a MathUnit approximates: scale * f(x). */
enum MathOp_t {
    MUL,    // x
    SQR,    // x * x
    SQRT,   // square root of x
    DIV,    // 1 / x
    RSQR,   // 1 / (x * x)
    RSQRT   // 1 / square root of x
}

/* =========================================================================
 * Ingress intrinsic metadata
 * ========================================================================= */

/* Prepended to every packet by the ingress MAC/parser: 64 bits in all. */
@__intrinsic_metadata
header ingress_intrinsic_metadata_t {
    bit<1>   resubmit_flag;        // 1 when this is a resubmitted packet
    @padding bit<1> _pad1;
    bit<2>   packet_version;       // read only
    @padding bit<3> _pad2;         // 4 - PORT_ID_WIDTH % 8
    PortId_t ingress_port;         // port the packet came in on
    bit<48>  ingress_mac_tstamp;   // MAC arrival time, ns (IEEE 1588)
}

/* What ingress tells the traffic manager. */
@__intrinsic_metadata
struct ingress_intrinsic_metadata_for_tm_t {
    PortId_t           ucast_egress_port;     // unicast destination
    bit<1>             bypass_egress;         // skip the egress pipeline
    bit<1>             deflect_on_drop;       // deflect instead of dropping
    bit<3>             ingress_cos;           // ingress class of service
    QueueId_t          qid;                   // logical egress queue
    bit<3>             icos_for_copy_to_cpu;  // class of service of the CPU copy
    bit<1>             copy_to_cpu;           // also send a copy to the CPU
    bit<2>             packet_color;          // green / yellow / red
    bit<1>             disable_ucast_cutthru;
    bit<1>             enable_mcast_cutthru;
    MulticastGroupId_t mcast_grp_a;           // first multicast tree
    MulticastGroupId_t mcast_grp_b;           // second multicast tree
    bit<13>            level1_mcast_hash;     // entropy for level-1 replication
    bit<13>            level2_mcast_hash;     // entropy for level-2 replication
    L1ExclusionId_t    level1_exclusion_id;   // level-1 pruning id
    L2ExclusionId_t    level2_exclusion_id;   // level-2 pruning id
    bit<16>            rid;                   // replication id
}

/* Filled in by the ingress parser. */
@__intrinsic_metadata
struct ingress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;   // time of arrival in the pipeline, ns
    bit<32> global_ver;      // global version number at arrival
    bit<16> parser_err;      // PARSER_ERROR_* flags
}

/* What ingress tells its deparser. */
@__intrinsic_metadata
struct ingress_intrinsic_metadata_for_deparser_t {
    bit<3>         drop_ctl;       // bit 0: drop, bit 1: no CPU copy, bit 2: reserved
    DigestType_t   digest_type;    // which Digest to send
    ResubmitType_t resubmit_type;  // which Resubmit to perform
    MirrorType_t   mirror_type;    // which Mirror to perform
}

/* =========================================================================
 * Egress intrinsic metadata
 * ========================================================================= */

/* Prepended to every packet that leaves the traffic manager. */
@__intrinsic_metadata
header egress_intrinsic_metadata_t {
    @padding bit<7> _pad0;                     // 8 - PORT_ID_WIDTH % 8
    PortId_t  egress_port;                     // output port
    @padding bit<5> _pad1;
    bit<19>   enq_qdepth;                      // queue depth at enqueue
    @padding bit<6> _pad2;
    bit<2>    enq_congest_stat;                // congestion state at enqueue
    @padding bit<14> _pad3;
    bit<18>   enq_tstamp;                      // enqueue time, ns
    @padding bit<5> _pad4;
    bit<19>   deq_qdepth;                      // queue depth at dequeue
    @padding bit<6> _pad5;
    bit<2>    deq_congest_stat;                // congestion state at dequeue
    bit<8>    app_pool_congest_stat;           // 2 bits per application pool
    @padding bit<14> _pad6;
    bit<18>   deq_timedelta;                   // time spent queued
    bit<16>   egress_rid;                      // replication id of this copy
    @padding bit<7> _pad7;
    bit<1>    egress_rid_first;                // first copy of a multicast
    @padding bit<_P4COST_QID_PAD_WIDTH> _pad8; // 8 - QUEUE_ID_WIDTH % 8
    QueueId_t egress_qid;                      // physical queue used
    @padding bit<5> _pad9;
    bit<3>    egress_cos;                      // egress class of service
    @padding bit<7> _pad10;
    bit<1>    deflection_flag;                 // packet was deflected
    bit<16>   pkt_length;                      // length in bytes
}

/* Filled in by the egress parser. */
@__intrinsic_metadata
struct egress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;   // time of arrival in egress, ns
    bit<32> global_ver;      // global version number
    bit<16> parser_err;      // PARSER_ERROR_* flags
}

/* What egress tells its deparser. */
@__intrinsic_metadata
struct egress_intrinsic_metadata_for_deparser_t {
    bit<3>       drop_ctl;         // bit 0: drop, bit 1: no CPU copy, bit 2: no mirror
    MirrorType_t mirror_type;      // which Mirror to perform
    bit<1>       coalesce_flush;   // flush the coalescing mirror buffer
    bit<7>       coalesce_length;  // bytes of this packet to coalesce
}

/* Requests to the egress MAC. */
@__intrinsic_metadata
struct egress_intrinsic_metadata_for_output_port_t {
    bit<1> capture_tstamp_on_tx;   // record the departure time (IEEE 1588)
    bit<1> update_delay_on_tx;     // update a PTP correction field on the way out
}

/* =========================================================================
 * Packet generator headers (48 bits each)
 * ========================================================================= */
header pktgen_timer_header_t {
    @padding bit<3> _pad1;
    bit<2>  pipe_id;
    bit<3>  app_id;       // generator application
    @padding bit<8> _pad2;
    bit<16> batch_id;
    bit<16> packet_id;
}

header pktgen_port_down_header_t {
    @padding bit<3> _pad1;
    bit<2>   pipe_id;
    bit<3>   app_id;
    @padding bit<15> _pad2;   // 16 - PORT_ID_WIDTH % 8
    PortId_t port_num;        // port that went down
    bit<16>  packet_id;
}

header pktgen_recirc_header_t {
    @padding bit<3> _pad1;
    bit<2>  pipe_id;
    bit<3>  app_id;
    bit<24> key;              // taken from the recirculated packet
    bit<16> packet_id;
}

/* =========================================================================
 * Time synchronisation
 * ========================================================================= */
header ptp_metadata_t {
    bit<8>  udp_cksum_byte_offset;   // where the MAC fixes the UDP checksum
    bit<8>  cf_byte_offset;          // where the MAC writes the correction field
    bit<48> updated_cf;              // new correction field value
}

/* =========================================================================
 * Parser externs
 * ========================================================================= */

/* 16-bit ones' complement checksum unit (parser and deparser). */
extern Checksum {
    Checksum();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bool verify();                                      // sum is all ones?
    bit<16> get();
    void subtract_all_and_deposit<T>(out T residual);   // residual of what follows
    bit<16> update<T>(in T data, @optional in bool zeros_as_ones);
}

/* The parser's single 8-bit signed counter. */
extern ParserCounter {
    ParserCounter();
    void set<T>(in T value);
    void set<T>(in T field, in bit<8> max, in bit<8> rotate, in bit<3> mask, in bit<8> add);
    bool is_zero();
    bool is_negative();
    void increment(in bit<8> value);
    void decrement(in bit<8> value);
}

/* Priority used when the ingress buffer is congested. */
extern ParserPriority {
    ParserPriority();
    void set(in bit<3> prio);
}

/* =========================================================================
 * Hashing and random numbers
 * ========================================================================= */
extern CRCPolynomial<T> {
    CRCPolynomial(T coeff, bool reversed, bool msb, bool extended, T init, T xor);
}

extern Hash<W> {
    Hash(HashAlgorithm_t algo);
    Hash(HashAlgorithm_t algo, CRCPolynomial<_> poly);
    W get<D>(in D data);
}

extern Random<W> {
    Random();
    W get();     // uniform in 0 .. 2^W - 1
}

/* =========================================================================
 * Free functions
 * ========================================================================= */
extern T max<T>(in T t1, in T t2);
extern T min<T>(in T t1, in T t2);
extern void funnel_shift_right<T>(inout T dst, in T src1, in T src2, int shift_amount);
extern void invalidate<T>(in T field);
extern bool is_validated<T>(in T field);
extern T port_metadata_unpack<T>(packet_in pkt);   // phase-0 port metadata
extern bit<32> sizeInBits<H>(in H h);
extern bit<32> sizeInBytes<H>(in H h);

/* =========================================================================
 * Counters, meters, filters
 * ========================================================================= */
@noWarn("unused")
extern Counter<W, I> {
    Counter(bit<32> size, CounterType_t type);
    void count(in I index, @optional in bit<32> adjust_byte_count);
}

@noWarn("unused")
extern DirectCounter<W> {
    DirectCounter(CounterType_t type);
    void count(@optional in bit<32> adjust_byte_count);
}

extern Meter<I> {
    Meter(bit<32> size, MeterType_t type);
    Meter(bit<32> size, MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in I index, in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectMeter {
    DirectMeter(MeterType_t type);
    DirectMeter(MeterType_t type, bit<8> red, bit<8> yellow, bit<8> green);
    bit<8> execute(in MeterColor_t color, @optional in bit<32> adjust_byte_count);
    bit<8> execute(@optional in bit<32> adjust_byte_count);
}

/* Low-pass filter. */
extern Lpf<T, I> {
    Lpf(bit<32> size);
    T execute(in T val, in I index);
}

extern DirectLpf<T> {
    DirectLpf();
    T execute(in T val);
}

/* Weighted random early detection. */
extern Wred<T, I> {
    Wred(bit<32> size, bit<8> drop_value, bit<8> no_drop_value);
    bit<8> execute(in T val, in I index);
}

extern DirectWred<T> {
    DirectWred(bit<8> drop_value, bit<8> no_drop_value);
    bit<8> execute(in T val);
}

/* =========================================================================
 * Stateful memory
 * ========================================================================= */
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in I index);
    T write(in I index, in T value);
}

extern DirectRegister<T> {
    DirectRegister();
    DirectRegister(T initial_value);
    T read();
    T write(in T value);
}

/* A run-time constant readable from a RegisterAction. */
extern RegisterParam<T> {
    RegisterParam(T initial_value);
    T read();
}

extern MathUnit<T> {
    /* The 16 table entries are listed from entry 15 down to entry 0. */
    MathUnit(bool invert, int<2> shift, int<6> scale,
             tuple<bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>,
                   bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>, bit<8>> data);
    MathUnit(MathOp_t op, int factor);
    MathUnit(MathOp_t op, int A, int B);
    T execute(in T x);
}

/* Read-modify-write of one Register cell in the stateful ALU. */
@noWarn("unused")
extern RegisterAction<T, I, U> {
    RegisterAction(Register<_, _> reg);
    U execute(in I index);
    U execute_log();    // index advances by itself on each call
    @synchronous(execute, execute_log)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern DirectRegisterAction<T, U> {
    DirectRegisterAction(DirectRegister<T> reg);
    U execute();
    @synchronous(execute)
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

/* =========================================================================
 * Table implementations
 * ========================================================================= */
extern ActionProfile {
    ActionProfile(bit<32> size);
}

extern ActionSelector {
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   bit<32> max_group_size, bit<32> num_groups);
    ActionSelector(ActionProfile action_profile, Hash<_> hash, SelectorMode_t mode,
                   Register<bit<1>, _> reg, bit<32> max_group_size, bit<32> num_groups);
    @deprecated("give ActionSelector an ActionProfile as its first argument")
    ActionSelector(bit<32> size, Hash<_> hash, SelectorMode_t mode);
    @deprecated("give ActionSelector an ActionProfile as its first argument")
    ActionSelector(bit<32> size, Hash<_> hash, SelectorMode_t mode, Register<bit<1>, _> reg);
}

/* Updates the member-liveness bits of a stateful ActionSelector. */
extern SelectorAction {
    SelectorAction(ActionSelector sel);
    bit<1> execute(@optional in bit<32> index);
    @synchronous(execute)
    abstract void apply(inout bit<1> value, @optional out bit<1> rv);
}

/* Algorithmic TCAM; the table needs an atcam_partition_index key. */
extern Atcam {
    Atcam(@optional bit<32> number_partitions);
}

/* Algorithmic LPM. */
extern Alpm {
    Alpm(@optional bit<32> number_partitions, @optional bit<32> subtrees_per_partition,
         @optional bit<32> atcam_subset_width, @optional bit<32> shift_granularity);
}

/* =========================================================================
 * Deparser externs
 * ========================================================================= */

/* Copy the packet to a mirror session, optionally with a mirror header. */
extern Mirror {
    @deprecated("construct Mirror with a mirror_type value")
    Mirror();
    Mirror(MirrorType_t mirror_type);
    void emit(in MirrorId_t session_id);
    void emit<T>(in MirrorId_t session_id, in T hdr);
}

/* Send the packet back to ingress, optionally with up to 64 bits of data. */
extern Resubmit {
    @deprecated("construct Resubmit with a resubmit_type value")
    Resubmit();
    Resubmit(ResubmitType_t resubmit_type);
    void emit();
    void emit<T>(in T hdr);
}

/* Send a learning message to the control plane. */
extern Digest<T> {
    @deprecated("construct Digest with a digest_type value")
    Digest();
    Digest(DigestType_t digest_type);
    void pack(in T data);
}

#endif /* _TOFINO1_P4_BASE_ */
