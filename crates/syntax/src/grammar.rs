//! The pest parser generated from `p4.pest`.

use pest_derive::Parser;

/// Generated PEG parser for P4-16; see `p4.pest` for the grammar.
#[derive(Parser)]
#[grammar = "p4.pest"]
pub(crate) struct P4Parser;
