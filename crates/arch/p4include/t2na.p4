/*
 * t2na.p4 -- bundled with p4cost.
 *
 * Entry point of the Tofino 2 Native Architecture.  Programs write
 * `#include <t2na.p4>`.  The real compilers accept this file only when
 * __TARGET_TOFINO__ is 2; p4cost is lenient: it always uses the Tofino 2
 * widths and model, and defines __TARGET_TOFINO__ as 2 when nothing else
 * did, so later `#if` tests in the program agree.
 */

#ifndef _TOFINO2_NATIVE_ARCHITECTURE_
#define _TOFINO2_NATIVE_ARCHITECTURE_
/* the name older compiler releases used for the same guard */
#define _TOFINO2_NATIVE_ARCHITECTURE_P4_

#ifndef __TARGET_TOFINO__
#define __TARGET_TOFINO__ 2
#endif

#include <tofino2_specs.p4>
#include <tofino2_arch.p4>

#endif /* _TOFINO2_NATIVE_ARCHITECTURE_ */
