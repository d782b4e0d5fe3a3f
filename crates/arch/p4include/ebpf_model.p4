/*
 * ebpf_model.p4 -- bundled with p4cost.
 *
 * The eBPF packet-filter model of the Linux kernel (TC/socket) target: a
 * parser fills the headers, a control decides whether the packet is
 * accepted, and nothing is deparsed.  Tables name their map kind through
 * an `implementation` property (array or hash map); counters live in a
 * map of 32-bit values indexed by a 32-bit key.  Names and signatures
 * follow the model's published include file; the text is p4cost's own.
 */

#ifndef _EBPF_MODEL_P4_
#define _EBPF_MODEL_P4_

#include <core.p4>

/* 32-bit counters kept in a BPF map, incremented by the data plane and
 * read or cleared by the control plane.  `sparse` picks a hash map over
 * a dense array. */
extern CounterArray {
    CounterArray(bit<32> max_index, bool sparse);
    void increment(in bit<32> index);
    void add(in bit<32> index, in bit<32> value);
}

/* Table implementations: a BPF array map (an LPM trie when the key has an
 * lpm field; then only the size is used) ... */
extern array_table {
    array_table(bit<32> size);
}

/* ... or a BPF hash map.  `size` is the most entries the map holds. */
extern hash_table {
    hash_table(bit<32> size);
}

/* The filter: parse, then decide. */
parser parse<H>(packet_in packet, out H headers);
control filter<H>(inout H headers, out bool accept);

package ebpfFilter<H>(parse<H> prs, filter<H> filt);

#endif /* _EBPF_MODEL_P4_ */
