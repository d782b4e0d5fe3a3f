//! Header types and header instances.

use serde::{Deserialize, Serialize};

use crate::{HeaderTypeId, Span};

/// Where a declaration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The user's program (or its own includes).
    Program,
    /// An architecture include (`core.p4`, `tna.p4`, `v1model.p4`, ...):
    /// intrinsic metadata and the like.
    Architecture,
    /// A program-declared header extracted into the parser's metadata
    /// parameter rather than its headers parameter: data the architecture
    /// places ahead of the packet (Tofino resubmit data in the port-metadata
    /// slot, mirror or bridged metadata in egress). Not a packet header.
    Metadata,
}

/// One field of a header or struct type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Width in bits; for a `varbit<N>` field, the maximum width `N`.
    pub width_bits: u32,
    /// True for `varbit<N>` fields.
    pub varbit: bool,
    /// Where the field is declared.
    pub span: Span,
}

/// The kind of an aggregate type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderKind {
    /// `header`: has a validity bit and can be extracted.
    Header,
    /// `header_union`.
    Union,
    /// `struct` (metadata).
    Struct,
}

/// A header (or header union, or struct) type with its flattened fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderType {
    /// Type name as declared.
    pub name: String,
    /// Header, union or struct.
    pub kind: HeaderKind,
    /// Fields in declaration order (for unions: the members' widest
    /// layout is not flattened; each member is a header instance instead).
    pub fields: Vec<Field>,
    /// Program or architecture.
    pub origin: Origin,
    /// Declaration site.
    pub span: Span,
}

impl HeaderType {
    /// Fixed width in bits (varbit fields count as zero).
    pub fn fixed_bits(&self) -> u64 {
        self.fields
            .iter()
            .filter(|f| !f.varbit)
            .map(|f| u64::from(f.width_bits))
            .sum()
    }

    /// Maximum width in bits (varbit fields at their maximum).
    pub fn max_bits(&self) -> u64 {
        self.fields.iter().map(|f| u64::from(f.width_bits)).sum()
    }
}

/// A header instance: a field of the parsed-headers structure (`hdr.ipv4`)
/// or a stack (`hdr.mpls[4]`), or metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderInstance {
    /// Full name as written in the program, e.g. `hdr.ipv4` or
    /// `ig_intr_md`.
    pub name: String,
    /// Its type.
    pub ty: HeaderTypeId,
    /// `Some(n)` for a header stack of `n` elements.
    pub stack_size: Option<u32>,
    /// True for metadata (never extracted from the packet).
    pub metadata: bool,
    /// Declaration site.
    pub span: Span,
}

impl HeaderInstance {
    /// The last component of the name (`ipv4` for `hdr.ipv4`).
    pub fn short_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
}
