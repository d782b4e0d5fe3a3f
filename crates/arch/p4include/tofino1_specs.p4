/*
 * tofino1_specs.p4 -- bundled with p4cost.
 *
 * Device-specific widths, type names and constants for Tofino 1 (the
 * parts of the Tofino Native Architecture that change from chip to chip).
 * tna.p4 includes this file before tofino1_arch.p4.  Names and values
 * follow the published TNA headers; the text is p4cost's own.
 */

#ifndef _TOFINO1_P4_SPECS_
#define _TOFINO1_P4_SPECS_

#include <core.p4>

/* Field widths, in bits. */
#define PORT_ID_WIDTH              9
#define MULTICAST_GROUP_ID_WIDTH   16
#define QUEUE_ID_WIDTH             5
#define MIRROR_TYPE_WIDTH          3
#define MIRROR_ID_WIDTH            10
#define RESUBMIT_TYPE_WIDTH        3
#define DIGEST_TYPE_WIDTH          3
#define REPLICATION_ID_WIDTH       16
#define L1_EXCLUSION_ID_WIDTH      16
#define L2_EXCLUSION_ID_WIDTH      9

/*
 * Padding that keeps a QueueId_t field byte aligned inside
 * egress_intrinsic_metadata_t (8 - QUEUE_ID_WIDTH % 8).  p4cost-private.
 */
#define _P4COST_QID_PAD_WIDTH      3

/* Type names used by the intrinsic metadata and the externs. */
@noWarn("unused") typedef bit<PORT_ID_WIDTH>            PortId_t;
@noWarn("unused") typedef bit<MULTICAST_GROUP_ID_WIDTH> MulticastGroupId_t;
@noWarn("unused") typedef bit<QUEUE_ID_WIDTH>           QueueId_t;
@noWarn("unused") typedef bit<MIRROR_TYPE_WIDTH>        MirrorType_t;
@noWarn("unused") typedef bit<MIRROR_ID_WIDTH>          MirrorId_t;
@noWarn("unused") typedef bit<RESUBMIT_TYPE_WIDTH>      ResubmitType_t;
@noWarn("unused") typedef bit<DIGEST_TYPE_WIDTH>        DigestType_t;
@noWarn("unused") typedef bit<REPLICATION_ID_WIDTH>     ReplicationId_t;
@noWarn("unused") typedef bit<L1_EXCLUSION_ID_WIDTH>    L1ExclusionId_t;
@noWarn("unused") typedef bit<L2_EXCLUSION_ID_WIDTH>    L2ExclusionId_t;
@noWarn("unused") typedef error                         ParserError_t;

/* Bits of per-port metadata prepended to each packet (phase 0). */
@noWarn("unused") const bit<32> PORT_METADATA_SIZE = 32w64;

/* A 9-bit device port splits into a 2-bit pipe and a 7-bit local port. */
#define DEVPORT_PIPE_MASK   0x180
#define DEVPORT_PIPE(port)  (port)[8:7]
#define DEVPORT_PORT_MASK   0x7f
#define DEVPORT_PORT(port)  (port)[6:0]

#endif /* _TOFINO1_P4_SPECS_ */
