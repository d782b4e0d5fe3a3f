//! p4cost-ir: the one program model every input lowers to.
//!
//! A P4-16 source file (through `p4cost-front`), a BMv2 JSON file (through
//! `p4cost-bmv2`) and a Tofino `context.json` (through `p4cost-tofino`) all
//! become a [`Program`]: header types with bit widths, header instances,
//! parsers as graphs of states, controls whose bodies are control-flow
//! graphs, tables, actions with read/write sets, and byte spans on all of it.
//!
//! Dependencies: `serde` only. Every other p4cost crate may depend on this
//! one; this one depends on no p4cost crate.
//!
//! Invariants:
//! - every id ([`HeaderTypeId`], [`StateId`], [`TableId`], ...) indexes the
//!   matching vector of the [`Program`] (or [`Parser`] for states) that
//!   produced it; readers never hand out dangling ids;
//! - widths are in bits; byte counts derived from them round up;
//! - a [`Span`] always names a file in [`Program::files`].

pub mod cond;
pub mod control;
pub mod ids;
pub mod parser;
pub mod program;
pub mod span;
pub mod table;
pub mod types;

pub use cond::*;
pub use control::*;
pub use ids::*;
pub use parser::*;
pub use program::*;
pub use span::*;
pub use table::*;
pub use types::*;
