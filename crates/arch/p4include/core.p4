/*
 * core.p4 -- bundled with p4cost.
 *
 * The declarations every P4-16 program may rely on: the built-in error
 * codes, the three basic match kinds, the packet_in / packet_out externs,
 * verify(), static_assert() and the empty action NoAction.  Written for
 * p4cost from the P4-16 language specification; only the declared names,
 * signatures and their order of meaning follow the specification.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/* ---- Errors a parser can raise ------------------------------------------ */
error {
    NoError,               // nothing went wrong
    PacketTooShort,        // extract ran past the end of the packet
    NoMatch,               // no select case was taken
    StackOutOfBounds,      // a header stack was indexed past its size
    HeaderTooShort,        // a varbit extract asked for too many bits
    ParserTimeout,         // the parser ran for too long
    ParserInvalidArgument  // an operation got an argument it cannot honour
}

/* ---- How a table key is compared ----------------------------------------- */
match_kind {
    exact,   // equality
    ternary, // value and mask
    lpm      // longest prefix
}

/* ---- Reading the incoming packet ------------------------------------------ */
extern packet_in {
    // Copy the next sizeof(T) bits into a fixed-size header.
    void extract<T>(out T hdr);
    // Same, for a header with one varbit field of the given length in bits.
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    // Peek at the next bits without moving the cursor.
    T lookahead<T>();
    // Move the cursor forward.
    void advance(in bit<32> sizeInBits);
    // Total packet length in bytes (may be unsupported by a target).
    bit<32> length();
}

/* ---- Building the outgoing packet ------------------------------------------ */
extern packet_out {
    // Append a header (only if valid), a stack, a struct of headers, ...
    void emit<T>(in T hdr);
}

/* ---- Parser assertion ------------------------------------------------------ */
// Stop parsing with the given error when the check is false.
extern void verify(in bool check, in error toSignal);

/* ---- Compile-time assertion ------------------------------------------------ */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

/* ---- The action that does nothing ------------------------------------------ */
@noWarn("unused")
action NoAction() {}

#endif /* _CORE_P4_ */
