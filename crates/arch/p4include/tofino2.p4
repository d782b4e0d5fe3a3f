/*
 * tofino2.p4 -- bundled with p4cost.
 *
 * Older name for the Tofino 2 base declarations (types, intrinsic
 * metadata and externs, without the pipeline packages).
 */

#ifndef _TOFINO2_P4_
#define _TOFINO2_P4_

#ifndef __TARGET_TOFINO__
#define __TARGET_TOFINO__ 2
#endif

#include <tofino2_specs.p4>
#include <tofino2_base.p4>

#endif /* _TOFINO2_P4_ */
