//! p4cost-arch: the P4-16 architecture include files bundled with p4cost.
//!
//! Programs start with `#include <core.p4>` and `#include <tna.p4>` (or
//! `t2na.p4`, `v1model.p4`, `psa.p4`, `pna.p4`, the target flavours
//! `bmv2/psa.p4`, `dpdk/psa.p4`, `dpdk/pna.p4`, or the eBPF family's
//! `ebpf_model.p4`, `ubpf_model.p4`, `xdp_model.p4`). p4cost does not need a
//! compiler installation to resolve those names: this crate embeds its own
//! include files, written for p4cost from the published facts about each
//! architecture (field names and widths, extern signatures, package
//! shapes), and hands them to the preprocessor by name.
//!
//! - [`FILES`] lists every bundled file with its text;
//! - [`lookup`] finds one by the exact name written in `#include <...>`;
//! - [`arch_of`] tells which architecture an included name stands for.
//!
//! Dependencies: none (std only). No other p4cost crate is used.

mod detect;
mod files;

pub use detect::arch_of;
pub use files::{lookup, FILES};

#[cfg(test)]
mod scan;
