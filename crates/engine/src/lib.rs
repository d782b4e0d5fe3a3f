//! p4cost-engine: the one place an answer is computed.
//!
//! Loads an input by its content (P4-16 source, p4c's BMv2 JSON or the
//! Tofino compiler's context.json, with its bfrt.json), runs the analyses
//! and evaluates a model, and returns reports as plain data
//! ([`report::Report`]). Callers (the CLI's commands, the language server)
//! fill [`options`] from their flags or configuration and render what comes
//! back; none of them computes a figure of its own, so every surface gives
//! the same answer. Nothing here prints.
//!
//! Dependencies: `ir`, `front`, `analysis`, `model`, `bmv2`, `tofino`,
//! `serde`, `serde_json` (and `libc` to read pipes without hanging; the
//! `git` program, run as a subprocess, to read a file at a revision). Never
//! the CLI or an argument parser.

pub mod batch;
pub mod bound;
pub mod cancel;
pub mod chain;
pub mod check;
pub mod check_resources;
pub mod class_memo;
pub mod combine;
pub mod cpu_out;
pub mod diff;
pub mod drop_later;
pub mod error;
pub mod explain;
pub mod git;
pub mod ide;
pub mod input;
pub mod int_mtu;
pub mod lint_units;
pub mod options;
pub mod overlay;
pub mod pass_out;
pub mod path_classes;
pub mod path_stats;
pub mod pipeline_view;
pub mod portability;
pub mod predict;
pub mod programs;
pub mod read;
pub mod recirc;
pub mod register_window;
pub mod report;
pub mod resources;
pub mod session;
pub mod stages;
pub mod text;
pub mod timestamp_units;
pub mod warnings;

pub use error::Error;
pub use options::{DepOptions, PredictOptions, SortBy, SourceOptions, TargetOptions};
/// How files are read (the disk, a git revision, an editor's buffers).
pub use p4cost_front::{Disk, Files};
pub use session::Session;
