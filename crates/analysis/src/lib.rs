//! p4cost-analysis: program-level analyses over the p4cost program model.
//!
//! - [`parse_paths`]: every path through a parser from `start` to `accept`,
//!   with the bytes each state extracts. Header-stack loops are unrolled up
//!   to the stack size. Paths are *counted* exactly by dynamic programming
//!   over (state, stack fill) pairs, and *listed* only up to a cap, so a
//!   parser with millions of paths costs time linear in its size.
//! - [`path_graph`]: the unrolled parse graph as an explicit DAG (bounded by
//!   an analysis-state budget) and [`Product`]s of it with small automata
//!   ([`HeaderSeq`] for `--path`), over which counts, path indexes,
//!   extremes, distributions and the k heaviest paths are dynamic programs
//!   rather than enumerations.
//! - [`classes`]: packet classes (parse path x control path): header
//!   validity signatures of the parse DAG by a suffix DP, the control walked
//!   per signature with three-valued validity, exact class counts and the
//!   lightest / heaviest class without enumeration, and a bounded listing of
//!   one parse path's classes with why each skipped table is skipped;
//!   [`class_filter`] selects classes by the tables they apply and the
//!   hit/miss or `action_run` ways they take (`--class`).
//! - [`gresses`]: the ingress control joined to the egress control (what
//!   the egress parser recovers of the headers in between), so a packet
//!   class runs through both.
//! - [`control`]: tables applied by a control and the number of paths
//!   through its control-flow graph.
//! - [`deps`]: the table dependency graph of a control (match, action,
//!   control and reverse-read dependencies between tables, gateways and
//!   apply-block statements) and its longest chain of match dependencies.
//!
//! Dependencies: `p4cost-ir` and `serde` only. Nothing here knows about
//! latency models; it produces facts the models consume.

pub mod class_filter;
pub mod classes;
pub mod control;
pub mod deps;
pub mod gresses;
pub mod paths;

#[cfg(test)]
mod test_ir;

pub use class_filter::{ClassFilter, ClassTerm, Want};
pub use classes::dist::{class_distribution, ClassDistribution, Histogram};
pub use classes::{
    list_classes, packet_classes, packet_classes_over_product, path_signature, path_signatures,
    ClassBudget, ClassError, ClassExtreme, ClassLister, ClassListing, ClassRefs, ClassSummary,
    ControlClasses, ControlPath, Decision, ListedClass, Outcome, ParseSignatures, SkipRef,
    SkippedTable, TestedHeaders, MAX_TESTED_HEADERS,
};
pub use control::{control_path_count, control_tables};
pub use deps::{
    dependency_graph, dependency_graph_with, DepEdge, DepGraph, DepKind, DepLimits,
    SharedContainers, TooManyUnits, Unit, UnitKind, DEFAULT_MAX_DEP_PAIRS, DEFAULT_MAX_DEP_UNITS,
    MAX_REACH_BITS,
};
pub use gresses::{join_egress, EgressJoin};
pub use paths::{
    explain_unmatched, is_ethernet, match_headers, packet_bits, parse_paths, path_graph,
    BudgetExceeded, Extreme, Fit, FitsPacket, HeaderSeq, Next, ParsePath, ParsePaths,
    PathAutomaton, PathCount, PathExtract, PathGraph, PathOptions, PathState, Product, ProductNode,
    RejectExtreme, RejectWhy, Rejects, SeqPos, Unmatched, DEFAULT_MAX_ANALYSIS_STATES,
};
