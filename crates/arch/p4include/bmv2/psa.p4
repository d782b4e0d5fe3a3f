/*
 * bmv2/psa.p4 -- bundled with p4cost.
 *
 * PSA as the BMv2 psa_switch target implements it.  The BMv2 flavour
 * declares exactly what p4cost's plain psa.p4 declares: ports and
 * multicast groups are 32 bits, clone sessions, packet lengths and
 * egress instances 16 bits, class of service 8 bits, timestamps 64 bits,
 * and the same externs, blocks and PSA_Switch package.  So this file only
 * pulls that one in.  It has no guard of its own: psa.p4's guard is
 * `__PSA_P4__`, the one p4c's bmv2/psa.p4 defines, and a guard of that
 * name here would skip psa.p4's whole body.
 */

#include <psa.p4>
