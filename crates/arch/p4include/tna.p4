/*
 * tna.p4 -- bundled with p4cost.
 *
 * Entry point of the Tofino Native Architecture.  Programs write
 * `#include <tna.p4>`.  The real compilers predefine __TARGET_TOFINO__
 * (1 for Tofino 1, 2 for Tofino 2) and this file picks the chip's widths
 * from it; the programming model itself is always the Tofino 1 one
 * (tofino1_arch.p4).  When nothing defined __TARGET_TOFINO__, p4cost
 * assumes Tofino 1 and defines it as 1 so later `#if` tests agree.
 */

#ifndef _TOFINO1_NATIVE_ARCHITECTURE_
#define _TOFINO1_NATIVE_ARCHITECTURE_
/* the name older compiler releases used for the same guard */
#define _TOFINO_NATIVE_ARCHITECTURE_P4_

#ifndef __TARGET_TOFINO__
#define __TARGET_TOFINO__ 1
#endif

#if __TARGET_TOFINO__ == 2
#include <tofino2_specs.p4>
#else
#include <tofino1_specs.p4>
#endif

#include <tofino1_arch.p4>

#endif /* _TOFINO1_NATIVE_ARCHITECTURE_ */
