//! The engine's error: an input or option the engine cannot answer for.

use std::fmt;
use std::sync::Arc;

/// Where in a source text an error is, with the text itself when the
/// engine has it, so that a caller can show the line with a caret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The file as messages name it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub col: u32,
    /// The message without its `file:line:col: ` prefix.
    pub message: String,
    /// The whole text of `file` as it was read (from the disk, stdin, a
    /// git revision or the bundled architecture files), when available.
    pub text: Option<Arc<str>>,
}

/// Why the engine gave no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An input that cannot be read or lowered, or options that contradict
    /// each other or the input. The message is already
    /// `file:line:col: ...` (or a JSON path) where there is a location.
    Input(String),
    /// An input error at a place in a source text (a syntax error, a
    /// preprocessor error, invalid JSON): `message` is the whole
    /// `file:line:col: ...` line, `site` its parts.
    Located {
        /// `file:line:col: message`.
        message: String,
        /// The place and, when known, the text around it.
        site: Box<Site>,
    },
    /// No parse path extracts the header sequence asked for: the packet
    /// does not exist in that program (a chain's hop it does not cross).
    NoPath(String),
    /// A finding, not an input error: the program needs more MAU stages
    /// than the chip has, under a placement estimate.
    DoesNotFit {
        /// `program: does not fit: ...`, the dependency chain included.
        message: String,
        /// The figures.
        fit: Box<NoFit>,
    },
}

/// Why a program does not fit its chip (from the model's
/// `DoesNotFit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoFit {
    /// The program as reports name it.
    pub program: String,
    /// The placement model.
    pub model: String,
    /// The control that overflows.
    pub control: String,
    /// Stages of the chip.
    pub stages: u32,
    /// Stages the placement reached.
    pub needed: u32,
    /// The dependency chain that overflows, first unit to last (the one
    /// table, when it is larger than any stage).
    pub chain: Vec<String>,
    /// When one table needs more of a per-stage resource than any stage
    /// has: what it needs and what a stage has (`needed` is then one
    /// more than the chip's stages: no stage can hold it).
    pub too_large: Option<String>,
    /// When the stages filled up (the dependencies alone fit): the
    /// resource, the stages it fills and the tables that take it
    /// (`chain` is then empty).
    pub full: Option<Box<p4cost_model::mau_estimate::FullStages>>,
}

impl NoFit {
    /// `needs 14 stages, the chip has 12: SRAM blocks fill stages 0-11:
    /// ...`, when full stages are why the program does not fit.
    pub fn stages_full(&self) -> Option<String> {
        let f = self.full.as_ref()?;
        Some(format!(
            "control `{}` needs {} stages, the chip has {}: {}",
            self.control,
            self.needed,
            self.stages,
            f.sentence()
        ))
    }

    /// The table no stage can hold and what it needs beyond a stage, when
    /// that is why the program does not fit (else the chain overflows).
    pub fn unit_too_large(&self) -> Option<(&str, &str)> {
        let what = self.too_large.as_deref()?;
        Some((self.chain.first().map_or("", String::as_str), what))
    }
}

impl Error {
    /// An input or option error.
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }

    /// An input error at `site`.
    pub fn at(site: Site) -> Error {
        Error::Located {
            message: format!("{}:{}:{}: {}", site.file, site.line, site.col, site.message),
            site: Box::new(site),
        }
    }

    /// The error of a MAU model on `shown`: a [`Error::DoesNotFit`]
    /// finding for a placement over the chip's stages, an input error
    /// otherwise.
    pub fn of_model(shown: &str, e: p4cost_model::ModelError) -> Error {
        let message = format!("{shown}: {e}");
        match e {
            p4cost_model::ModelError::DoesNotFit {
                model,
                control,
                stages,
                needed,
                chain,
            } => Error::DoesNotFit {
                message,
                fit: Box::new(NoFit {
                    program: shown.to_string(),
                    model,
                    control,
                    stages,
                    needed,
                    chain,
                    too_large: None,
                    full: None,
                }),
            },
            p4cost_model::ModelError::StagesFull {
                model,
                control,
                stages,
                needed,
                full,
            } => Error::DoesNotFit {
                message,
                fit: Box::new(NoFit {
                    program: shown.to_string(),
                    model,
                    control,
                    stages,
                    needed,
                    chain: Vec::new(),
                    too_large: None,
                    full: Some(full),
                }),
            },
            p4cost_model::ModelError::UnitTooLarge {
                model,
                control,
                unit,
                stages,
                message: what,
            } => Error::DoesNotFit {
                message,
                fit: Box::new(NoFit {
                    program: shown.to_string(),
                    model,
                    control,
                    stages,
                    needed: stages + 1,
                    chain: vec![unit],
                    too_large: Some(what),
                    full: None,
                }),
            },
            _ => Error::Input(message),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Error::Input(m) | Error::NoPath(m) => m,
            Error::Located { message, .. } | Error::DoesNotFit { message, .. } => message,
        }
    }

    /// The source site, for errors that have one.
    pub fn site(&self) -> Option<&Site> {
        match self {
            Error::Located { site, .. } => Some(site),
            _ => None,
        }
    }

    /// The same error with `prefix: ` before its message (the site, if
    /// any, is kept).
    pub fn context(self, prefix: &str) -> Error {
        match self {
            Error::Input(m) => Error::Input(format!("{prefix}: {m}")),
            Error::NoPath(m) => Error::NoPath(format!("{prefix}: {m}")),
            Error::Located { message, site } => Error::Located {
                message: format!("{prefix}: {message}"),
                site,
            },
            Error::DoesNotFit { message, fit } => Error::DoesNotFit {
                message: format!("{prefix}: {message}"),
                fit,
            },
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_over_the_chip_is_a_finding_other_model_errors_input() {
        let e = Error::of_model(
            "p.p4",
            p4cost_model::ModelError::DoesNotFit {
                model: "m".into(),
                control: "Ig".into(),
                stages: 12,
                needed: 13,
                chain: vec!["a".into(), "b".into()],
            },
        );
        let Error::DoesNotFit { message, fit } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(fit.too_large, None);
        assert!(message.starts_with("p.p4: does not fit"), "{message}");
        assert!(message.ends_with("a -> b"), "{message}");
        assert_eq!(
            (fit.needed, fit.stages, fit.program.as_str()),
            (13, 12, "p.p4")
        );
        assert!(matches!(e.context("x"), Error::DoesNotFit { .. }));
        let other = p4cost_model::ModelError::BadParameter {
            model: "m".into(),
            message: "clock".into(),
        };
        assert!(matches!(Error::of_model("p.p4", other), Error::Input(_)));
    }
}
