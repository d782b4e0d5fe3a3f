//! Many programs at once: `predict` and `check` over files and
//! directories, on up to `jobs` threads (rayon), each program with its own
//! session, results in the order given whatever order they finish in.

use rayon::prelude::*;

use crate::check::{CheckReport, Target};
use crate::error::Error;
use crate::options::PredictOptions;
use crate::report::Report;
use crate::session::Session;

/// One program's reports, or why there are none.
#[derive(Debug)]
pub struct Predicted {
    /// The program as given.
    pub program: String,
    /// Its reports (one per pipeline), or the input error.
    pub result: Result<Vec<Report>, Error>,
}

/// What `predict --format json` prints for several programs.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct BatchReport {
    /// Version of the JSON shape.
    pub schema_version: u32,
    /// p4cost's version.
    pub p4cost_version: String,
    /// Each program, in the order given (directories in path order).
    pub programs: Vec<BatchEntry>,
    /// Over all of them.
    pub summary: BatchSummary,
}

/// One program of a batch.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct BatchEntry {
    /// The program as given.
    pub program: String,
    /// Why it has no report (an input error), else null.
    pub error: Option<String>,
    /// Its reports, one per pipeline (as `predict` of it alone).
    pub pipelines: Vec<Report>,
}

/// A batch's totals.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct BatchSummary {
    /// Programs given.
    pub programs: usize,
    /// Programs predicted.
    pub predicted: usize,
    /// Programs with an input error.
    pub failed: usize,
    /// The slowest packet class of all (its program), when any.
    pub slowest: Option<Extreme>,
    /// The fastest.
    pub fastest: Option<Extreme>,
}

/// The program and pipeline of an extreme class.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Extreme {
    /// The program.
    pub program: String,
    /// Its pipeline, when it has several.
    pub pipeline: Option<String>,
    /// The class's latency, ns.
    pub latency_ns: f64,
    /// The class (`P.C`), when the model has classes.
    pub class: Option<String>,
}

impl BatchReport {
    /// The report of `items` (moved in).
    pub fn of(items: Vec<Predicted>) -> BatchReport {
        let mut slowest: Option<Extreme> = None;
        let mut fastest: Option<Extreme> = None;
        let mut programs = Vec::with_capacity(items.len());
        let (mut predicted, mut failed) = (0, 0);
        for it in items {
            match it.result {
                Ok(reports) => {
                    predicted += 1;
                    for r in &reports {
                        let pipeline = r
                            .pipeline
                            .as_ref()
                            .filter(|p| p.all.len() > 1)
                            .map(|p| p.name.clone());
                        let s = r.summary.as_ref();
                        let at = |e: Option<&crate::path_stats::ExtremeOut>| {
                            e.map(|e| Extreme {
                                program: it.program.clone(),
                                pipeline: pipeline.clone(),
                                latency_ns: e.latency_ns,
                                class: e.class.clone(),
                            })
                        };
                        if let Some(x) = at(s.and_then(|s| s.max.as_ref())) {
                            if slowest.as_ref().is_none_or(|m| x.latency_ns > m.latency_ns) {
                                slowest = Some(x);
                            }
                        }
                        if let Some(x) = at(s.and_then(|s| s.min.as_ref())) {
                            if fastest.as_ref().is_none_or(|m| x.latency_ns < m.latency_ns) {
                                fastest = Some(x);
                            }
                        }
                    }
                    programs.push(BatchEntry {
                        program: it.program,
                        error: None,
                        pipelines: reports,
                    });
                }
                Err(e) => {
                    failed += 1;
                    programs.push(BatchEntry {
                        program: it.program,
                        error: Some(e.message().to_string()),
                        pipelines: Vec::new(),
                    });
                }
            }
        }
        BatchReport {
            schema_version: crate::report::SCHEMA_VERSION,
            p4cost_version: env!("CARGO_PKG_VERSION").to_string(),
            summary: BatchSummary {
                programs: programs.len(),
                predicted,
                failed,
                slowest,
                fastest,
            },
            programs,
        }
    }
}

fn pool(jobs: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| Error::input(format!("--jobs {jobs}: cannot start the threads: {e}")))
}

/// The reports of each of `programs`, on `jobs` threads; `done` is called
/// (from any thread) as each finishes, with its name.
pub fn predict_many(
    programs: &[PredictOptions],
    jobs: usize,
    done: &(dyn Fn(&str) + Sync),
) -> Result<Vec<Predicted>, Error> {
    Ok(pool(jobs)?.install(|| {
        programs
            .par_iter()
            .map(|o| {
                let program = crate::read::shown(&o.file);
                let result = crate::predict::reports(o);
                done(&program);
                Predicted { program, result }
            })
            .collect()
    }))
}

/// [`crate::check::check`] with each target judged on one of `jobs`
/// threads (its own session); chains after, in one session. `done` is
/// called as each target is judged.
pub fn check_many(
    targets: &[Target],
    chains: &[crate::chain::Chain],
    jobs: usize,
    done: &(dyn Fn(&str) + Sync),
) -> Result<CheckReport, Error> {
    let judged: Vec<Result<CheckReport, Error>> = pool(jobs)?.install(|| {
        targets
            .par_iter()
            .map(|t| {
                let mut session = Session::new();
                let r = crate::check::check(&mut session, std::slice::from_ref(t), &[]);
                done(&crate::read::shown(&t.options.file));
                r
            })
            .collect()
    });
    let mut results = Vec::new();
    let mut denied = Vec::new();
    for r in judged {
        let r = r?;
        results.extend(r.results);
        denied.extend(r.denied);
    }
    let mut session = Session::new();
    let chained = crate::check::check(&mut session, &[], chains)?;
    Ok(CheckReport {
        over: results.iter().filter(|v| v.is_over()).count() + chained.over,
        results,
        denied,
        ..chained
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_keep_the_order_given_and_errors_stay_with_their_program() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let files = [
            "p4-samples/tofino/tc2_datacenter.p4",
            "p4-samples/no-such-file.p4",
            "p4-samples/tofino/tc1_enterprise.p4",
        ];
        let opts: Vec<PredictOptions> = files
            .iter()
            .map(|f| PredictOptions::new(root.join(f)))
            .collect();
        let n = AtomicUsize::new(0);
        let out = predict_many(&opts, 3, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        })
        .expect("pool");
        assert_eq!(n.load(Ordering::Relaxed), 3);
        assert!(out[0].program.ends_with("tc2_datacenter.p4"));
        assert!(out[0].result.is_ok());
        assert!(out[1].result.is_err());
        assert!(out[2].program.ends_with("tc1_enterprise.p4"));
        // The same figures as one at a time.
        let one = crate::predict::reports(&opts[2]).expect("tc1");
        let many = out[2].result.as_ref().expect("tc1");
        assert_eq!(
            one[0]
                .summary
                .as_ref()
                .and_then(|s| s.max.as_ref())
                .map(|m| m.latency_ns),
            many[0]
                .summary
                .as_ref()
                .and_then(|s| s.max.as_ref())
                .map(|m| m.latency_ns)
        );
    }
}
