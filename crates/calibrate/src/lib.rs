//! p4cost-calibrate: fitting p4cost's models to the user's own hardware.
//!
//! [`suite`] writes a profiling suite (programs in sweeps, their table
//! entries, a manifest to fill with measurements); [`data`] reads the
//! filled manifest (or any measurement file of its columns); [`lr`] fits
//! the papers' linear model to it; [`validate`] compares a model with
//! measurements ([`metrics`]). The features of a row are the model crate's
//! [`p4cost_model::Features`], the same the engine computes for a packet
//! class, so a fitted model predicts programs exactly as it fits rows.
//!
//! Dependencies: `model`, `ir`, `front` and `analysis` (to read the
//! generated programs back as `predict` will), `csv`, `linfa`,
//! `linfa-linear`, `ndarray`, `nalgebra`, `serde`. Never the engine or the
//! CLI; nothing here prints.

pub mod component;
pub mod data;
pub mod entries;
pub mod error;
pub mod families;
pub mod lasso;
pub mod lr;
pub mod metrics;
pub mod noise;
pub mod pca;
pub mod plp;
pub mod programs;
pub mod suite;
pub mod validate;

pub use error::CalibrateError;
