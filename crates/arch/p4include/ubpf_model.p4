/*
 * ubpf_model.p4 -- bundled with p4cost.
 *
 * The uBPF model: user-space eBPF run by a software switch (Open vSwitch).
 * A parser, a `pipeline` control and a deparser that may only emit.
 * Model versions from 20200515 on (the default) add a standard metadata
 * struct to the parser and the pipeline; a program may pick an older
 * version by defining UBPF_MODEL_VERSION before including this file.
 * Names, widths and signatures follow the model's published include
 * file; the text is p4cost's own.
 */

#ifndef _UBPF_MODEL_P4_
#define _UBPF_MODEL_P4_

#include <core.p4>

#ifndef UBPF_MODEL_VERSION
#define UBPF_MODEL_VERSION 20200515
#endif

const bit<32> __ubpf_model_version = UBPF_MODEL_VERSION;

#if UBPF_MODEL_VERSION >= 20200515
/* What happens to the packet after the pipeline. */
enum ubpf_action {
    ABORT,
    DROP,
    PASS,
    REDIRECT
}

struct standard_metadata {
    bit<32>     input_port;
    bit<32>     packet_length;
    ubpf_action output_action;
    bit<32>     output_port;
    bool        clone;
    bit<32>     clone_port;
}
#endif

/* Packets pass by default; these set or clear the hidden drop mark and
 * belong in the pipeline control. */
extern void mark_to_drop();
extern void mark_to_pass();

/* An array of `size` values of type T (bit<W>), not initialised.  A read
 * past the end yields an unspecified value. */
extern Register<T, S> {
    Register(bit<32> size);
    T read(in S index);
    void write(in S index, in T value);
}

/* Current time in nanoseconds. */
extern bit<48> ubpf_time_get_ns();

/* Cut the packet to at most `len` bytes (the switch keeps at least an
 * Ethernet header, 14 bytes). */
extern void truncate(in bit<32> len);

enum HashAlgorithm {
    lookup3
}

/* 32-bit hash of `data`, a tuple of bit fields at most 64 bits wide. */
extern void hash<D>(out bit<32> result, in HashAlgorithm algo, in D data);

/* Incremental checksum update (RFC 1624) for a changed 16- or 32-bit
 * field: the old checksum, the old field value, the new field value. */
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

/* The package.  H holds headers, header stacks and unions; M is a struct. */
#if UBPF_MODEL_VERSION >= 20200515
parser parse<H, M>(packet_in packet, out H headers, inout M meta,
                   inout standard_metadata std);
control pipeline<H, M>(inout H headers, inout M meta, inout standard_metadata std);
#else
parser parse<H, M>(packet_in packet, out H headers, inout M meta);
control pipeline<H, M>(inout H headers, inout M meta);
#endif

/* Only packet_out.emit() calls may appear in the deparser's body. */
@deparser
control deparser<H>(packet_out b, in H headers);

package ubpf<H, M>(parse<H, M> prs, pipeline<H, M> p, deparser<H> dprs);

#endif /* _UBPF_MODEL_P4_ */
