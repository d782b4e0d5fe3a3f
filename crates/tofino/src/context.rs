//! Reading a context.json document into plain records (`ContextData`),
//! before they are lowered to the IR.
//!
//! Format facts (bf-p4c's context schema 1.8 to 1.12): the top level has
//! `program_name`, `schema_version`, `compiler_version`, `target` and
//! `tables[]`. Every table has `name`, `table_type` (`match`, `action`,
//! `selection`, `stateful`, `statistics`, `meter`, `condition`) and
//! `direction`. Placement is in `stage_tables[]` records carrying
//! `stage_number` and `stage_table_type`; match tables keep them under
//! `match_attributes` (algorithmic LPM/TCAM tables nest further ones under
//! `pre_classifier`, `atcam_table` and `units[]`). Schema 1.11+ has
//! `mau_stage_characteristics[]`; 1.8 has only `stage_dependency[]` with
//! `match_dependent` booleans.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use p4cost_ir::{ExternKind, Gress, MauStage};
use serde_json::{Map, Value};

use crate::error::Fault;
use crate::json::{self, Loc};

/// Hardware features a stage group uses that lengthen a stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StageUse {
    /// A ternary match (TCAM) table.
    pub tcam: bool,
    /// An action selector.
    pub selector: bool,
    /// A selector wider than one RAM word (more than 120 members).
    pub wide_selector: bool,
    /// A stateful ALU (register action).
    pub stateful: bool,
    /// An LPF or RED meter.
    pub meter_lpf_red: bool,
    /// Fields written by actions of match tables in this stage.
    pub action_set: BTreeSet<String>,
    /// Fields read or written by actions of match tables in this stage.
    pub action_use: BTreeSet<String>,
}

/// One key field of a match table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyField {
    pub field: String,
    pub width: Option<u32>,
    pub match_type: String,
}

/// One action of a match table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CtxAction {
    pub name: String,
    pub handle: Option<u64>,
    pub params: Vec<(String, Option<u32>)>,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub ops: Vec<String>,
}

/// A match table of the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MatchTable {
    pub name: String,
    pub gress: Gress,
    pub keys: Vec<KeyField>,
    pub size: Option<u64>,
    pub actions: Vec<CtxAction>,
    pub default_handle: Option<u64>,
    pub static_entries: u64,
    pub implementation: Option<String>,
    pub stages: Vec<i32>,
    pub hidden: bool,
    /// An algorithmic LPM table (`match_attributes.match_type`
    /// `algorithmic_lpm`): its parameters under the `Alpm` extern's
    /// constructor names (see [`read_alpm`]).
    pub alpm: Option<Vec<(String, u64)>>,
}

/// A stateful or indirect object of the context: a register, counter,
/// meter, selector or action profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CtxExtern {
    pub name: String,
    pub kind: ExternKind,
    pub size: Option<u64>,
    pub width_bits: Option<u32>,
    pub direct: bool,
}

/// Where the stage cycles come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StageSource {
    /// `mau_stage_characteristics` with every figure written by the
    /// compiler.
    Compiler(Vec<MauStage>),
    /// Only `(gress, stage, match_dependent)` is known (schema 1.8's
    /// `stage_dependency`, or records lacking cycle figures).
    Dependency(Vec<(Gress, i32, bool)>),
    /// Neither.
    Absent,
}

/// Everything the reader takes from a context.json.
#[derive(Debug, Clone)]
pub(crate) struct ContextData {
    pub program_name: Option<String>,
    pub schema_version: Option<String>,
    pub compiler_version: Option<String>,
    pub target: String,
    pub match_tables: Vec<MatchTable>,
    /// Count of non-match tables by `table_type`.
    pub other_tables: BTreeMap<String, usize>,
    /// Registers, counters, meters, selectors and action profiles.
    pub externs: Vec<CtxExtern>,
    pub stage_use: HashMap<(Gress, i32), StageUse>,
    pub stages: StageSource,
}

/// The gress named by a context string.
pub(crate) fn gress_of(s: &str, loc: &Loc) -> Result<Gress, Fault> {
    match s {
        "ingress" => Ok(Gress::Ingress),
        "egress" => Ok(Gress::Egress),
        "ghost" => Ok(Gress::Ghost),
        other => Err(Fault::Invalid {
            path: loc.render(),
            message: format!("expected \"ingress\", \"egress\" or \"ghost\", found \"{other}\""),
        }),
    }
}

/// Subtrees that hold no placement records and can be large.
const SKIP_KEYS: &[&str] = &[
    "pack_format",
    "memory_resource_allocation",
    "hash_functions",
    "action_format",
    "static_entries",
    "actions",
    "match_key_fields",
];

/// Collects `(stage_number, stage_table_type)` of every placement record
/// below `v`.
fn collect_stage_records(v: &Value, loc: &Loc, out: &mut Vec<(i32, String)>) -> Result<(), Fault> {
    match v {
        Value::Object(m) => {
            if let Some(sn) = m.get("stage_number") {
                let sn_loc = loc.key("stage_number");
                let stage = stage_number(sn, &sn_loc)?;
                let kind = match json::opt(m, "stage_table_type") {
                    Some(t) => json::string(t, &loc.key("stage_table_type"))?.to_string(),
                    None => String::new(),
                };
                out.push((stage, kind));
            }
            for (k, child) in m {
                if SKIP_KEYS.contains(&k.as_str()) {
                    continue;
                }
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    collect_stage_records(child, &loc.key(k), out)?;
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    collect_stage_records(child, &loc.index(i), out)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A field name from a primitive operand when it names a PHV field or a
/// header.
fn operand_field(v: Option<&Value>, loc: &Loc) -> Result<Option<String>, Fault> {
    let Some(v) = v else { return Ok(None) };
    let m = json::object(v, loc)?;
    let kind = match json::opt(m, "type") {
        Some(t) => json::string(t, &loc.key("type"))?,
        None => return Ok(None),
    };
    if kind != "phv" && kind != "header" {
        return Ok(None);
    }
    let name = json::string(json::field(m, "name", loc)?, &loc.key("name"))?;
    Ok(Some(name.to_string()))
}

/// A short operation name for a primitive.
fn op_name(prim: &str, operation: Option<&str>) -> String {
    match prim {
        "ModifyFieldPrimitive" => operation.unwrap_or("set").to_string(),
        "ModifyFieldConditionallyPrimitive" => "set_conditionally".into(),
        "DropPrimitive" => "drop".into(),
        "CountPrimitive" => "count".into(),
        "AddHeaderPrimitive" => "add_header".into(),
        "RemoveHeaderPrimitive" => "remove_header".into(),
        "DirectAluPrimitive" => "direct_alu".into(),
        "SetFieldToHashIndexPrimitive" => "hash".into(),
        "ExecuteStatefulAluPrimitive" | "ExecuteStatefulAluFromHashPrimitive" => {
            "stateful_alu".into()
        }
        "ExecuteMeterPrimitive" => "meter".into(),
        other => other.to_string(),
    }
}

/// An ordered list of distinct names, with a set beside it so that adding
/// stays constant-time on actions with thousands of primitives.
#[derive(Default)]
struct UniqueNames {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl UniqueNames {
    fn push(&mut self, s: String) {
        if self.seen.insert(s.clone()) {
            self.list.push(s);
        }
    }
}

/// The highest MAU stage number accepted in a placement record. Tofino 1
/// has 12 stages and Tofino 2 20; the bound keeps a hostile file from
/// making per-stage records (one per distinct stage number of a table,
/// each holding the table's action fields) grow with its square.
pub(crate) const MAX_STAGE: i32 = 63;

/// A stage number, refused when above [`MAX_STAGE`] (negative numbers
/// mean "not placed" and are kept).
fn stage_number(v: &Value, loc: &Loc) -> Result<i32, Fault> {
    let stage = json::int32(v, loc)?;
    if stage > MAX_STAGE {
        return Err(Fault::Invalid {
            path: loc.render(),
            message: format!(
                "stage {stage} is beyond the last MAU stage p4cost accepts ({MAX_STAGE})"
            ),
        });
    }
    Ok(stage)
}

fn read_action(v: &Value, loc: &Loc) -> Result<CtxAction, Fault> {
    let m = json::object(v, loc)?;
    let name = json::string(json::field(m, "name", loc)?, &loc.key("name"))?.to_string();
    let handle = match json::opt(m, "handle") {
        Some(h) => Some(json::uint64(h, &loc.key("handle"))?),
        None => None,
    };
    let mut params = Vec::new();
    if let Some(ps) = json::opt(m, "p4_parameters") {
        let ps_loc = loc.key("p4_parameters");
        for (i, p) in json::array(ps, &ps_loc)?.iter().enumerate() {
            let p_loc = ps_loc.index(i);
            let pm = json::object(p, &p_loc)?;
            let pname = json::string(json::field(pm, "name", &p_loc)?, &p_loc.key("name"))?;
            let width = match json::opt(pm, "bit_width") {
                Some(w) => Some(json::uint32(w, &p_loc.key("bit_width"))?),
                None => None,
            };
            params.push((pname.to_string(), width));
        }
    }
    let mut reads = UniqueNames::default();
    let mut writes = UniqueNames::default();
    let mut ops = Vec::new();
    if let Some(prims) = json::opt(m, "primitives") {
        let pr_loc = loc.key("primitives");
        for (i, p) in json::array(prims, &pr_loc)?.iter().enumerate() {
            let p_loc = pr_loc.index(i);
            let pm = json::object(p, &p_loc)?;
            let pname = json::string(json::field(pm, "name", &p_loc)?, &p_loc.key("name"))?;
            let operation = match json::opt(pm, "operation") {
                Some(o) => Some(json::string(o, &p_loc.key("operation"))?),
                None => None,
            };
            ops.push(op_name(pname, operation));
            if let Some(f) = operand_field(json::opt(pm, "dst"), &p_loc.key("dst"))? {
                writes.push(f);
            }
            for src in ["src1", "src2", "src3", "cond", "idx"] {
                if let Some(f) = operand_field(json::opt(pm, src), &p_loc.key(src))? {
                    reads.push(f);
                }
            }
            if let Some(hi) = json::opt(pm, "hash_inputs") {
                let hi_loc = p_loc.key("hash_inputs");
                for (j, f) in json::array(hi, &hi_loc)?.iter().enumerate() {
                    reads.push(json::string(f, &hi_loc.index(j))?.to_string());
                }
            }
            if let Some(details) = json::opt(pm, "stateful_alu_details") {
                let d_loc = p_loc.key("stateful_alu_details");
                let dm = json::object(details, &d_loc)?;
                if let Some(out) = json::opt(dm, "output_dst") {
                    writes.push(json::string(out, &d_loc.key("output_dst"))?.to_string());
                }
            }
        }
    }
    Ok(CtxAction {
        name,
        handle,
        params,
        reads: reads.list,
        writes: writes.list,
        ops,
    })
}

fn read_keys(m: &Map<String, Value>, loc: &Loc) -> Result<Vec<KeyField>, Fault> {
    let mut keys = Vec::new();
    let Some(fields) = json::opt(m, "match_key_fields") else {
        return Ok(keys);
    };
    let f_loc = loc.key("match_key_fields");
    for (i, f) in json::array(fields, &f_loc)?.iter().enumerate() {
        let k_loc = f_loc.index(i);
        let km = json::object(f, &k_loc)?;
        let mut field = None;
        for key in ["global_name", "name"] {
            if let Some(v) = json::opt(km, key) {
                let s = json::string(v, &k_loc.key(key))?;
                if !s.is_empty() && field.is_none() {
                    field = Some(s.to_string());
                }
            }
        }
        if field.is_none() {
            let inst = match json::opt(km, "instance_name") {
                Some(v) => json::string(v, &k_loc.key("instance_name"))?,
                None => "",
            };
            let fname = match json::opt(km, "field_name") {
                Some(v) => json::string(v, &k_loc.key("field_name"))?,
                None => "",
            };
            field = Some(match (inst.is_empty(), fname.is_empty()) {
                (false, false) => format!("{inst}.{fname}"),
                (false, true) => inst.to_string(),
                _ => fname.to_string(),
            });
        }
        let width = match (json::opt(km, "bit_width"), json::opt(km, "bit_width_full")) {
            (Some(w), _) => Some(json::uint32(w, &k_loc.key("bit_width"))?),
            (None, Some(w)) => Some(json::uint32(w, &k_loc.key("bit_width_full"))?),
            (None, None) => None,
        };
        let match_type = json::string(
            json::field(km, "match_type", &k_loc)?,
            &k_loc.key("match_type"),
        )?
        .to_string();
        keys.push(KeyField {
            field: field.unwrap_or_default(),
            width,
            match_type,
        });
    }
    Ok(keys)
}

/// The extern instance a non-match table stands for, if any.
///
/// - `stateful`: a register; the cell is `alu_width` bits, twice that in
///   `dual_width_mode` (the compiler halves the cell width for a pair).
///   Stateful tables the compiler made itself (`p4_hidden`, or bound to a
///   selector by `bound_to_selection_table_handle`: the selector's member
///   state) are skipped.
/// - `statistics`, `meter`: a counter or meter, direct when
///   `how_referenced` is `direct`.
/// - `selection`: an action selector.
/// - `action`: an action profile when `how_referenced` is `indirect`; a
///   direct one is the compiler's action data of a single match table.
/// - anything else (`condition`, ...): none.
fn read_extern(
    m: &Map<String, Value>,
    loc: &Loc,
    name: &str,
    table_type: &str,
) -> Result<Option<CtxExtern>, Fault> {
    let how = match json::opt(m, "how_referenced") {
        Some(h) => Some(json::string(h, &loc.key("how_referenced"))?),
        None => None,
    };
    let kind = match table_type {
        "stateful" => {
            let hidden = match json::opt(m, "p4_hidden") {
                Some(h) => json::boolean(h, &loc.key("p4_hidden"))?,
                None => false,
            };
            if hidden || json::opt(m, "bound_to_selection_table_handle").is_some() {
                return Ok(None);
            }
            ExternKind::Register
        }
        "statistics" => ExternKind::Counter,
        "meter" => ExternKind::Meter,
        "selection" => ExternKind::ActionSelector,
        "action" if how == Some("indirect") => ExternKind::ActionProfile,
        _ => return Ok(None),
    };
    let size = match json::opt(m, "size") {
        Some(s) => Some(json::uint64(s, &loc.key("size"))?),
        None => None,
    };
    let width_bits = if kind == ExternKind::Register {
        let dual = match json::opt(m, "dual_width_mode") {
            Some(d) => json::boolean(d, &loc.key("dual_width_mode"))?,
            None => false,
        };
        match json::opt(m, "alu_width") {
            Some(w) => {
                let w = json::uint32(w, &loc.key("alu_width"))?;
                Some(if dual { w.saturating_mul(2) } else { w })
            }
            None => None,
        }
    } else {
        None
    };
    let direct = matches!(
        kind,
        ExternKind::Register | ExternKind::Counter | ExternKind::Meter
    ) && how == Some("direct");
    Ok(Some(CtxExtern {
        name: name.to_string(),
        kind,
        size,
        width_bits,
        direct,
    }))
}

/// Reads one `tables[]` entry; returns the match table if it is one.
fn read_table(v: &Value, loc: &Loc, data: &mut ContextData) -> Result<Option<MatchTable>, Fault> {
    let m = json::object(v, loc)?;
    let name = json::string(json::field(m, "name", loc)?, &loc.key("name"))?.to_string();
    let table_type =
        json::string(json::field(m, "table_type", loc)?, &loc.key("table_type"))?.to_string();
    let gress = match json::opt(m, "direction") {
        Some(d) => {
            let d_loc = loc.key("direction");
            gress_of(json::string(d, &d_loc)?, &d_loc)?
        }
        None => Gress::Unknown,
    };
    let mut records = Vec::new();
    collect_stage_records(v, loc, &mut records)?;

    mark_stage_features(m, loc, gress, &records, data)?;

    if table_type != "match" {
        if let Some(e) = read_extern(m, loc, &name, &table_type)? {
            data.externs.push(e);
        }
        *data.other_tables.entry(table_type).or_insert(0) += 1;
        return Ok(None);
    }

    let keys = read_keys(m, loc)?;
    let size = match json::opt(m, "size") {
        Some(s) => Some(json::uint64(s, &loc.key("size"))?),
        None => None,
    };
    let mut actions = Vec::new();
    if let Some(acts) = json::opt(m, "actions") {
        let a_loc = loc.key("actions");
        for (i, a) in json::array(acts, &a_loc)?.iter().enumerate() {
            actions.push(read_action(a, &a_loc.index(i))?);
        }
    }
    let default_handle = match json::opt(m, "default_action_handle") {
        Some(h) => Some(json::uint64(h, &loc.key("default_action_handle"))?),
        None => None,
    };
    let static_entries = match json::opt(m, "static_entries") {
        Some(s) => json::array(s, &loc.key("static_entries"))?.len() as u64,
        None => 0,
    };
    let implementation = read_implementation(m, loc)?;
    let hidden = match json::opt(m, "p4_hidden") {
        Some(h) => json::boolean(h, &loc.key("p4_hidden"))?,
        None => false,
    };
    let mut stages: Vec<i32> = records.iter().map(|(s, _)| *s).collect();
    stages.sort_unstable();
    stages.dedup();

    record_action_sets(&actions, &stages, gress, data);

    Ok(Some(MatchTable {
        name,
        gress,
        keys,
        size,
        actions,
        default_handle,
        static_entries,
        implementation,
        stages,
        hidden,
        alpm: read_alpm(m, loc)?,
    }))
}

/// Marks the hardware features of a table's stage records that lengthen
/// the stages it sits in (TCAM, selectors, wide selectors, stateful
/// ALUs, LPF/RED meters).
fn mark_stage_features(
    m: &Map<String, Value>,
    loc: &Loc,
    gress: Gress,
    records: &[(i32, String)],
    data: &mut ContextData,
) -> Result<(), Fault> {
    let wide = match json::opt(m, "max_port_pool_size") {
        Some(n) => json::uint64(n, &loc.key("max_port_pool_size"))? > 120,
        None => false,
    };
    let lpf_red = match json::opt(m, "meter_type") {
        Some(t) => matches!(json::string(t, &loc.key("meter_type"))?, "red" | "lpf"),
        None => false,
    };
    for (stage, kind) in records {
        if *stage < 0 {
            continue;
        }
        let u = data.stage_use.entry((gress, *stage)).or_default();
        match kind.as_str() {
            "ternary_match" => u.tcam = true,
            "selection" => {
                u.selector = true;
                u.wide_selector |= wide;
            }
            "stateful" => u.stateful = true,
            "meter" => u.meter_lpf_red |= lpf_red,
            _ => {}
        }
    }
    Ok(())
}

/// The action profile or selector a match table's actions come from:
/// the first selection table when there is one, else its action profile.
fn read_implementation(m: &Map<String, Value>, loc: &Loc) -> Result<Option<String>, Fault> {
    let mut implementation = match json::opt(m, "action_profile") {
        Some(p) => {
            let s = json::string(p, &loc.key("action_profile"))?;
            (!s.is_empty()).then(|| s.to_string())
        }
        None => None,
    };
    if let Some(sel) = json::opt(m, "selection_table_refs") {
        let s_loc = loc.key("selection_table_refs");
        if let Some(first) = json::array(sel, &s_loc)?.first() {
            let f_loc = s_loc.index(0);
            let fm = json::object(first, &f_loc)?;
            let sname = json::string(json::field(fm, "name", &f_loc)?, &f_loc.key("name"))?;
            implementation = Some(sname.to_string());
        }
    }
    Ok(implementation)
}

/// Adds a table's action read/write sets to each stage it sits in, for
/// the dependency estimate.
fn record_action_sets(actions: &[CtxAction], stages: &[i32], gress: Gress, data: &mut ContextData) {
    let mut set = BTreeSet::new();
    let mut used = BTreeSet::new();
    for a in actions {
        set.extend(a.writes.iter().cloned());
        used.extend(a.writes.iter().cloned());
        used.extend(a.reads.iter().cloned());
    }
    for stage in stages.iter().filter(|s| **s >= 0) {
        let u = data.stage_use.entry((gress, *stage)).or_default();
        u.action_set.extend(set.iter().cloned());
        u.action_use.extend(used.iter().cloned());
    }
}

/// The parameters of an algorithmic LPM table, `None` for any other: the
/// ALPM record carries `max_subtrees_per_partition`, `atcam_subset_width`
/// and `shift_granularity`, its `atcam_table` the `number_partitions`
/// (`bf-asm/atcam_match.cpp`); returned as the `Alpm` constructor's
/// parameter names, each one present in the file.
fn read_alpm(m: &Map<String, Value>, loc: &Loc) -> Result<Option<Vec<(String, u64)>>, Fault> {
    let Some(ma) = json::opt(m, "match_attributes") else {
        return Ok(None);
    };
    let ma_loc = loc.key("match_attributes");
    let ma = json::object(ma, &ma_loc)?;
    let is_alpm = match json::opt(ma, "match_type") {
        Some(t) => json::string(t, &ma_loc.key("match_type"))? == "algorithmic_lpm",
        None => false,
    };
    if !is_alpm {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut take =
        |obj: &Map<String, Value>, at: &Loc, key: &str, name: &str| match json::opt(obj, key) {
            Some(v) => json::uint64(v, &at.key(key)).map(|n| out.push((name.to_string(), n))),
            None => Ok(()),
        };
    take(
        ma,
        &ma_loc,
        "max_subtrees_per_partition",
        "subtrees_per_partition",
    )?;
    take(ma, &ma_loc, "atcam_subset_width", "atcam_subset_width")?;
    take(ma, &ma_loc, "shift_granularity", "shift_granularity")?;
    if let Some(atcam) = json::opt(ma, "atcam_table") {
        let a_loc = ma_loc.key("atcam_table");
        let am = json::object(atcam, &a_loc)?;
        if let Some(aa) = json::opt(am, "match_attributes") {
            let aa_loc = a_loc.key("match_attributes");
            let aa = json::object(aa, &aa_loc)?;
            take(aa, &aa_loc, "number_partitions", "number_partitions")?;
        }
    }
    out.sort();
    Ok(Some(out))
}

fn read_stage_characteristics(v: &Value, loc: &Loc) -> Result<StageSource, Fault> {
    let mut full = Vec::new();
    let mut deps = Vec::new();
    let mut complete = true;
    for (i, r) in json::array(v, loc)?.iter().enumerate() {
        let r_loc = loc.index(i);
        let m = json::object(r, &r_loc)?;
        let stage = stage_number(json::field(m, "stage", &r_loc)?, &r_loc.key("stage"))?;
        let g_loc = r_loc.key("gress");
        let gress = gress_of(
            json::string(json::field(m, "gress", &r_loc)?, &g_loc)?,
            &g_loc,
        )?;
        let md = json::boolean(
            json::field(m, "match_dependent", &r_loc)?,
            &r_loc.key("match_dependent"),
        )?;
        deps.push((gress, stage, md));
        let clock = json::opt(m, "clock_cycles");
        let contrib = json::opt(m, "cycles_contribute_to_latency");
        match (clock, contrib) {
            (Some(c), Some(l)) => {
                let predication_cycle = match json::opt(m, "predication_cycle") {
                    Some(p) => Some(json::uint32(p, &r_loc.key("predication_cycle"))?),
                    None => None,
                };
                full.push(MauStage {
                    gress,
                    stage,
                    clock_cycles: json::uint32(c, &r_loc.key("clock_cycles"))?,
                    predication_cycle,
                    match_dependent: md,
                    cycles_contribute_to_latency: json::uint32(
                        l,
                        &r_loc.key("cycles_contribute_to_latency"),
                    )?,
                });
            }
            _ => complete = false,
        }
    }
    Ok(if complete {
        StageSource::Compiler(full)
    } else {
        StageSource::Dependency(deps)
    })
}

fn opt_string(m: &Map<String, Value>, key: &str, loc: &Loc) -> Result<Option<String>, Fault> {
    match json::opt(m, key) {
        Some(v) => Ok(Some(json::string(v, &loc.key(key))?.to_string())),
        None => Ok(None),
    }
}

/// Reads a parsed context.json document.
pub(crate) fn read(doc: &Value) -> Result<ContextData, Fault> {
    let root = Loc::ROOT;
    let m = json::object(doc, &root)?;
    let mut data = ContextData {
        program_name: opt_string(m, "program_name", &root)?,
        schema_version: opt_string(m, "schema_version", &root)?,
        compiler_version: opt_string(m, "compiler_version", &root)?,
        target: opt_string(m, "target", &root)?.unwrap_or_else(|| "tofino".into()),
        match_tables: Vec::new(),
        other_tables: BTreeMap::new(),
        externs: Vec::new(),
        stage_use: HashMap::new(),
        stages: StageSource::Absent,
    };
    let t_loc = root.key("tables");
    let tables = json::array(json::field(m, "tables", &root)?, &t_loc)?;
    for (i, t) in tables.iter().enumerate() {
        if let Some(mt) = read_table(t, &t_loc.index(i), &mut data)? {
            data.match_tables.push(mt);
        }
    }
    if let Some(msc) = json::opt(m, "mau_stage_characteristics") {
        data.stages = read_stage_characteristics(msc, &root.key("mau_stage_characteristics"))?;
    } else if let Some(sd) = json::opt(m, "stage_dependency") {
        // Schema 1.8: the same records without the cycle figures.
        data.stages = read_stage_characteristics(sd, &root.key("stage_dependency"))?;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(tables: Value) -> Value {
        json!({"program_name": "p", "schema_version": "1.12.0", "target": "tofino",
               "tables": tables})
    }

    #[test]
    fn collects_nested_stages_and_keys() {
        let d = doc(json!([{
            "name": "c.t", "table_type": "match", "direction": "egress", "size": 1024,
            "match_key_fields": [
                {"name": "hdr.a", "bit_width": 32, "bit_width_full": 48, "match_type": "ternary"}
            ],
            "match_attributes": {"match_type": "algorithmic_lpm",
                "pre_classifier": {"match_attributes": {"stage_tables": [
                    {"stage_number": 6, "stage_table_type": "ternary_match"}]}},
                "atcam_table": {"match_attributes": {"units": [
                    {"match_attributes": {"stage_tables": [
                        {"stage_number": 7, "stage_table_type": "algorithmic_tcam_match"}]}},
                    {"match_attributes": {"stage_tables": [
                        {"stage_number": 7, "stage_table_type": "algorithmic_tcam_match"}]}}]}}},
            "actions": []
        }]));
        let data = read(&d).unwrap();
        let t = &data.match_tables[0];
        assert_eq!(t.stages, vec![6, 7]);
        assert_eq!(t.gress, Gress::Egress);
        assert_eq!(t.keys[0].width, Some(32));
        assert_eq!(t.keys[0].match_type, "ternary");
        assert!(data.stage_use[&(Gress::Egress, 6)].tcam);
        assert!(!data.stage_use[&(Gress::Egress, 7)].tcam);
        assert_eq!(data.stages, StageSource::Absent);
    }

    #[test]
    fn algorithmic_lpm_tables_carry_their_parameters() {
        // As bf-asm writes them (atcam_match.cpp): subtrees, subset width
        // and shift on the ALPM record, partitions on its atcam_table.
        let alpm = |subtrees: Value| {
            doc(json!([{
                "name": "ipv4_lpm", "table_type": "match", "direction": "ingress",
                "match_key_fields": [
                    {"name": "vrf", "bit_width": 10, "match_type": "exact"},
                    {"name": "ip_dst_addr", "bit_width": 32, "match_type": "lpm"}],
                "match_attributes": {"match_type": "algorithmic_lpm",
                    "max_subtrees_per_partition": subtrees, "atcam_subset_width": 18,
                    "shift_granularity": 1,
                    "atcam_table": {"match_attributes": {"match_type": "algorithmic_tcam",
                        "number_partitions": 1024}}},
                "actions": []
            }, {
                "name": "plain", "table_type": "match", "direction": "ingress",
                "match_attributes": {"match_type": "ternary"}, "actions": []
            }]))
        };
        let data = read(&alpm(json!(2))).unwrap();
        let s = |n: &str, v: u64| (n.to_string(), v);
        assert_eq!(
            data.match_tables[0].alpm,
            Some(vec![
                s("atcam_subset_width", 18),
                s("number_partitions", 1024),
                s("shift_granularity", 1),
                s("subtrees_per_partition", 2),
            ])
        );
        assert_eq!(data.match_tables[1].alpm, None);
        // Lowered: an `Alpm` instance the table's implementation names.
        let p = crate::lower::lower(data, "context.json");
        let imp = p.tables[0].implementation.as_deref();
        assert_eq!(imp, Some("ipv4_lpm$alpm"));
        let x = p.externs.iter().find(|x| Some(x.name.as_str()) == imp);
        assert_eq!(
            x.map(|x| (&x.kind, x.args.len())),
            Some((&ExternKind::Other("Alpm".into()), 4))
        );
        assert_eq!(p.tables[1].implementation, None);
        match read(&alpm(json!("2"))) {
            Err(Fault::Type { path, .. }) => assert_eq!(
                path,
                "tables[0].match_attributes.max_subtrees_per_partition"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_algorithmic_lpm_table_with_a_profile_is_marked_by_annotations() {
        let d = doc(json!([{
            "name": "t", "table_type": "match", "direction": "ingress",
            "action_profile": "prof",
            "match_attributes": {"match_type": "algorithmic_lpm",
                "max_subtrees_per_partition": 4,
                "atcam_table": {"match_attributes": {"number_partitions": 2048}}},
            "actions": []
        }]));
        let p = crate::lower::lower(read(&d).unwrap(), "context.json");
        let t = &p.tables[0];
        assert_eq!(t.implementation.as_deref(), Some("prof"));
        let anns: Vec<(&str, &str)> = t
            .annotations
            .iter()
            .map(|a| (a.name.as_str(), a.body.as_str()))
            .collect();
        assert_eq!(
            anns,
            [
                ("alpm", "1"),
                ("alpm_partitions", "2048"),
                ("alpm_subtrees_per_partition", "4")
            ]
        );
    }

    #[test]
    fn stage_number_of_wrong_type_is_reported_with_its_path() {
        let d = doc(
            json!([{"name": "t", "table_type": "match", "direction": "ingress",
            "match_attributes": {"stage_tables": [{"stage_number": "3"}]}}]),
        );
        let err = read(&d).unwrap_err();
        assert_eq!(
            err,
            Fault::Type {
                path: "tables[0].match_attributes.stage_tables[0].stage_number".into(),
                expected: "integer",
                found: "string".into()
            }
        );
    }

    #[test]
    fn stage_numbers_beyond_the_last_stage_are_refused() {
        let d = doc(
            json!([{"name": "t", "table_type": "match", "direction": "ingress",
            "match_attributes": {"stage_tables": [{"stage_number": 63}, {"stage_number": 100000}]}}]),
        );
        let err = read(&d).unwrap_err();
        assert_eq!(
            err,
            Fault::Invalid {
                path: "tables[0].match_attributes.stage_tables[1].stage_number".into(),
                message: "stage 100000 is beyond the last MAU stage p4cost accepts (63)".into(),
            }
        );
        let unplaced = doc(
            json!([{"name": "t", "table_type": "match", "direction": "ingress",
            "match_attributes": {"stage_tables": [{"stage_number": -1}, {"stage_number": 63}]}}]),
        );
        assert_eq!(
            read(&unplaced).unwrap().match_tables[0].stages,
            vec![-1, 63]
        );
    }

    #[test]
    fn action_primitives_give_reads_and_writes() {
        let a = json!({"name": "a", "handle": 5, "p4_parameters": [{"name": "port", "bit_width": 9}],
            "primitives": [{"name": "ModifyFieldPrimitive", "operation": "set",
                "dst": {"type": "phv", "name": "md.x"},
                "src1": {"type": "phv", "name": "hdr.y"}},
                {"name": "SetFieldToHashIndexPrimitive", "dst": {"type": "phv", "name": "md.h"},
                 "idx": {"type": "hash", "name": "h"}, "hash_inputs": ["hdr.z"]}]});
        let root = Loc::ROOT;
        let act = read_action(&a, &root).unwrap();
        assert_eq!(act.writes, vec!["md.x".to_string(), "md.h".to_string()]);
        assert_eq!(act.reads, vec!["hdr.y".to_string(), "hdr.z".to_string()]);
        assert_eq!(act.params, vec![("port".to_string(), Some(9))]);
        assert_eq!(act.ops, vec!["set".to_string(), "hash".to_string()]);
    }

    #[test]
    fn non_match_tables_become_externs() {
        let d = doc(json!([
            {"name": "r", "table_type": "stateful", "direction": "ingress", "size": 512,
             "alu_width": 16, "dual_width_mode": true, "how_referenced": "indirect"},
            {"name": "dr", "table_type": "stateful", "direction": "ingress", "size": 64,
             "alu_width": 8, "dual_width_mode": false, "how_referenced": "direct"},
            {"name": "sel$salu", "table_type": "stateful", "direction": "ingress", "size": 9,
             "alu_width": 1, "p4_hidden": true, "bound_to_selection_table_handle": 1,
             "how_referenced": "indirect"},
            {"name": "c", "table_type": "statistics", "direction": "egress", "size": 100,
             "how_referenced": "direct"},
            {"name": "m", "table_type": "meter", "direction": "ingress", "size": 8,
             "how_referenced": "indirect"},
            {"name": "sel", "table_type": "selection", "direction": "ingress", "size": 20,
             "how_referenced": "indirect"},
            {"name": "t$action", "table_type": "action", "direction": "ingress", "size": 30,
             "how_referenced": "direct"},
            {"name": "ap", "table_type": "action", "direction": "ingress", "size": 40,
             "how_referenced": "indirect"},
            {"name": "cond-1", "table_type": "condition", "direction": "ingress", "size": 0}
        ]));
        let data = read(&d).unwrap();
        let e = |name: &str, kind, size, width_bits, direct| CtxExtern {
            name: name.to_string(),
            kind,
            size: Some(size),
            width_bits,
            direct,
        };
        assert_eq!(
            data.externs,
            vec![
                e("r", ExternKind::Register, 512, Some(32), false),
                e("dr", ExternKind::Register, 64, Some(8), true),
                e("c", ExternKind::Counter, 100, None, true),
                e("m", ExternKind::Meter, 8, None, false),
                e("sel", ExternKind::ActionSelector, 20, None, false),
                e("ap", ExternKind::ActionProfile, 40, None, false),
            ]
        );
        assert_eq!(data.other_tables["stateful"], 3);
        assert_eq!(data.other_tables["action"], 2);
    }

    #[test]
    fn extern_fields_of_wrong_type_are_reported_with_their_path() {
        let d = doc(
            json!([{"name": "r", "table_type": "stateful", "direction": "ingress",
            "alu_width": "32"}]),
        );
        assert_eq!(
            read(&d).unwrap_err(),
            Fault::Type {
                path: "tables[0].alu_width".into(),
                expected: "non-negative integer",
                found: "string".into()
            }
        );
        let d = doc(
            json!([{"name": "a", "table_type": "action", "direction": "ingress",
            "how_referenced": 1}]),
        );
        assert!(
            matches!(read(&d), Err(Fault::Type { path, .. }) if path == "tables[0].how_referenced")
        );
    }

    #[test]
    fn bad_gress_is_rejected() {
        let d = doc(json!([{"name": "t", "table_type": "match", "direction": "sideways"}]));
        assert!(matches!(read(&d), Err(Fault::Invalid { .. })));
    }
}
