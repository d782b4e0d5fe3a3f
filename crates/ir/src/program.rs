//! The whole program.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{
    Action, ActionId, Control, ControlId, ControlRole, FileId, Gress, HeaderId, HeaderInstance,
    HeaderType, HeaderTypeId, Parser, ParserId, SourceFile, Span, Table, TableId,
};

/// What kind of input a program was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// P4-16 source.
    P4Source,
    /// p4c's BMv2 JSON.
    Bmv2Json,
    /// The Tofino compiler's context.json (with bfrt.json when given).
    TofinoContext,
}

/// The architecture (package) a program is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    /// Tofino Native Architecture (Tofino 1).
    Tna,
    /// Tofino 2 Native Architecture.
    T2na,
    /// BMv2 simple_switch's v1model.
    V1model,
    /// Portable Switch Architecture.
    Psa,
    /// Portable NIC Architecture.
    Pna,
    /// p4c's eBPF kernel filter model (`ebpf_model.p4`).
    Ebpf,
    /// p4c's userspace BPF model (`ubpf_model.p4`).
    Ubpf,
    /// p4c's XDP model (`xdp_model.p4`).
    Xdp,
    /// Not recognised.
    Unknown,
}

impl Arch {
    /// The name used in reports and JSON (`tna`, `t2na`, `v1model`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Tna => "tna",
            Arch::T2na => "t2na",
            Arch::V1model => "v1model",
            Arch::Psa => "psa",
            Arch::Pna => "pna",
            Arch::Ebpf => "ebpf",
            Arch::Ubpf => "ubpf",
            Arch::Xdp => "xdp",
            Arch::Unknown => "unknown",
        }
    }

    /// The package slot a parser of this gress fills, named as p4c's
    /// BMv2 back end names it in its JSON (`parser` for v1model and the
    /// eBPF models, `main_parser` for PNA, `ingress_parser` /
    /// `egress_parser` for PSA and TNA, which are also the parameter names
    /// of their packages). Every input kind knows it, so reports name a
    /// parser by it: a source and the JSON compiled from it agree.
    pub fn parser_slot(self, gress: Gress) -> &'static str {
        match (self, gress) {
            (Arch::Pna, _) => "main_parser",
            (Arch::Psa | Arch::Tna | Arch::T2na, Gress::Ingress) => "ingress_parser",
            (_, Gress::Egress) => "egress_parser",
            (_, Gress::Ghost) => "ghost_parser",
            _ => "parser",
        }
    }

    /// The Tofino generation the architecture targets (1 for TNA, 2 for
    /// T2NA), `None` for the non-Tofino architectures and `Unknown`.
    pub fn tofino_generation(self) -> Option<u8> {
        match self {
            Arch::Tna => Some(1),
            Arch::T2na => Some(2),
            _ => None,
        }
    }
}

/// One stage record of the Tofino compiler's `mau_stage_characteristics`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MauStage {
    /// Ingress or egress.
    pub gress: Gress,
    /// Stage number.
    pub stage: i32,
    /// Stage length in clock cycles.
    pub clock_cycles: u32,
    /// Predication cycle.
    pub predication_cycle: Option<u32>,
    /// True when the stage depends on a match result of an earlier stage.
    pub match_dependent: bool,
    /// Cycles this stage adds to the gress latency.
    pub cycles_contribute_to_latency: u32,
}

/// The compiler's MAU stage characteristics, when the input has them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MauPlacement {
    /// One record per (stage, gress).
    pub stages: Vec<MauStage>,
    /// True when the cycles were estimated by p4cost (old schemas carry
    /// only dependency booleans), false when the compiler wrote them.
    pub estimated: bool,
    /// The chip the compiler targeted (`tofino`, `tofino2`).
    pub target: String,
}

/// The order in which a deparser emits headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deparser {
    /// Deparser name (control name, or the BMv2 deparser name).
    pub name: String,
    /// Header instances emitted, in order (stacks by their name).
    pub order: Vec<String>,
    /// Declaration site.
    pub span: Span,
}

/// What kind of stateful or extern object an instance is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExternKind {
    /// A register array.
    Register,
    /// A counter array (direct or indirect).
    Counter,
    /// A meter array (direct or indirect).
    Meter,
    /// An action profile.
    ActionProfile,
    /// An action selector.
    ActionSelector,
    /// Anything else, by type name (`Hash`, `Checksum`, `RegisterAction` ...).
    Other(String),
}

/// An instance of an extern object: a register, counter, meter ...
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternInstance {
    /// Instance name.
    pub name: String,
    /// Its kind.
    pub kind: ExternKind,
    /// Number of cells, when known.
    pub size: Option<u64>,
    /// Width of one cell in bits (registers), when known.
    pub width_bits: Option<u32>,
    /// True for direct counters and meters (one cell per table entry).
    pub direct: bool,
    /// An action selector's largest group (members a group may hold),
    /// when the program gives it.
    #[serde(default)]
    pub max_group_size: Option<u64>,
    /// Constructor arguments that name a compile-time constant, by
    /// parameter name (kept for TNA's `Alpm(number_partitions = ...,
    /// subtrees_per_partition = ..., atcam_subset_width = ...,
    /// shift_granularity = ...)` and `num_groups` of TNA's five-argument
    /// `ActionSelector`; empty for every other extern).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, u64)>,
    /// The instance this one works on, by name: a `RegisterAction`'s
    /// register (its constructor's first argument); `None` for every
    /// other extern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub works_on: Option<String>,
    /// Declaration site.
    pub span: Span,
}

/// A package binding: which parser and controls form one pipeline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pipeline {
    /// Instance name (`pipe`, `main`, or the BMv2 pipeline name).
    pub name: String,
    /// Ingress parser.
    pub ingress_parser: Option<ParserId>,
    /// Ingress control.
    pub ingress: Option<ControlId>,
    /// Ingress deparser.
    pub ingress_deparser: Option<ControlId>,
    /// Egress parser.
    pub egress_parser: Option<ParserId>,
    /// Egress control.
    pub egress: Option<ControlId>,
    /// Egress deparser.
    pub egress_deparser: Option<ControlId>,
}

impl Pipeline {
    /// The match-action controls the pipeline binds: ingress, then egress,
    /// each when present.
    pub fn gress_controls(&self) -> Vec<(Gress, ControlId)> {
        [(Gress::Ingress, self.ingress), (Gress::Egress, self.egress)]
            .into_iter()
            .filter_map(|(g, c)| c.map(|c| (g, c)))
            .collect()
    }
}

/// A whole program in p4cost's model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Program {
    /// Program name (main file stem, or the name the compiler recorded).
    pub name: String,
    /// What it was read from.
    pub input: InputKind,
    /// The architecture.
    pub arch: Arch,
    /// Files spans refer to.
    pub files: Vec<SourceFile>,
    /// Header, union and struct types.
    pub header_types: Vec<HeaderType>,
    /// Header instances (packet headers and metadata).
    pub headers: Vec<HeaderInstance>,
    /// Parsers.
    pub parsers: Vec<Parser>,
    /// Controls.
    pub controls: Vec<Control>,
    /// Tables of all controls.
    pub tables: Vec<Table>,
    /// Actions of all controls, each behind an [`Arc`] so that copies
    /// (every instance of a control has its own ids for the same actions)
    /// share one body; written as a plain list (serde's `rc`: each `Arc`
    /// as its action, read back unshared).
    pub actions: Vec<Arc<Action>>,
    /// Package bindings.
    pub pipelines: Vec<Pipeline>,
    /// The package type `main` instantiates (P4 source; `None` when the
    /// program has no `main` or the input names none).
    #[serde(default)]
    pub main_package: Option<String>,
    /// Deparsers with their emit order.
    #[serde(default)]
    pub deparsers: Vec<Deparser>,
    /// Register, counter, meter and other extern instances.
    #[serde(default)]
    pub externs: Vec<ExternInstance>,
    /// Tofino stage characteristics, when known.
    pub mau: Option<MauPlacement>,
    /// Things the reader noticed and wants the user to know.
    pub notes: Vec<String>,
}

impl Program {
    /// Closes every `switch (t.apply().action_run)`: each action `t` may
    /// run (its actions and its default action) that has no case of its
    /// own gets an arm to the switch's default way, as p4c's midend lists
    /// them (so a source and its BMv2 JSON name the same arms); then no
    /// action takes the default way as such, and it is made the default
    /// action's arm instead of a way of its own (p4c's BMv2 JSON lists an
    /// arm per action and a `base_default_next` no packet takes). A table
    /// without a declared default action (P4's implicit `NoAction`) keeps
    /// its default way.
    pub fn close_action_switches(&mut self) {
        let tables = &self.tables;
        for c in &mut self.controls {
            for node in &mut c.flow.nodes {
                let crate::NodeKind::Table { table, next } = &mut node.kind else {
                    continue;
                };
                let crate::TableNext::ByAction { arms, default } = next else {
                    continue;
                };
                let Some(t) = tables.get(table.index()) else {
                    continue;
                };
                for &a in t.actions.iter().chain(&t.default_action) {
                    if !arms.iter().any(|&(x, _)| x == a) {
                        arms.push((a, *default));
                    }
                }
                if !t.has_arm_for_every_action(arms) {
                    continue;
                }
                if let Some(&(_, n)) = arms.iter().find(|(x, _)| Some(*x) == t.default_action) {
                    *default = n;
                }
            }
        }
    }

    /// An empty program of the given input kind.
    pub fn new(name: impl Into<String>, input: InputKind) -> Program {
        Program {
            name: name.into(),
            input,
            arch: Arch::Unknown,
            files: Vec::new(),
            header_types: Vec::new(),
            headers: Vec::new(),
            parsers: Vec::new(),
            controls: Vec::new(),
            tables: Vec::new(),
            actions: Vec::new(),
            pipelines: Vec::new(),
            main_package: None,
            deparsers: Vec::new(),
            externs: Vec::new(),
            mau: None,
            notes: Vec::new(),
        }
    }

    /// Adds a file and returns its id (an existing entry with the same path
    /// is reused).
    pub fn add_file(&mut self, path: impl Into<String>) -> FileId {
        let path = path.into();
        if let Some(i) = self.files.iter().position(|f| f.path == path) {
            return FileId(i as u32);
        }
        self.files.push(SourceFile { path });
        FileId((self.files.len() - 1) as u32)
    }

    /// The path of a file.
    pub fn file_path(&self, id: FileId) -> &str {
        self.files
            .get(id.index())
            .map(|f| f.path.as_str())
            .unwrap_or("<unknown>")
    }

    /// The header type with this id.
    pub fn header_type(&self, id: HeaderTypeId) -> &HeaderType {
        &self.header_types[id.index()]
    }

    /// The header instance with this id.
    pub fn header(&self, id: HeaderId) -> &HeaderInstance {
        &self.headers[id.index()]
    }

    /// The parser with this id.
    pub fn parser(&self, id: ParserId) -> &Parser {
        &self.parsers[id.index()]
    }

    /// The control with this id.
    pub fn control(&self, id: ControlId) -> &Control {
        &self.controls[id.index()]
    }

    /// The table with this id.
    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id.index()]
    }

    /// The action with this id.
    pub fn action(&self, id: ActionId) -> &Action {
        &self.actions[id.index()]
    }

    /// The header instance with this name.
    pub fn header_by_name(&self, name: &str) -> Option<HeaderId> {
        self.headers
            .iter()
            .position(|h| h.name == name)
            .map(|i| HeaderId(i as u32))
    }

    /// The table with this name.
    pub fn table_by_name(&self, name: &str) -> Option<TableId> {
        self.tables
            .iter()
            .position(|t| t.name == name)
            .map(|i| TableId(i as u32))
    }

    /// The ingress parser of the first pipeline that has one, else the
    /// fallback of [`Program::analysed_pipelines`]. Programs with several
    /// pipelines should go through `analysed_pipelines` instead.
    pub fn ingress_parser(&self) -> Option<ParserId> {
        if let Some(p) = self.pipelines.iter().find_map(|p| p.ingress_parser) {
            return Some(p);
        }
        self.fallback_ingress_parser()
    }

    /// The ingress control of the first pipeline that has one, else the
    /// first control whose role is ingress.
    pub fn ingress_control(&self) -> Option<ControlId> {
        if let Some(c) = self.pipelines.iter().find_map(|p| p.ingress) {
            return Some(c);
        }
        self.fallback_ingress_control()
    }

    /// The first parser marked ingress, else the only parser.
    fn fallback_ingress_parser(&self) -> Option<ParserId> {
        if let Some(i) = self.parsers.iter().position(|p| p.gress == Gress::Ingress) {
            return Some(ParserId(i as u32));
        }
        (self.parsers.len() == 1).then_some(ParserId(0))
    }

    /// The first control whose role is ingress.
    fn fallback_ingress_control(&self) -> Option<ControlId> {
        self.controls
            .iter()
            .position(|c| c.role == ControlRole::Ingress)
            .map(|i| ControlId(i as u32))
    }

    /// The pipelines an analysis should cover, in binding order: every
    /// package binding, or, when nothing is bound (no `main`), one pipeline
    /// named `main` made of the first ingress parser and control found.
    /// A binding with no ingress parser or control of its own borrows the
    /// fallback only when it is the program's only binding.
    pub fn analysed_pipelines(&self) -> Vec<Pipeline> {
        if self.pipelines.is_empty() {
            let p = Pipeline {
                name: "main".to_string(),
                ingress_parser: self.fallback_ingress_parser(),
                ingress: self.fallback_ingress_control(),
                ..Pipeline::default()
            };
            return if p.ingress_parser.is_some() || p.ingress.is_some() {
                vec![p]
            } else {
                Vec::new()
            };
        }
        let mut out = self.pipelines.clone();
        if let [only] = out.as_mut_slice() {
            if only.ingress_parser.is_none() {
                only.ingress_parser = self.fallback_ingress_parser();
            }
            if only.ingress.is_none() {
                only.ingress = self.fallback_ingress_control();
            }
        }
        out
    }

    /// The pipelines grouped by what an ingress analysis sees: bindings
    /// with the same ingress parser and ingress control (say
    /// `Switch(pipe, pipe)`, or two instances of the same types) form one
    /// group, listed once. Groups keep binding order; each holds its
    /// pipelines in binding order.
    pub fn ingress_pipeline_groups(&self) -> Vec<Vec<Pipeline>> {
        let mut groups: Vec<Vec<Pipeline>> = Vec::new();
        let mut index: std::collections::HashMap<(Option<ParserId>, Option<ControlId>), usize> =
            std::collections::HashMap::new();
        for p in self.analysed_pipelines() {
            let key = (p.ingress_parser, p.ingress);
            match index.get(&key) {
                Some(&g) => groups[g].push(p),
                None => {
                    index.insert(key, groups.len());
                    groups.push(vec![p]);
                }
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParserId;

    fn pipe(name: &str, parser: Option<u32>, control: Option<u32>) -> Pipeline {
        Pipeline {
            name: name.into(),
            ingress_parser: parser.map(ParserId),
            ingress: control.map(ControlId),
            ..Pipeline::default()
        }
    }

    #[test]
    fn groups_join_pipelines_with_the_same_ingress_only() {
        let mut p = Program::new("t", InputKind::P4Source);
        p.pipelines = vec![
            pipe("a", Some(0), Some(0)),
            pipe("b", Some(1), Some(1)),
            pipe("c", Some(0), Some(0)),
            pipe("d", Some(0), Some(1)),
        ];
        let names: Vec<Vec<String>> = p
            .ingress_pipeline_groups()
            .into_iter()
            .map(|g| g.into_iter().map(|x| x.name).collect())
            .collect();
        assert_eq!(names, [vec!["a", "c"], vec!["b"], vec!["d"]]);
    }

    #[test]
    fn nothing_bound_and_nothing_to_fall_back_on_is_no_pipeline() {
        let p = Program::new("t", InputKind::P4Source);
        assert!(p.analysed_pipelines().is_empty());
        assert!(p.ingress_pipeline_groups().is_empty());
    }
}
