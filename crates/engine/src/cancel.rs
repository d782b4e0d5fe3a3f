//! Stopping an analysis whose answer nobody waits for any more: the
//! language server sets the flag when a newer version of the document
//! arrives, and the engine checks it between its stages (each pipeline,
//! the parse graph, the path costs, the packet classes).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::Error;

/// A flag another thread may set to stop an analysis; the default is
/// never set. Two tokens compare equal whatever their flags: cancelling
/// is not part of what an analysis computes.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A token that stops the analysis once `flag` is set.
    pub fn new(flag: Arc<AtomicBool>) -> Cancel {
        Cancel(Some(flag))
    }

    /// True once the flag was set.
    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// An error when the flag was set (the caller drops the answer).
    pub fn check(&self) -> Result<(), Error> {
        if self.is_set() {
            Err(Error::input(
                "analysis cancelled: a newer version replaced it",
            ))
        } else {
            Ok(())
        }
    }
}

impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops_and_the_default_never_does() {
        assert!(Cancel::default().check().is_ok());
        let flag = Arc::new(AtomicBool::new(false));
        let c = Cancel::new(flag.clone());
        assert!(c.check().is_ok());
        flag.store(true, Ordering::Relaxed);
        assert!(c.check().is_err());
        assert_eq!(c, Cancel::default());
    }

    #[test]
    fn a_prediction_whose_flag_is_set_gives_no_report() {
        let sample = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../p4-samples/tofino/tc2_datacenter.p4"
        );
        let mut o = crate::PredictOptions::new(sample);
        let mut session = crate::session::Session::new();
        assert!(session.reports(&o).is_ok());
        let flag = Arc::new(AtomicBool::new(true));
        o.cancel = Cancel::new(flag);
        let e = session.reports(&o).expect_err("cancelled");
        assert!(e.message().contains("cancelled"), "{}", e.message());
    }
}
