/*
 * tofino.p4 -- bundled with p4cost.
 *
 * Older name for the Tofino base declarations (types, intrinsic metadata
 * and externs, without the pipeline packages).  Chooses the chip's widths
 * from __TARGET_TOFINO__ like tna.p4 does, defaulting to Tofino 1.
 */

#ifndef _TOFINO_P4_
#define _TOFINO_P4_

#ifndef __TARGET_TOFINO__
#define __TARGET_TOFINO__ 1
#endif

#if __TARGET_TOFINO__ == 2
#include <tofino2_specs.p4>
#else
#include <tofino1_specs.p4>
#endif

#include <tofino1_base.p4>

#endif /* _TOFINO_P4_ */
