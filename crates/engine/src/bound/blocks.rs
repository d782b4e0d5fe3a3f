//! A device's building blocks laid on a program: each table's match group
//! and its dearest action's groups, what they add to T, and the classes
//! priced by them (the listed ones from `predict`'s listing, the worst by
//! the class analysis over every class).

use p4cost_analysis::{join_egress, packet_classes, path_graph, ClassBudget, PathOptions};
use p4cost_ir::{ControlId, Program};
use p4cost_model::nc::{ActionGroup, Device, Level, LevelBlocks, RateLatency};

use super::{table_ids, total_text, BlockOut, Curve, Pipeline};
use crate::error::Error;
use crate::options::PredictOptions;
use crate::report::{Report, WarningOut};

/// Each table's blocks and the latency they add, by table id.
#[derive(Debug, Clone)]
pub struct TableBlocks {
    /// Per table: its blocks (`None` for tables that are no block: a
    /// compiler's action-call or internal table).
    pub blocks: Vec<Option<BlockOut>>,
    /// Per table: what it adds to T, ns.
    pub weights: Vec<f64>,
    /// Headers no block rule sorts (priced as L3-L4 rewrites).
    pub warnings: Vec<WarningOut>,
}

impl TableBlocks {
    /// The blocks of every table of `program` at `level`.
    pub fn of(program: &Program, device: &Device, level: &LevelBlocks) -> TableBlocks {
        let mut unsorted = Unsorted::new();
        let mut out = TableBlocks {
            blocks: Vec::with_capacity(program.tables.len()),
            weights: Vec::with_capacity(program.tables.len()),
            warnings: Vec::new(),
        };
        for t in &program.tables {
            if t.is_action_call() || t.is_compiler_internal() {
                out.blocks.push(None);
                out.weights.push(0.0);
                continue;
            }
            let fields: Vec<&str> = t.keys.iter().map(|k| k.field.as_str()).collect();
            let mg = device.match_group(&fields);
            let mut dearest: (f64, Vec<ActionGroup>) = (0.0, Vec::new());
            for a in &t.actions {
                let groups = action_groups(program, device, *a, &mut unsorted);
                let ns: f64 = groups.iter().map(|g| level.action_delta(*g)).sum();
                if ns > dearest.0 || dearest.1.is_empty() && !groups.is_empty() && ns >= dearest.0 {
                    dearest = (ns, groups);
                }
            }
            let ns = level.match_delta(mg) + dearest.0;
            out.weights.push(ns);
            out.blocks.push(Some(BlockOut {
                table: t.name.clone(),
                match_group: mg,
                action_groups: dearest.1,
                latency_ns: ns,
            }));
        }
        out.warnings = unsorted_warnings(unsorted, &device.name);
        out
    }
}

/// The groups of the packet headers action `a` writes (a field, or a
/// header's validity), each once, in block order.
fn action_groups(
    program: &Program,
    device: &Device,
    a: p4cost_ir::ActionId,
    unsorted: &mut Unsorted,
) -> Vec<ActionGroup> {
    let action = program.action(a);
    let mut groups = Vec::new();
    for w in &action.writes {
        let Some(h) = program
            .headers
            .iter()
            .filter(|h| !h.metadata)
            .find(|h| w.starts_with(&format!("{}.", h.name)))
        else {
            continue;
        };
        let ty = program.header_type(h.ty).name.as_str();
        let g = device.header_group(&h.name, ty).unwrap_or_else(|| {
            let e = unsorted
                .entry(h.name.clone())
                .or_insert_with(|| (ty.to_string(), Vec::new()));
            if !e.1.contains(&action.name) {
                e.1.push(action.name.clone());
            }
            ActionGroup::L3L4Rewrite
        });
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    groups.sort_by_key(|g| *g as u8);
    groups
}

/// Headers no block rule sorts: header -> (its type, the actions
/// writing it).
type Unsorted = std::collections::BTreeMap<String, (String, Vec<String>)>;

/// One `nc_header_unsorted` warning per header of `u`.
fn unsorted_warnings(u: Unsorted, device: &str) -> Vec<WarningOut> {
    u.into_iter()
        .map(|(h, (ty, actions))| {
            let more = match actions.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            WarningOut::new(
                "nc_header_unsorted",
                format!(
                    "`{h}` ({ty}) is no header a block of {device} covers (written by `{}`{more}): priced as an L3-L4 rewrite, the dearest",
                    actions[0]
                ),
            )
        })
        .collect()
}

/// The reports' classes priced by `device`'s blocks at `level`, and the
/// warnings of the calibration context.
pub(crate) fn by_device(
    o: &PredictOptions,
    program: &Program,
    reports: &[Report],
    device: &Device,
    level: Level,
) -> Result<(Vec<Pipeline>, Vec<WarningOut>), Error> {
    let lb = device.level(level);
    let tb = TableBlocks::of(program, device, lb);
    let ids = table_ids(program);
    let groups = crate::predict::selected_groups(o, program)?;
    let mut out = Vec::new();
    let mut warnings = tb.warnings.clone();
    for (r, group) in reports.iter().zip(&groups) {
        let curve_of = |class: Option<String>, headers: Vec<String>, names: &[String]| {
            let blocks: Vec<BlockOut> = names
                .iter()
                .filter_map(|n| ids.get(n.as_str()))
                .filter_map(|&i| tb.blocks[i].clone())
                .collect();
            let t = lb.baseline_ns + blocks.iter().map(|b| b.latency_ns).sum::<f64>();
            Curve {
                class,
                headers,
                tables: blocks.iter().map(|b| b.table.clone()).collect(),
                blocks,
                service: RateLatency {
                    rate_bps: device.rate_bps,
                    latency_ns: t,
                },
            }
        };
        let mut classes = Vec::new();
        for p in &r.paths {
            for c in p.classes.iter().flat_map(|cs| &cs.classes) {
                let names: Vec<String> = c
                    .tables
                    .iter()
                    .filter_map(|&i| r.tables.get(i as usize).map(|t| t.name.clone()))
                    .collect();
                classes.push(curve_of(Some(c.id.clone()), p.headers.clone(), &names));
            }
        }
        let (headers, names) = worst_class(o, program, group, &tb.weights)?;
        let worst = curve_of(None, headers, &names);
        if worst.blocks.len() > 1 {
            warnings.push(WarningOut::new(
                "nc_outside_calibration",
                format!(
                    "the worst class applies {} tables; {} was calibrated with one match and one action per packet (composing more blocks is the paper's rule, not its measurement)",
                    worst.blocks.len(),
                    device.name
                ),
            ));
        }
        out.push(Pipeline {
            name: r.pipeline.as_ref().map(|p| p.name.clone()),
            total: total_text(r),
            worst,
            classes,
        });
    }
    Ok((out, warnings))
}

/// The headers and tables of the class of `group` with the largest summed
/// table weight, over every class (the class analysis, no listing).
fn worst_class(
    o: &PredictOptions,
    program: &Program,
    group: &[p4cost_ir::Pipeline],
    weights: &[f64],
) -> Result<(Vec<String>, Vec<String>), Error> {
    let Some(pipeline) = group.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let Some(parser) = pipeline.ingress_parser else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut joined = program.clone();
    let control = match join_egress(program, pipeline) {
        Some((c, _)) => {
            joined.controls.push(c);
            ControlId((joined.controls.len() - 1) as u32)
        }
        None => match pipeline.ingress {
            Some(c) => c,
            None => return Ok((Vec::new(), Vec::new())),
        },
    };
    let opts = PathOptions {
        max_analysis_states: o.max_analysis_states,
        ..PathOptions::default()
    };
    let mut graph_warnings = Vec::new();
    let pg = path_graph(&joined, joined.parser(parser), &opts, &mut graph_warnings)
        .map_err(|e| Error::input(format!("{}: {e}", crate::read::shown(&o.file))))?;
    let zeros = vec![0.0; pg.len()];
    let sum = packet_classes(
        &joined,
        control,
        &pg,
        &zeros,
        weights,
        &ClassBudget::default(),
    )
    .map_err(|e| Error::input(format!("{}: {e}", crate::read::shown(&o.file))))?;
    let Some(max) = sum.max else {
        return Ok((Vec::new(), Vec::new()));
    };
    let headers = pg.path(&max.parse_path).header_names();
    let names = max
        .control_path
        .tables
        .iter()
        .map(|t| joined.table(*t).name.clone())
        .collect();
    Ok((headers, names))
}
