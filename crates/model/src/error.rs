//! Errors of the model crate.

/// What can go wrong loading or applying a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// An embedded or user-supplied model file is not valid.
    #[error("model file `{file}`: {message}")]
    BadFile {
        /// The file name.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// No model of that name.
    #[error("unknown model `{name}`{hint} (known: {known})")]
    Unknown {
        /// The requested name.
        name: String,
        /// `; did you mean `x`?` when a known name is close, else empty.
        hint: String,
        /// Comma-separated known names.
        known: String,
    },
    /// The model cannot be applied to this input.
    #[error("model `{model}` cannot be applied: {message}")]
    NotApplicable {
        /// The model name.
        model: String,
        /// Why not.
        message: String,
    },
    /// A parameter given to the model is out of its domain.
    #[error("model `{model}`: {message}")]
    BadParameter {
        /// The model name.
        model: String,
        /// What is wrong.
        message: String,
    },
    /// The program needs more stages than the chip has.
    #[error("does not fit: control `{control}` needs at least {needed} stages, the chip has {stages} (model `{model}`); the chain that overflows: {}", chain.join(" -> "))]
    DoesNotFit {
        /// The model name.
        model: String,
        /// The control that overflows.
        control: String,
        /// Stages of the chip.
        stages: u32,
        /// Stages the placement reached.
        needed: u32,
        /// The dependency chain, first unit to last.
        chain: Vec<String>,
    },
    /// The program needs more stages than the chip has because its
    /// stages filled up: its dependencies alone fit.
    #[error("does not fit: control `{control}` needs at least {needed} stages, the chip has {stages} (model `{model}`): {}", full.sentence())]
    StagesFull {
        /// The model name.
        model: String,
        /// The control that overflows.
        control: String,
        /// Stages of the chip.
        stages: u32,
        /// Stages the placement reached.
        needed: u32,
        /// The resource, the stages it fills, the tables that take it.
        full: Box<crate::mau_estimate::FullStages>,
    },
    /// One table needs more of a per-stage resource than any stage has
    /// (a table's meter/stateful ALUs or logical tables cannot be spread
    /// over stages).
    #[error("does not fit: `{unit}` in control `{control}` {message} (model `{model}`)")]
    UnitTooLarge {
        /// The model name.
        model: String,
        /// The control that holds the table.
        control: String,
        /// The table.
        unit: String,
        /// Stages of the chip.
        stages: u32,
        /// What it needs and what a stage has.
        message: String,
    },
}
