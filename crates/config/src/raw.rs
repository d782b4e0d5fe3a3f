//! The file as written (serde types with spans) and its resolution into a
//! [`Config`]: every check that needs no program, each error at the
//! `line:col` of the value at fault.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use p4cost_engine::chain::{Chain, Hop, HopKind, Segment, DEFAULT_MAX_CHAIN_PACKETS};
use p4cost_engine::check::{Budget, Limit};
use p4cost_engine::options::{Entries, LintOptions};
use p4cost_engine::warnings::{self, WarningPolicy};
use p4cost_engine::TargetOptions;
use p4cost_ir::Gress;

use crate::{Config, ConfigError, ProgramConfig, Settings};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    defaults: Option<RawDefaults>,
    #[serde(default)]
    program: Vec<RawProgram>,
    #[serde(default)]
    chain: Vec<RawChain>,
    warnings: Option<RawWarnings>,
}

/// `[warnings]`: codes dropped (`allow`) and codes that fail (`deny`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWarnings {
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    #[serde(default)]
    deny: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawDefaults {
    model: Option<Spanned<String>>,
    model_file: Option<Spanned<String>>,
    port: Option<Spanned<String>>,
    packet_size: Option<Spanned<i64>>,
    rate: Option<Spanned<String>>,
    window: Option<Spanned<String>>,
    mtu: Option<Spanned<i64>>,
    hops: Option<Spanned<i64>>,
    #[serde(default)]
    include_dirs: Vec<Spanned<String>>,
    #[serde(default)]
    defines: Vec<Spanned<String>>,
    #[serde(default)]
    entries: BTreeMap<String, Spanned<i64>>,
    budget: Option<RawBudget>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawProgram {
    path: Spanned<String>,
    name: Option<Spanned<String>>,
    context: Option<Spanned<String>>,
    bfrt: Option<Spanned<String>>,
    pipe: Option<String>,
    model: Option<Spanned<String>>,
    model_file: Option<Spanned<String>>,
    port: Option<Spanned<String>>,
    packet_size: Option<Spanned<i64>>,
    rate: Option<Spanned<String>>,
    window: Option<Spanned<String>>,
    mtu: Option<Spanned<i64>>,
    hops: Option<Spanned<i64>>,
    #[serde(default)]
    include_dirs: Vec<Spanned<String>>,
    #[serde(default)]
    defines: Vec<Spanned<String>>,
    #[serde(default)]
    entries: BTreeMap<String, Spanned<i64>>,
    budget: Option<RawBudget>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBudget {
    max_latency: Option<Spanned<f64>>,
    table_count: Option<Spanned<i64>>,
    max_stages: Option<Spanned<i64>>,
    max_sram_percent: Option<Spanned<f64>>,
    max_tcam_percent: Option<Spanned<f64>>,
    ingress_cycles: Option<Spanned<i64>>,
    egress_cycles: Option<Spanned<i64>>,
    #[serde(default)]
    class: Vec<RawClassBudget>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawClassBudget {
    headers: Spanned<Vec<String>>,
    max_latency: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawChain {
    name: Spanned<String>,
    hops: Spanned<Vec<RawHop>>,
    #[serde(default)]
    segments: Vec<RawSegment>,
    max_latency: Option<Spanned<f64>>,
    #[serde(default)]
    packets: Vec<Spanned<Vec<String>>>,
    max_packets: Option<Spanned<i64>>,
    arrival: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawHop {
    program: Option<Spanned<String>>,
    name: Option<String>,
    delay_ns: Option<Spanned<f64>>,
    model: Option<Spanned<String>>,
    model_file: Option<Spanned<String>>,
    port: Option<Spanned<String>>,
    packet_size: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSegment {
    name: Option<String>,
    from: Spanned<String>,
    to: Spanned<String>,
    priority_ns: Option<Spanned<f64>>,
    drop_ns: Spanned<f64>,
}

/// Turns byte offsets into `line:col` and builds located errors.
struct Locator<'a> {
    text: &'a str,
    shown: &'a str,
}

impl Locator<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rfind('\n')
            .map_or(before.chars().count(), |i| before[i + 1..].chars().count())
            + 1;
        (line, col)
    }

    fn err(&self, span: Range<usize>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.shown.to_string(),
            line_col: Some(self.line_col(span.start)),
            message: message.into(),
        }
    }

    fn origin(&self, span: Range<usize>) -> String {
        let (l, c) = self.line_col(span.start);
        format!("{}:{l}:{c}", self.shown)
    }
}

pub(crate) fn resolve(text: &str, shown: &str, dir: &Path) -> Result<Config, ConfigError> {
    let at = Locator { text, shown };
    let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError {
        file: shown.to_string(),
        line_col: e.span().map(|s| at.line_col(s.start)),
        message: e.message().to_string(),
    })?;
    let (mut defaults, default_budgets) = match raw.defaults {
        Some(d) => resolve_defaults(&at, dir, d)?,
        None => (Settings::default(), Vec::new()),
    };
    if let Some(w) = &raw.warnings {
        defaults.warnings = warnings(&at, w)?;
    }
    let mut programs: Vec<ProgramConfig> = Vec::new();
    for p in raw.program {
        let q = resolve_program(&at, dir, p, &defaults, &default_budgets, &programs)?;
        programs.push(q);
    }
    let mut chains = Vec::new();
    for c in raw.chain {
        chains.push(chain(&at, dir, c, &programs)?);
    }
    Ok(Config {
        file: PathBuf::from(shown),
        defaults,
        default_budgets,
        programs,
        chains,
    })
}

/// `[defaults]`: the settings and budgets every program starts from.
fn resolve_defaults(
    at: &Locator,
    dir: &Path,
    d: RawDefaults,
) -> Result<(Settings, Vec<Budget>), ConfigError> {
    let s = settings(
        at,
        dir,
        RawSettings {
            model: d.model,
            model_file: d.model_file,
            port: d.port,
            packet_size: d.packet_size,
            rate: d.rate,
            window: d.window,
            mtu: d.mtu,
            hops: d.hops,
            include_dirs: d.include_dirs,
            defines: d.defines,
            entries: d.entries,
        },
        None,
    )?;
    let b = match d.budget {
        Some(b) => budgets(at, b)?,
        None => Vec::new(),
    };
    Ok((s, b))
}

/// One `[[program]]`: its name (distinct from those before it), files
/// that must exist, settings over the defaults, and budgets (its own of a
/// kind replacing the default one).
fn resolve_program(
    at: &Locator,
    dir: &Path,
    p: RawProgram,
    defaults: &Settings,
    default_budgets: &[Budget],
    before: &[ProgramConfig],
) -> Result<ProgramConfig, ConfigError> {
    let name = p
        .name
        .as_ref()
        .map_or_else(|| p.path.get_ref().clone(), |n| n.get_ref().clone());
    if let Some(prev) = before.iter().find(|q| q.name == name) {
        let span = p.name.as_ref().map_or(p.path.span(), |n| n.span());
        return Err(at.err(
            span,
            format!(
                "a second program named `{name}` (the first has path {}); give each a distinct `name`",
                prev.path.display()
            ),
        ));
    }
    let path = existing(at, dir, &p.path, "program")?;
    let context = p
        .context
        .as_ref()
        .map(|c| existing(at, dir, c, "context"))
        .transpose()?;
    let bfrt = p
        .bfrt
        .as_ref()
        .map(|c| existing(at, dir, c, "bfrt"))
        .transpose()?;
    let s = settings(
        at,
        dir,
        RawSettings {
            model: p.model,
            model_file: p.model_file,
            port: p.port,
            packet_size: p.packet_size,
            rate: p.rate,
            window: p.window,
            mtu: p.mtu,
            hops: p.hops,
            include_dirs: p.include_dirs,
            defines: p.defines,
            entries: p.entries,
        },
        Some(defaults),
    )?;
    let mut b = default_budgets.to_vec();
    if let Some(pb) = p.budget {
        let own = budgets(at, pb)?;
        b.retain(|d| !own.iter().any(|o| same_kind(&o.limit, &d.limit)));
        b.extend(own);
    }
    Ok(ProgramConfig {
        name,
        path,
        context,
        bfrt,
        pipe: p.pipe,
        settings: s,
        budgets: b,
    })
}

/// The policy of `[warnings]`, each unknown code (or one both allowed and
/// denied) an error at its place.
fn warnings(at: &Locator<'_>, w: &RawWarnings) -> Result<WarningPolicy, ConfigError> {
    let check = |list: &[Spanned<String>]| {
        for c in list {
            warnings::code(c.get_ref()).map_err(|e| at.err(c.span(), format!("warnings: {e}")))?;
        }
        Ok::<(), ConfigError>(())
    };
    check(&w.allow)?;
    check(&w.deny)?;
    let names = |list: &[Spanned<String>]| -> Vec<String> {
        list.iter().map(|c| c.get_ref().clone()).collect()
    };
    let (allow, deny) = (names(&w.allow), names(&w.deny));
    WarningPolicy::new(
        allow.iter().map(String::as_str),
        deny.iter().map(String::as_str),
    )
    .map_err(|e| {
        let span = w
            .deny
            .iter()
            .find(|d| {
                warnings::code(d.get_ref()).ok().is_some_and(|c| {
                    allow
                        .iter()
                        .any(|a| warnings::code(a).ok().as_ref() == Some(&c))
                })
            })
            .map_or(0..0, |d| d.span());
        at.err(span, format!("warnings: {e}"))
    })
}

/// Two budgets of the same kind (class budgets: of the same headers).
fn same_kind(a: &Limit, b: &Limit) -> bool {
    a == b || (a.key() == b.key() && !matches!(a, Limit::ClassLatency { .. }))
}

struct RawSettings {
    model: Option<Spanned<String>>,
    model_file: Option<Spanned<String>>,
    port: Option<Spanned<String>>,
    packet_size: Option<Spanned<i64>>,
    rate: Option<Spanned<String>>,
    window: Option<Spanned<String>>,
    mtu: Option<Spanned<i64>>,
    hops: Option<Spanned<i64>>,
    include_dirs: Vec<Spanned<String>>,
    defines: Vec<Spanned<String>>,
    entries: BTreeMap<String, Spanned<i64>>,
}

fn settings(
    at: &Locator<'_>,
    dir: &Path,
    r: RawSettings,
    base: Option<&Settings>,
) -> Result<Settings, ConfigError> {
    let mut s = base.cloned().unwrap_or_default();
    s.target = target(at, dir, &r.model, &r.model_file, &r.port, &r.packet_size)?.over(&s.target);
    s.lints = lints(at, &r)?.over(&s.lints);
    for d in &r.include_dirs {
        let p = join(dir, d.get_ref());
        if !p.is_dir() {
            return Err(at.err(
                d.span(),
                format!("include directory `{}` does not exist", p.display()),
            ));
        }
        s.include_dirs.push(p);
    }
    for d in r.defines {
        p4cost_engine::options::check_define(d.get_ref()).map_err(|m| at.err(d.span(), m))?;
        s.defines.push(d.into_inner());
    }
    for (table, n) in &r.entries {
        let Ok(v) = u64::try_from(*n.get_ref()) else {
            return Err(at.err(
                n.span(),
                "entries: a count of table entries is not negative",
            ));
        };
        s.entries.retain(|e| &e.table != table);
        s.entries.push(Entries {
            table: table.clone(),
            entries: v,
            origin: Some(at.origin(n.span())),
        });
    }
    Ok(s)
}

/// The target a table's `model`, `model-file`, `port` and `packet-size`
/// give. A model file is relative to the configuration's directory and is
/// loaded and checked here, so a bad one is an error at its key.
fn target(
    at: &Locator<'_>,
    dir: &Path,
    m: &Option<Spanned<String>>,
    mf: &Option<Spanned<String>>,
    p: &Option<Spanned<String>>,
    size: &Option<Spanned<i64>>,
) -> Result<TargetOptions, ConfigError> {
    if let (Some(_), Some(f)) = (m, mf) {
        return Err(at.err(f.span(), "give `model` or `model-file`, not both"));
    }
    let model_file = match mf {
        Some(f) => {
            let path = existing(at, dir, f, "model-file")?;
            let max = p4cost_engine::SourceOptions::default().max_input_bytes;
            p4cost_engine::predict::model_from_file(&path, max)
                .map_err(|e| at.err(f.span(), e.to_string()))?;
            Some(path)
        }
        None => None,
    };
    Ok(TargetOptions {
        model: m.as_ref().map(|m| model(at, m)).transpose()?,
        port_gbps: p.as_ref().map(|p| port(at, p)).transpose()?,
        packet_size: size.as_ref().map(|s| packet_size(at, s)).transpose()?,
        model_file,
    })
}

/// The lint settings `rate`, `window`, `mtu` and `hops` give, each bad
/// value an error at its key.
fn lints(at: &Locator<'_>, r: &RawSettings) -> Result<LintOptions, ConfigError> {
    use p4cost_engine::lint_units::{parse_rate, parse_window, whole};
    let located =
        |span: Range<usize>| move |e: p4cost_engine::Error| at.err(span.clone(), e.to_string());
    Ok(LintOptions {
        rate_pps: r
            .rate
            .as_ref()
            .map(|v| parse_rate(v.get_ref(), "rate").map_err(located(v.span())))
            .transpose()?,
        window_ns: r
            .window
            .as_ref()
            .map(|v| parse_window(v.get_ref(), "window").map_err(located(v.span())))
            .transpose()?,
        mtu_bytes: r
            .mtu
            .as_ref()
            .map(|v| {
                whole(*v.get_ref(), "mtu", MIN_MTU_BYTES, "a size in bytes")
                    .map_err(located(v.span()))
            })
            .transpose()?,
        hops: r
            .hops
            .as_ref()
            .map(|v| whole(*v.get_ref(), "hops", 1, "a hop count").map_err(located(v.span())))
            .transpose()?,
    })
}

/// The smallest `mtu`: Ethernet's smallest frame (as `--mtu`).
const MIN_MTU_BYTES: u32 = 64;

fn model(at: &Locator<'_>, m: &Spanned<String>) -> Result<String, ConfigError> {
    p4cost_model::model_by_name(m.get_ref())
        .map(|s| s.name.clone())
        .map_err(|e| at.err(m.span(), e.to_string()))
}

fn port(at: &Locator<'_>, p: &Spanned<String>) -> Result<u32, ConfigError> {
    match p.get_ref().to_ascii_lowercase().as_str() {
        "10g" => Ok(10),
        "100g" => Ok(100),
        other => Err(at.err(
            p.span(),
            format!("port `{other}`: the models know \"10g\" and \"100g\""),
        )),
    }
}

fn packet_size(at: &Locator<'_>, p: &Spanned<i64>) -> Result<u32, ConfigError> {
    let (min, max) = (
        p4cost_engine::predict::MIN_PACKET_SIZE,
        p4cost_engine::predict::MAX_PACKET_SIZE,
    );
    match u32::try_from(*p.get_ref()) {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(at.err(
            p.span(),
            format!("packet-size {}: give {min}-{max} bytes", p.get_ref()),
        )),
    }
}

/// `dir` joined with `rel`, `.` and `..` taken lexically, so a program
/// is shown as `p4-samples/tofino/x.p4`, not `p4-samples/project/../tofino/x.p4`.
pub(crate) fn join(dir: &Path, rel: &str) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in dir.join(rel).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                if matches!(last, Some(Component::Normal(_))) {
                    out.pop();
                } else if !matches!(last, Some(Component::RootDir | Component::Prefix(_))) {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

fn existing(
    at: &Locator<'_>,
    dir: &Path,
    p: &Spanned<String>,
    what: &str,
) -> Result<PathBuf, ConfigError> {
    let full = join(dir, p.get_ref());
    if full.is_file() {
        Ok(full)
    } else {
        Err(at.err(
            p.span(),
            format!("{what} `{}` is not a file", full.display()),
        ))
    }
}

fn positive(at: &Locator<'_>, v: &Spanned<f64>, what: &str) -> Result<f64, ConfigError> {
    let x = *v.get_ref();
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(at.err(
            v.span(),
            format!("{what} {x}: a budget is a positive number"),
        ))
    }
}

fn positive_int(at: &Locator<'_>, v: &Spanned<i64>, what: &str) -> Result<f64, ConfigError> {
    let x = *v.get_ref();
    if x > 0 {
        Ok(x as f64)
    } else {
        Err(at.err(
            v.span(),
            format!("{what} {x}: a budget is a positive number"),
        ))
    }
}

fn budgets(at: &Locator<'_>, b: RawBudget) -> Result<Vec<Budget>, ConfigError> {
    let mut out = Vec::new();
    if let Some(v) = &b.max_latency {
        out.push(Budget {
            limit: Limit::MaxLatency,
            value: positive(at, v, "max-latency")?,
            origin: at.origin(v.span()),
        });
    }
    for c in &b.class {
        if c.headers.get_ref().is_empty() {
            return Err(at.err(
                c.headers.span(),
                "headers: name the packet's headers in order (`[\"ethernet\", \"ipv4\", \"tcp\"]`)",
            ));
        }
        out.push(Budget {
            limit: Limit::ClassLatency {
                headers: c.headers.get_ref().clone(),
            },
            value: positive(at, &c.max_latency, "max-latency")?,
            origin: at.origin(c.max_latency.span()),
        });
    }
    for (v, limit, what) in [
        (
            &b.ingress_cycles,
            Limit::GressCycles(Gress::Ingress),
            "ingress-cycles",
        ),
        (
            &b.egress_cycles,
            Limit::GressCycles(Gress::Egress),
            "egress-cycles",
        ),
        (&b.table_count, Limit::TableCount, "table-count"),
        (&b.max_stages, Limit::MaxStages, "max-stages"),
    ] {
        if let Some(v) = v {
            out.push(Budget {
                limit,
                value: positive_int(at, v, what)?,
                origin: at.origin(v.span()),
            });
        }
    }
    for (v, limit, what) in [
        (
            &b.max_sram_percent,
            Limit::MaxSramPercent,
            "max-sram-percent",
        ),
        (
            &b.max_tcam_percent,
            Limit::MaxTcamPercent,
            "max-tcam-percent",
        ),
    ] {
        if let Some(v) = v {
            out.push(Budget {
                limit,
                value: positive(at, v, what)?,
                origin: at.origin(v.span()),
            });
        }
    }
    Ok(out)
}

/// A `[[chain]]`: its hops resolved against `programs`, its segments,
/// budget, packets and arrival curve checked.
fn chain(
    at: &Locator<'_>,
    dir: &Path,
    c: RawChain,
    programs: &[ProgramConfig],
) -> Result<Chain, ConfigError> {
    let name = c.name.get_ref().clone();
    let hops = chain_hops(at, dir, &name, c.hops, programs)?;
    let segments = c
        .segments
        .iter()
        .map(|s| segment(at, &name, s, &hops))
        .collect::<Result<Vec<_>, _>>()?;
    let max_latency = c
        .max_latency
        .as_ref()
        .map(|m| positive(at, m, "max-latency").map(|v| (v, at.origin(m.span()))))
        .transpose()?;
    let max_packets = match &c.max_packets {
        Some(m) => usize::try_from(*m.get_ref())
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| at.err(m.span(), "max-packets: give a positive number"))?,
        None => DEFAULT_MAX_CHAIN_PACKETS,
    };
    let arrival = c
        .arrival
        .as_ref()
        .map(|a| {
            p4cost_engine::bound::parse_named(a.get_ref(), "arrival")
                .map_err(|e| at.err(a.span(), e.to_string()))
        })
        .transpose()?;
    Ok(Chain {
        name,
        hops,
        segments,
        max_latency,
        packets: c.packets.into_iter().map(Spanned::into_inner).collect(),
        max_packets,
        arrival,
    })
}

/// Chain `name`'s hops, in order: at least one, each a program or a
/// delay, no two of one name.
fn chain_hops(
    at: &Locator<'_>,
    dir: &Path,
    name: &str,
    raw: Spanned<Vec<RawHop>>,
    programs: &[ProgramConfig],
) -> Result<Vec<Hop>, ConfigError> {
    if raw.get_ref().is_empty() {
        return Err(at.err(raw.span(), format!("chain `{name}` has no hops")));
    }
    let hops_span = raw.span();
    let mut hops: Vec<Hop> = Vec::new();
    for (i, h) in raw.into_inner().into_iter().enumerate() {
        let hop = match (&h.program, &h.delay_ns) {
            (Some(p), None) => program_hop(at, dir, i, &h, p, programs)?,
            (None, Some(d)) => delay_hop(at, i, &h, d)?,
            _ => {
                return Err(at.err(
                    hops_span.clone(),
                    format!(
                    "chain `{name}`, hop {}: give either `program = \"NAME\"` or `delay-ns = NS`",
                    i + 1
                ),
                ))
            }
        };
        if hops.iter().any(|x| x.name == hop.name) {
            return Err(at.err(
                hops_span.clone(),
                format!(
                    "chain `{name}`: two hops named `{}`; name them apart with `name`",
                    hop.name
                ),
            ));
        }
        hops.push(hop);
    }
    Ok(hops)
}

/// Hop `i` (from 0), the `[[program]]` named `p`, with the hop's own
/// model, port and packet size over the program's.
fn program_hop(
    at: &Locator<'_>,
    dir: &Path,
    i: usize,
    h: &RawHop,
    p: &Spanned<String>,
    programs: &[ProgramConfig],
) -> Result<Hop, ConfigError> {
    let Some(pc) = programs.iter().find(|q| &q.name == p.get_ref()) else {
        let names: Vec<&str> = programs.iter().map(|q| q.name.as_str()).collect();
        return Err(at.err(
            p.span(),
            format!(
                "hop {}: no [[program]] named `{}` (programs: {})",
                i + 1,
                p.get_ref(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    };
    let mut s = pc.settings.clone();
    s.target = target(at, dir, &h.model, &h.model_file, &h.port, &h.packet_size)?.over(&s.target);
    Ok(Hop {
        name: h.name.clone().unwrap_or_else(|| pc.name.clone()),
        kind: HopKind::Program(Box::new(pc.options(&s))),
    })
}

/// Hop `i` (from 0), a fixed delay of `d` ns, which takes no model.
fn delay_hop(at: &Locator<'_>, i: usize, h: &RawHop, d: &Spanned<f64>) -> Result<Hop, ConfigError> {
    let x = *d.get_ref();
    if !(x.is_finite() && x >= 0.0) {
        return Err(at.err(d.span(), format!("delay-ns {x}: a delay is 0 or more ns")));
    }
    if h.model.is_some() || h.model_file.is_some() || h.port.is_some() || h.packet_size.is_some() {
        return Err(at.err(
            d.span(),
            "a delay hop takes no model, model-file, port or packet-size",
        ));
    }
    Ok(Hop {
        name: h.name.clone().unwrap_or_else(|| format!("delay {}", i + 1)),
        kind: HopKind::Delay { ns: x },
    })
}

/// A segment of chain `name` between two of its `hops`, in order, with
/// its thresholds (PL at most DL).
fn segment(
    at: &Locator<'_>,
    name: &str,
    s: &RawSegment,
    hops: &[Hop],
) -> Result<Segment, ConfigError> {
    let index = |h: &Spanned<String>| -> Result<usize, ConfigError> {
        hops.iter()
            .position(|x| &x.name == h.get_ref())
            .ok_or_else(|| {
                let names: Vec<&str> = hops.iter().map(|x| x.name.as_str()).collect();
                at.err(
                    h.span(),
                    format!(
                        "chain `{name}` has no hop named `{}` (hops: {})",
                        h.get_ref(),
                        names.join(", ")
                    ),
                )
            })
    };
    let from = index(&s.from)?;
    let to = index(&s.to)?;
    if from > to {
        return Err(at.err(
            s.to.span(),
            format!(
                "segment ends at `{}`, before it starts at `{}`",
                s.to.get_ref(),
                s.from.get_ref()
            ),
        ));
    }
    let drop_ns = positive(at, &s.drop_ns, "drop-ns")?;
    let priority_ns = s
        .priority_ns
        .as_ref()
        .map(|p| positive(at, p, "priority-ns"))
        .transpose()?;
    if let (Some(pl), Some(p)) = (priority_ns, &s.priority_ns) {
        if pl > drop_ns {
            return Err(at.err(
                p.span(),
                format!(
                    "priority-ns {pl} is above drop-ns {drop_ns}: the priority threshold PL must be at most the drop threshold DL"
                ),
            ));
        }
    }
    Ok(Segment {
        name: s
            .name
            .clone()
            .unwrap_or_else(|| format!("{}..{}", s.from.get_ref(), s.to.get_ref())),
        from,
        to,
        priority_ns,
        drop_ns,
        origin: at.origin(s.drop_ns.span()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_takes_dots_lexically() {
        assert_eq!(
            join(Path::new("p4-samples/project"), "../tofino/x.p4"),
            PathBuf::from("p4-samples/tofino/x.p4")
        );
        assert_eq!(join(Path::new(""), "../x.p4"), PathBuf::from("../x.p4"));
        assert_eq!(join(Path::new("/"), "../x.p4"), PathBuf::from("/x.p4"));
        assert_eq!(join(Path::new("a"), "./b/../c"), PathBuf::from("a/c"));
    }

    #[test]
    fn a_program_budget_replaces_the_default_of_its_kind_only() {
        let dir = std::env::temp_dir().join(format!("p4cost-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("a.p4"), "").expect("file");
        let text = "[defaults.budget]\nmax-latency = 300\ntable-count = 4\n\
                    [[program]]\npath = \"a.p4\"\n[program.budget]\nmax-latency = 250\n";
        let c = resolve(text, "p4cost.toml", &dir).expect("config");
        let b = &c.programs[0].budgets;
        assert_eq!(b.len(), 2);
        assert!(b
            .iter()
            .any(|x| x.limit == Limit::MaxLatency && x.value == 250.0));
        assert!(b
            .iter()
            .any(|x| x.limit == Limit::TableCount && x.value == 4.0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The resource budgets: stages a whole number, percentages any
    /// positive number; zero is refused at its line.
    #[test]
    fn resource_budgets_are_read_and_checked() {
        let dir = std::env::temp_dir().join(format!("p4cost-config-res-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("a.p4"), "").expect("file");
        let text = "[[program]]\npath = \"a.p4\"\n[program.budget]\nmax-stages = 10\n\
                    max-sram-percent = 40.5\nmax-tcam-percent = 20\n";
        let c = resolve(text, "p4cost.toml", &dir).expect("config");
        let b = &c.programs[0].budgets;
        let has = |l: Limit, v: f64| b.iter().any(|x| x.limit == l && x.value == v);
        assert!(has(Limit::MaxStages, 10.0), "{b:?}");
        assert!(has(Limit::MaxSramPercent, 40.5), "{b:?}");
        assert!(has(Limit::MaxTcamPercent, 20.0), "{b:?}");
        let bad = "[[program]]\npath = \"a.p4\"\n[program.budget]\nmax-sram-percent = 0\n";
        let e = resolve(bad, "p4cost.toml", &dir).expect_err("zero is refused");
        assert!(e.to_string().contains("max-sram-percent 0"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
