/*
 * bmv2/psa.p4 -- bundled with p4cost.
 *
 * PSA as the BMv2 psa_switch target implements it.  The BMv2 flavour
 * declares exactly what p4cost's plain psa.p4 declares: ports and
 * multicast groups are 32 bits, clone sessions, packet lengths and
 * egress instances 16 bits, class of service 8 bits, timestamps 64 bits,
 * and the same externs, blocks and PSA_Switch package.  So this file only
 * pulls that one in, under a guard of its own.
 */

#ifndef __PSA_P4__
#define __PSA_P4__

#include <psa.p4>

#endif /* __PSA_P4__ */
