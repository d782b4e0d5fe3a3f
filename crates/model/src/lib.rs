//! p4cost-model: latency models as data, and the engine that evaluates them.
//!
//! Every model is a JSON file under the repository's `models/` directory,
//! embedded into the binary at build time ([`catalog`]); no coefficient
//! lives in code. A model file names its kind, its coefficients, its
//! source (paper, and section of the repository's `docs/models.md`) and its training
//! range. Engines are picked by the file's `kind`: [`tofino_linear`]
//! (`tofino_ingress_linear`, docs/models.md, Tofino 1 ingress latency) turns a parse path and
//! the tables on it into a prediction with a full breakdown and a warning
//! for every input outside the training range; [`mau_cycles`]
//! (`tofino_mau_cycles`, docs/models.md, Tofino MAU cycles) sums the Tofino compiler's
//! per-stage cycles per gress and divides by the clock, independent of the
//! parse path; [`mau_estimate`] (`tofino_mau_estimate`, docs/models.md,
//! Tofino stage placement estimate) first estimates that placement from the
//! program's table dependency graph and the model's per-stage resources;
//! [`cpu_tables`] (`cpu_tables`, docs/models.md, t4p4s DPDK CPU cost)
//! prices a software switch's packet classes in CPU cycles from the
//! tables each applies; [`fitted`] evaluates the models `p4cost fit` makes beside the linear
//! one: [`plp`] (PCA-Lasso-polynomial) and [`component`] (sums of fitted
//! [`curve`]s).
//!
//! Dependencies: `p4cost-ir`, `p4cost-analysis`, `serde`, `serde_json`,
//! `thiserror`. Nothing here reads P4 or compiler outputs.

pub mod baseline;
pub mod bmv2_coarse;
pub mod catalog;
pub mod component;
pub mod cpu_tables;
pub mod curve;
pub mod error;
pub mod features;
pub mod fitted;
pub mod mau_cycles;
pub mod mau_estimate;
pub mod nc;
pub mod nfp;
pub mod placement_why;
pub mod plp;
pub mod prediction;
pub mod scholz;
pub mod spec;
pub mod tofino_linear;
pub mod values;

pub use catalog::{all_models, every_model, model_by_name, EMBEDDED};
pub use error::ModelError;
pub use features::{Features, TableFeature, TableMatch};
pub use mau_cycles::{GressCycles, MauPrediction, StageCycles};
pub use prediction::{Breakdown, Prediction, StateTerm, TableTerm, Warning};
pub use spec::{ModelKind, ModelSpec};
