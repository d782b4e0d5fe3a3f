//! Packet classes: one parse path together with one path through a control
//! (issue 9, the counting core).
//!
//! A packet's path through a control depends on its parse path only through
//! the validity of the headers the control's conditions test. Let H be those
//! headers (the `isValid()` leaves of the control's conditions, at most
//! [`MAX_TESTED_HEADERS`]). A parse path's **signature** is the bitset of the
//! headers of H it extracts. Then:
//!
//! 1. [`ParseSignatures`]: a suffix dynamic program over the parse DAG
//!    ([`PathGraph`] numbers successors first, so one ascending sweep does
//!    it) gives, per node and per signature of the rest of the path, the
//!    number of paths and the min and max of an additive per-node weight,
//!    with a witness for each. Bounded by a number of map entries.
//! 2. [`ControlClasses`]: per signature, the control's flow graph is walked
//!    with three-valued validity: a tested header is valid iff the signature
//!    has it; after a node that sets it for certain (`setValid` /
//!    `setInvalid` in a statement or action, or the same way in every
//!    action a table may run) it is known again, after any other write of
//!    its `$valid` unknown. Conditions evaluate with Kleene logic
//!    (`isValid`, `!`, `&&`, `||`, constants; fields, comparisons and table
//!    hits are unknown); a decided condition takes one branch, an undecided
//!    one both; tables with hit/miss or `action_run` successors take every
//!    distinct successor. A memoised DP over (node, known-valid bits,
//!    unknown bits), shared by all signatures, counts control paths and the
//!    min and max of an additive per-table weight, with witnesses.
//! 3. [`packet_classes`]: classes = Σ over signatures of parse paths ×
//!    control paths (saturating), and the lightest and heaviest class as a
//!    parse path and a control path. No parse path is enumerated.
//! 4. [`list_classes`]: for one parse path, up to `max` control paths
//!    consistent with its signature, each with the tables it applies and,
//!    for every other table of the control, why it is not applied.
//!
//! Everything is iterative (explicit stacks; no recursion whose depth the
//! input controls), and every budget ends in a [`ClassError`].

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use p4cost_ir::{
    ActionId, Cond, CondNode, ControlFlow, ControlId, NodeId, NodeKind, Program, TableId, TableNext,
};

use crate::{Next, PathCount, PathExtract, PathGraph};

pub mod atoms;
mod compiled;
pub mod dist;
mod order;

/// At most this many tested headers are tracked (one bit each of a `u64`).
pub const MAX_TESTED_HEADERS: usize = 64;

/// Default of [`ClassBudget::max_signature_entries`].
pub const DEFAULT_MAX_SIGNATURE_ENTRIES: usize = 100_000;
/// Default of [`ClassBudget::max_control_states`].
pub const DEFAULT_MAX_CONTROL_STATES: usize = 200_000;
/// Default of [`ClassBudget::max_list_work`].
pub const DEFAULT_MAX_LIST_WORK: usize = 1_000_000;

const ONE: PathCount = PathCount::exact(1);

/// Limits of the class analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassBudget {
    /// Entries (node, signature) of the parse-side DP, all nodes together.
    pub max_signature_entries: usize,
    /// Memoised control states (node, known-valid bits, unknown bits), all
    /// signatures together.
    pub max_control_states: usize,
    /// Steps of a class listing (the control walk and the reach sets that
    /// explain skipped tables).
    pub max_list_work: usize,
}

impl Default for ClassBudget {
    fn default() -> Self {
        ClassBudget {
            max_signature_entries: DEFAULT_MAX_SIGNATURE_ENTRIES,
            max_control_states: DEFAULT_MAX_CONTROL_STATES,
            max_list_work: DEFAULT_MAX_LIST_WORK,
        }
    }
}

/// The class analysis ran past a budget, or was given bad input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassError {
    /// The parse-side DP would hold more (node, signature) entries.
    SignatureEntries {
        /// The parser.
        parser: String,
        /// The budget.
        limit: usize,
    },
    /// The control walk would memoise more states.
    ControlStates {
        /// The control.
        control: String,
        /// The budget.
        limit: usize,
    },
    /// A listing would take more steps.
    ListWork {
        /// The control.
        control: String,
        /// The budget.
        limit: usize,
    },
    /// A weight slice is shorter than what it weighs.
    Weights {
        /// `parse nodes` or `tables`.
        what: &'static str,
        /// Entries needed.
        needed: usize,
        /// Entries given.
        given: usize,
    },
    /// A parse path given to [`list_classes`] names a node the graph lacks.
    BadParsePath {
        /// The node.
        node: u32,
    },
}

impl std::fmt::Display for ClassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClassError::SignatureEntries { parser, limit } => write!(
                f,
                "parser `{parser}`: the packet-class analysis needs more than {limit} (parse node, header-validity signature) entries; too many combinations of tested headers"
            ),
            ClassError::ControlStates { control, limit } => write!(
                f,
                "control `{control}`: the packet-class analysis needs more than {limit} (control node, header validity) states"
            ),
            ClassError::ListWork { control, limit } => write!(
                f,
                "control `{control}`: listing packet classes needs more than {limit} steps"
            ),
            ClassError::Weights {
                what,
                needed,
                given,
            } => write!(
                f,
                "packet classes: {needed} weights of {what} needed, {given} given"
            ),
            ClassError::BadParsePath { node } => {
                write!(f, "packet classes: parse path names node {node}, which the parse graph lacks")
            }
        }
    }
}

impl std::error::Error for ClassError {}

/// The headers whose validity a control's conditions test (H), one bit
/// each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestedHeaders {
    /// Tracked headers; bit `i` is `names[i]`.
    pub names: Vec<String>,
    /// Tracked flags: fields (not packet headers' fields) the control tests
    /// as booleans or against 0 / 1 and sets to 0 or 1 somewhere (p4c's
    /// `hasReturned`, a `bool drop`); flag `k` is item `names.len() + k`,
    /// unknown when the control starts, known after a node that sets it
    /// for certain ([`p4cost_ir::FlagSet`]).
    pub flags: Vec<String>,
    /// Tracked field comparisons the parse path may decide
    /// ([`atoms`]); atom `j` is item `names.len() + flags.len() + j` of a
    /// control state, and takes two bits of a signature (see
    /// [`TestedHeaders::initial`]).
    pub atoms: Vec<atoms::Atom>,
    /// Why some tested headers are not tracked (their tests are
    /// undecidable), if any are not.
    pub note: Option<String>,
    bits: HashMap<String, u32>,
    /// Field -> its atoms (comparison, constant, atom index).
    atom_index: HashMap<String, Vec<(p4cost_ir::CmpOp, u128, u32)>>,
}

/// At most this many field comparisons are tracked per control.
pub const MAX_TESTED_FIELDS: usize = 16;

/// At most this many flags are tracked per control.
pub const MAX_TESTED_FLAGS: usize = 16;

/// The headers whose validity the conditions of `flow` test (`isValid()`
/// leaves), each once, in node order.
pub(crate) fn validity_tests(flow: &ControlFlow) -> Vec<&str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for node in &flow.nodes {
        let NodeKind::Condition { cond, .. } = &node.kind else {
            continue;
        };
        for c in &cond.nodes {
            if let CondNode::IsValid { header } = c {
                if seen.insert(header.as_str()) {
                    out.push(header.as_str());
                }
            }
        }
    }
    out
}

/// The low `n` bits.
fn low(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// True for `hdr.x` or `hdr.x[3]`: a header the parser can name; not
/// `hdr.s.last`, `hdr.s.next` or `hdr.s[i]`.
fn is_static_header(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    if matches!(last, "last" | "next") {
        return false;
    }
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            return false;
        };
        let idx = &rest[open + 1..open + close];
        if idx.is_empty() || !idx.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        rest = &rest[open + close + 1..];
    }
    true
}

/// `hdr.s[2]` -> `hdr.s`; other names unchanged.
fn strip_index(name: &str) -> &str {
    match name.strip_suffix(']').and_then(|n| n.rfind('[')) {
        Some(i) => &name[..i],
        None => name,
    }
}

impl TestedHeaders {
    /// H for a control flow: its conditions' `isValid()` headers, the
    /// first [`MAX_TESTED_HEADERS`] seen in node order, sorted by name.
    /// Past that, and for names the
    /// parser cannot decide (`hdr.s.last`, `hdr.s[i]`), tests are unknown
    /// and `note` says so.
    pub fn of(flow: &ControlFlow) -> TestedHeaders {
        let mut t = TestedHeaders::default();
        let mut dropped: Vec<String> = Vec::new();
        let mut dynamic: Vec<String> = Vec::new();
        for header in validity_tests(flow) {
            if !is_static_header(header) {
                dynamic.push(header.to_string());
            } else if t.names.len() < MAX_TESTED_HEADERS {
                t.names.push(header.to_string());
            } else {
                dropped.push(header.to_string());
            }
        }
        t.names.sort();
        for (i, h) in t.names.iter().enumerate() {
            t.bits.insert(h.clone(), i as u32);
        }
        let mut notes = Vec::new();
        if !dropped.is_empty() {
            notes.push(format!(
                "the control tests the validity of more than {MAX_TESTED_HEADERS} headers; tests of {} are treated as undecidable",
                dropped.join(", ")
            ));
        }
        if !dynamic.is_empty() {
            notes.push(format!(
                "validity tests of {} depend on run-time indexes and are treated as undecidable",
                dynamic.join(", ")
            ));
        }
        if !notes.is_empty() {
            t.note = Some(notes.join("; "));
        }
        t
    }

    /// H for a control of `program`, with the comparisons of fields with
    /// constants that its conditions make on fields some parser selects on
    /// or sets to a constant (the parse path may decide them), as many as
    /// fit in a
    /// signature beside the headers (at most [`MAX_TESTED_FIELDS`]).
    pub fn of_program(program: &Program, flow: &ControlFlow) -> TestedHeaders {
        let mut t = TestedHeaders::of(flow);
        t.add_flags(program, flow);
        let selected = atoms::parser_decided_fields(program);
        if selected.is_empty() {
            return t;
        }
        let room = (64 - t.items()) / 2;
        let mut found: Vec<atoms::Atom> = Vec::new();
        let mut seen: HashSet<atoms::Atom> = HashSet::new();
        for node in &flow.nodes {
            let NodeKind::Condition { cond, .. } = &node.kind else {
                continue;
            };
            for i in 0..cond.nodes.len() {
                let Some((field, ..)) = atoms::atom_parts(cond, i) else {
                    continue;
                };
                if !selected.contains(field) {
                    continue;
                }
                if let Some((a, _)) = atoms::atom_at(cond, i) {
                    if found.len() < room.min(MAX_TESTED_FIELDS) && seen.insert(a.clone()) {
                        found.push(a);
                    }
                }
            }
        }
        found.sort_by(|a, b| (&a.field, a.value).cmp(&(&b.field, b.value)));
        let base = t.items() as u32;
        for (j, a) in found.iter().enumerate() {
            t.atom_index.entry(a.field.clone()).or_default().push((
                a.cmp,
                a.value,
                base + j as u32,
            ));
        }
        t.atoms = found;
        t
    }

    /// Adds the flags of `flow` ([`TestedHeaders::flags`]), as many as fit
    /// beside the headers (at most [`MAX_TESTED_FLAGS`]).
    fn add_flags(&mut self, program: &Program, flow: &ControlFlow) {
        let mut set: HashSet<&str> = HashSet::new();
        for a in &program.actions {
            set.extend(a.flags.iter().map(|f| f.field.as_str()));
        }
        for n in &flow.nodes {
            if let NodeKind::Statement { flags, .. } = &n.kind {
                set.extend(flags.as_slice().iter().map(|f| f.field.as_str()));
            }
        }
        if set.is_empty() {
            return;
        }
        let room = (64 - self.names.len()).min(MAX_TESTED_FLAGS);
        let mut found: Vec<String> = Vec::new();
        for node in &flow.nodes {
            let NodeKind::Condition { cond, .. } = &node.kind else {
                continue;
            };
            for c in &cond.nodes {
                if let CondNode::Field { name } = c {
                    if !name.starts_with("hdr.")
                        && set.contains(name.as_str())
                        && !found.contains(name)
                        && found.len() < room
                    {
                        found.push(name.clone());
                    }
                }
            }
        }
        found.sort();
        let base = self.names.len() as u32;
        for (k, f) in found.iter().enumerate() {
            self.bits.insert(f.clone(), base + k as u32);
        }
        self.flags = found;
    }

    /// Items before the atoms: headers, then flags.
    fn items(&self) -> usize {
        self.names.len() + self.flags.len()
    }

    /// The bits of the flags.
    fn flag_mask(&self) -> u64 {
        low(self.flags.len()) << self.names.len()
    }

    /// The value a flag's field compared with a constant node gives: for
    /// node `i` of `cond`, `f == c` / `f != c` with `c` a constant, or the
    /// field `f` itself (true when 1).
    fn flag_test(&self, cond: &Cond, i: usize, valid: u64, unknown: u64) -> Option<bool> {
        let value_of = |name: &str| -> Option<bool> {
            let b = *self.bits.get(name)?;
            let is_flag = (b as usize) >= self.names.len() && (b as usize) < self.items();
            (is_flag && unknown >> b & 1 == 0).then(|| valid >> b & 1 == 1)
        };
        match cond.nodes.get(i)? {
            CondNode::Field { name } => value_of(name),
            CondNode::Cmp { cmp, lhs, rhs } => {
                let node = |j: u32| cond.nodes.get(j as usize).filter(|_| (j as usize) < i);
                let constant = |n: &CondNode| match n {
                    CondNode::Int { value } => atoms::parse_int(value),
                    CondNode::Bool { value } => Some(u128::from(*value)),
                    _ => None,
                };
                let (name, c) = match (node(*lhs)?, node(*rhs)?) {
                    (CondNode::Field { name }, other) | (other, CondNode::Field { name }) => {
                        (name, constant(other)?)
                    }
                    _ => return None,
                };
                let v = u128::from(value_of(name)?);
                match cmp {
                    p4cost_ir::CmpOp::Eq => Some(v == c),
                    p4cost_ir::CmpOp::Ne => Some(v != c),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The bit of a tracked header.
    pub fn bit(&self, header: &str) -> Option<u32> {
        self.bits.get(header).copied()
    }

    /// The item (control-state bit) of the atom that node `i` of `cond`
    /// compares, and whether the node negates it.
    fn atom_item(&self, cond: &Cond, i: usize) -> Option<(u32, bool)> {
        if self.atoms.is_empty() {
            return None;
        }
        let (field, cmp, value, negated) = atoms::atom_parts(cond, i)?;
        self.atom_index
            .get(field)?
            .iter()
            .find(|(c, v, _)| *c == cmp && *v == value)
            .map(|&(_, _, item)| (item, negated))
    }

    /// The items (header, flag and atom bits of a control state) that
    /// `cond` reads.
    fn items_of(&self, cond: &Cond) -> u64 {
        let mut m = 0u64;
        for (i, c) in cond.nodes.iter().enumerate() {
            let bit = match c {
                CondNode::IsValid { header } => self.bit(header),
                CondNode::Field { name } => self.bits.get(name).copied(),
                CondNode::Cmp { .. } => self.atom_item(cond, i).map(|(b, _)| b),
                _ => None,
            };
            if let Some(b) = bit.filter(|&b| b < 64) {
                m |= 1 << b;
            }
        }
        m
    }

    /// Bits of a signature: the headers', then the atoms' "true" bits,
    /// then their "false" bits.
    fn sig_layout(&self) -> (usize, usize) {
        (self.items(), self.atoms.len())
    }

    /// The signature bits of atom `j` for `ev`.
    fn event_bits(&self, j: usize, ev: atoms::Event) -> u64 {
        let (nh, na) = self.sig_layout();
        let (t, f) = ev.bits();
        (u64::from(t) << (nh + j)) | (u64::from(f) << (nh + na + j))
    }

    /// The signature of a path made of `earlier` then `later`: headers
    /// either extracts, and for each atom the later event unless it has
    /// none.
    pub fn compose(&self, earlier: u64, later: u64) -> u64 {
        let (nh, na) = self.sig_layout();
        if na == 0 {
            return earlier | later;
        }
        let la = low(na);
        let set = ((later >> nh) | (later >> (nh + na))) & la;
        let atom_bits = (la << nh) | (la << (nh + na));
        let cleared = (set << nh) | (set << (nh + na));
        ((earlier | later) & low(nh)) | (earlier & atom_bits & !cleared) | (later & atom_bits)
    }

    /// The control state a signature starts from: (valid, unknown) items;
    /// an atom is known when exactly one of its bits is set.
    pub fn initial(&self, sig: u64) -> (u64, u64) {
        let (nh, na) = self.sig_layout();
        let flags = self.flag_mask();
        if na == 0 {
            return (sig & !flags, flags);
        }
        let la = low(na);
        let t = (sig >> nh) & la;
        let f = (sig >> (nh + na)) & la;
        let known = t ^ f;
        (
            (sig & low(nh) & !flags) | ((t & known) << nh),
            ((!known & la) << nh) | flags,
        )
    }

    /// The signature of the visit of parse graph node `n`: the tracked
    /// headers it extracts and what its state's operations do to the
    /// atoms' fields (nothing to look at when nothing is tracked).
    pub fn visit_sig(&self, pg: &PathGraph<'_>, n: u32) -> u64 {
        if self.names.is_empty() && self.atoms.is_empty() {
            return 0;
        }
        let v = pg.visit(n);
        let mut m = self.mask_of_extracts(&v.extracts);
        let ops = &pg.parser().state(v.state).ops;
        for (j, a) in self.atoms.iter().enumerate() {
            m |= self.event_bits(j, atoms::ops_event(a, ops));
        }
        m
    }

    /// The signature bits of each edge of a transition, by target (only
    /// targets whose edge says something of an atom).
    pub fn edge_sigs(&self, tr: &p4cost_ir::Transition) -> Vec<(p4cost_ir::Target, u64)> {
        let mut out: Vec<(p4cost_ir::Target, u64)> = Vec::new();
        for (j, a) in self.atoms.iter().enumerate() {
            for (t, ev) in atoms::edge_events(a, tr) {
                let bits = self.event_bits(j, ev);
                match out.iter_mut().find(|(x, _)| *x == t) {
                    Some((_, m)) => *m |= bits,
                    None => out.push((t, bits)),
                }
            }
        }
        out
    }

    /// Bits of the tracked headers that `extracts` extract (a stack element
    /// counts as itself and as its stack).
    pub fn mask_of_extracts(&self, extracts: &[PathExtract]) -> u64 {
        let mut m = 0u64;
        for e in extracts {
            if let Some(b) = self.bit(&e.header) {
                m |= 1 << b;
            }
            if e.index.is_some() {
                if let Some(b) = self.bit(&e.display_name()) {
                    m |= 1 << b;
                }
            }
        }
        m
    }

    /// Bits of the tracked headers whose validity a write of `field` may
    /// change: `<h>.$valid`, a whole-header write `<h>`, any element of the
    /// same stack, or a struct that contains `<h>`.
    pub fn mask_of_write(&self, field: &str) -> u64 {
        let (base, valid) = match field.strip_suffix(".$valid") {
            Some(b) => (b, true),
            None => (field, false),
        };
        let mut m = 0u64;
        for (i, h) in self.names.iter().enumerate() {
            let same_stack = strip_index(base) == strip_index(h);
            let whole = h.len() > base.len()
                && h.starts_with(base)
                && matches!(h.as_bytes()[base.len()], b'.' | b'[');
            if same_stack || (!valid && whole) {
                m |= 1 << i;
            }
        }
        for (k, f) in self.flags.iter().enumerate() {
            if atoms::covers(field, f) {
                m |= 1 << (self.names.len() + k);
            }
        }
        if let Some(fields) = (!self.atoms.is_empty()).then_some(&self.atom_index) {
            for (f, list) in fields {
                if atoms::covers(field, f) {
                    for &(_, _, item) in list {
                        m |= 1 << item;
                    }
                }
            }
        }
        m
    }

    /// Kleene value of `cond` when the tracked headers in `valid` are valid,
    /// those in `unknown` unknown and the others invalid. `None` is unknown.
    pub fn eval(&self, cond: &Cond, valid: u64, unknown: u64) -> Option<bool> {
        let mut vals: Vec<Option<bool>> = Vec::with_capacity(cond.nodes.len());
        for (i, n) in cond.nodes.iter().enumerate() {
            let get = |j: u32| -> Option<bool> {
                if (j as usize) < i {
                    vals[j as usize]
                } else {
                    None
                }
            };
            let v = match n {
                CondNode::Bool { value } => Some(*value),
                CondNode::IsValid { header } => self.bit(header).and_then(|b| {
                    if unknown >> b & 1 == 1 {
                        None
                    } else {
                        Some(valid >> b & 1 == 1)
                    }
                }),
                CondNode::Not { arg } => get(*arg).map(|x| !x),
                CondNode::And { lhs, rhs } => match (get(*lhs), get(*rhs)) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                },
                CondNode::Or { lhs, rhs } => match (get(*lhs), get(*rhs)) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                },
                CondNode::Cmp { .. } => atoms::constant_cmp(cond, i)
                    .or_else(|| {
                        let (b, negated) = self.atom_item(cond, i)?;
                        (unknown >> b & 1 == 0).then(|| (valid >> b & 1 == 1) != negated)
                    })
                    .or_else(|| self.flag_test(cond, i, valid, unknown)),
                CondNode::Field { .. } => self.flag_test(cond, i, valid, unknown),
                _ => None,
            };
            vals.push(v);
        }
        vals.last().copied().flatten()
    }
}

/// Per-signature facts of the paths from one parse node to accept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SigEntry {
    /// Paths with this signature.
    pub count: PathCount,
    /// Least summed weight (node included).
    pub min: f64,
    /// Greatest summed weight.
    pub max: f64,
    min_via: Option<(u32, u64)>,
    max_via: Option<(u32, u64)>,
}

/// One node's signatures and their entries, sorted by signature, in a
/// vector exact in size (a node usually has one or two signatures, and a
/// B-tree map would spend a whole leaf on them).
#[derive(Debug, Default)]
pub struct SigMap(Vec<(u64, SigEntry)>);

impl SigMap {
    /// Merges `(signature, entry)` candidates in the order given: counts
    /// add up; the extremes keep the first candidate that reached them.
    fn merged(items: &mut Vec<(u64, SigEntry)>) -> SigMap {
        // Stable: candidates with the same signature keep their order.
        items.sort_by_key(|(sig, _)| *sig);
        let mut out: Vec<(u64, SigEntry)> = Vec::new();
        for (sig, e) in items.drain(..) {
            match out.last_mut() {
                Some((last, m)) if *last == sig => {
                    m.count = m.count.plus(e.count);
                    if e.min < m.min {
                        m.min = e.min;
                        m.min_via = e.min_via;
                    }
                    if e.max > m.max {
                        m.max = e.max;
                        m.max_via = e.max_via;
                    }
                }
                _ => out.push((sig, e)),
            }
        }
        out.shrink_to_fit();
        SigMap(out)
    }

    /// The entry of `sig`.
    pub fn get(&self, sig: &u64) -> Option<&SigEntry> {
        self.0
            .binary_search_by_key(sig, |(s, _)| *s)
            .ok()
            .and_then(|i| self.0.get(i))
            .map(|(_, e)| e)
    }

    /// Signatures and entries in ascending signature order.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &SigEntry)> {
        self.0.iter().map(|(s, e)| (s, e))
    }

    /// Number of signatures.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when no path has a signature here.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'m> IntoIterator for &'m SigMap {
    type Item = (&'m u64, &'m SigEntry);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'m, (u64, SigEntry)>,
        fn(&'m (u64, SigEntry)) -> (&'m u64, &'m SigEntry),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(s, e)| (s, e))
    }
}

/// The parse-side DP: per node, signature -> [`SigEntry`].
pub struct ParseSignatures {
    maps: Vec<SigMap>,
    start: u32,
    entries: usize,
}

impl ParseSignatures {
    /// Runs the suffix DP over `pg` (ascending node ids), `w[n]` the weight
    /// of node `n`. Fails past `max_entries` (node, signature) entries in
    /// all, or when the merges pass 16 × `max_entries` steps.
    pub fn build(
        pg: &PathGraph<'_>,
        h: &TestedHeaders,
        w: &[f64],
        max_entries: usize,
    ) -> Result<ParseSignatures, ClassError> {
        if w.len() < pg.len() {
            return Err(ClassError::Weights {
                what: "parse nodes",
                needed: pg.len(),
                given: w.len(),
            });
        }
        Self::build_dag(
            pg,
            pg.len(),
            pg.start(),
            &|n| n,
            &|n| pg.successors(n),
            h,
            w,
            max_entries,
        )
    }

    /// The same DP over a product of the parse graph with an automaton
    /// (`Product::build`, e.g. the linear model's baseline flag), `w[i]`
    /// the weight of product node `i`. Witness paths are product nodes.
    pub fn build_product<S: Copy + Eq + std::hash::Hash>(
        pg: &PathGraph<'_>,
        prod: &crate::Product<S>,
        h: &TestedHeaders,
        w: &[f64],
        max_entries: usize,
    ) -> Result<ParseSignatures, ClassError> {
        if w.len() < prod.nodes.len() {
            return Err(ClassError::Weights {
                what: "product nodes",
                needed: prod.nodes.len(),
                given: w.len(),
            });
        }
        let Some(start) = prod.start_node() else {
            return Ok(ParseSignatures {
                maps: Vec::new(),
                start: u32::MAX,
                entries: 0,
            });
        };
        Self::build_dag(
            pg,
            prod.nodes.len(),
            start,
            &|i| prod.nodes[i as usize].node,
            &|i| prod.successors(i),
            h,
            w,
            max_entries,
        )
    }

    /// The suffix DP over any post-ordered DAG whose node `i` visits parse
    /// graph node `graph_node(i)`.
    #[allow(clippy::too_many_arguments)]
    fn build_dag<'s>(
        pg: &PathGraph<'_>,
        len: usize,
        start: u32,
        graph_node: &dyn Fn(u32) -> u32,
        successors: &dyn Fn(u32) -> &'s [Next],
        h: &TestedHeaders,
        w: &[f64],
        max_entries: usize,
    ) -> Result<ParseSignatures, ClassError> {
        let over = || ClassError::SignatureEntries {
            parser: pg.parser_name().to_string(),
            limit: max_entries,
        };
        let work_limit = max_entries.saturating_mul(16);
        let (mut entries, mut work) = (0usize, 0usize);
        let mut maps: Vec<SigMap> = Vec::with_capacity(len);
        let mut items: Vec<(u64, SigEntry)> = Vec::new();
        let mut edges = EdgeSigs::default();
        for n in 0..len as u32 {
            let g = graph_node(n);
            let own = h.visit_sig(pg, g);
            let wn = w[n as usize];
            let entry = |count: PathCount, min: f64, max: f64, via: Option<(u32, u64)>| SigEntry {
                count,
                min: min + wn,
                max: max + wn,
                min_via: via,
                max_via: via,
            };
            items.clear();
            for &s in successors(n) {
                match s {
                    Next::Accept => {
                        let edge = edges.get(pg, h, g, Next::Accept);
                        items.push((h.compose(own, edge), entry(ONE, 0.0, 0.0, None)));
                    }
                    Next::Node(m) => {
                        // A product marks a rejected successor with an id
                        // past its nodes: no path goes there.
                        let Some(sub) = maps.get(m as usize) else {
                            continue;
                        };
                        work += sub.len();
                        if work > work_limit {
                            return Err(over());
                        }
                        let head = h.compose(own, edges.get(pg, h, g, Next::Node(graph_node(m))));
                        for (&sig, e) in sub {
                            items.push((
                                h.compose(head, sig),
                                entry(e.count, e.min, e.max, Some((m, sig))),
                            ));
                        }
                    }
                }
            }
            let map = SigMap::merged(&mut items);
            entries += map.len();
            if entries > max_entries {
                return Err(over());
            }
            maps.push(map);
        }
        Ok(ParseSignatures {
            maps,
            start,
            entries,
        })
    }

    /// Signature -> entry for whole paths (from the start node).
    pub fn at_start(&self) -> &SigMap {
        static EMPTY: SigMap = SigMap(Vec::new());
        self.maps.get(self.start as usize).unwrap_or(&EMPTY)
    }

    /// Entries held in all.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The lightest (`max` false) or heaviest whole path with signature
    /// `sig`, as nodes of the DAG the DP ran over (graph nodes, or product
    /// nodes for [`ParseSignatures::build_product`]), start first; ties go
    /// to the first in listing order.
    pub fn witness(&self, sig: u64, max: bool) -> Option<Vec<u32>> {
        let mut at = self.start;
        let mut s = sig;
        let mut path = vec![at];
        loop {
            let e = self.maps.get(at as usize)?.get(&s)?;
            match if max { e.max_via } else { e.min_via } {
                None => return Some(path),
                Some((m, ms)) => {
                    path.push(m);
                    at = m;
                    s = ms;
                }
            }
        }
    }
}

/// The signature bits of parse edges, computed once per parse state.
#[derive(Default)]
struct EdgeSigs(HashMap<p4cost_ir::StateId, Vec<(p4cost_ir::Target, u64)>>);

impl EdgeSigs {
    /// The bits of the edge from graph node `from` to `to` (a graph node or
    /// accept).
    fn get(&mut self, pg: &PathGraph<'_>, h: &TestedHeaders, from: u32, to: Next) -> u64 {
        if h.atoms.is_empty() {
            return 0;
        }
        let state = pg.state_id(from);
        let target = match to {
            Next::Accept => p4cost_ir::Target::Accept,
            Next::Node(m) => p4cost_ir::Target::State(pg.state_id(m)),
        };
        self.0
            .entry(state)
            .or_insert_with(|| h.edge_sigs(&pg.parser().state(state).transition))
            .iter()
            .find(|(t, _)| *t == target)
            .map_or(0, |(_, m)| *m)
    }
}

/// The signature of one parse path (graph nodes, start first).
pub fn path_signature(pg: &PathGraph<'_>, h: &TestedHeaders, nodes: &[u32]) -> u64 {
    Signer::default().sign(pg, h, nodes)
}

/// [`path_signature`] of each of `paths` (graph nodes of `pg`, start
/// first), in order: the bits of each graph node and parse edge worked out
/// once for them all (a listing's paths share most of their nodes).
pub fn path_signatures<'n>(
    pg: &PathGraph<'_>,
    h: &TestedHeaders,
    paths: impl IntoIterator<Item = &'n [u32]>,
) -> Vec<u64> {
    let mut signer = Signer::default();
    paths
        .into_iter()
        .map(|nodes| signer.sign(pg, h, nodes))
        .collect()
}

/// The signature bits of graph nodes and parse edges met so far, for one
/// graph and one set of tested headers.
#[derive(Default)]
struct Signer {
    edges: EdgeSigs,
    nodes: HashMap<u32, u64, foldhash::fast::FixedState>,
}

impl Signer {
    /// The signature of the parse path `nodes` of `pg`.
    fn sign(&mut self, pg: &PathGraph<'_>, h: &TestedHeaders, nodes: &[u32]) -> u64 {
        let mut sig = 0u64;
        for (i, &n) in nodes.iter().enumerate() {
            let bits = *self.nodes.entry(n).or_insert_with(|| h.visit_sig(pg, n));
            sig = h.compose(sig, bits);
            let to = nodes.get(i + 1).map_or(Next::Accept, |&m| Next::Node(m));
            sig = h.compose(sig, self.edges.get(pg, h, n, to));
        }
        sig
    }
}

/// A control state: node, known-valid bits (never overlapping the unknown
/// ones), unknown bits.
type Key = (u32, u64, u64);

/// A map keyed by control states. foldhash's fast fixed-seed hasher: a
/// state is three integers hashed millions of times, where SipHash (std's
/// default, built against hash flooding, which keys the program itself
/// picks cannot mount) was a fifth of the whole analysis.
pub(crate) type KeyMap<T> = HashMap<Key, T, foldhash::fast::FixedState>;

/// A set of control states (see [`KeyMap`]).
type KeySet = HashSet<Key, foldhash::fast::FixedState>;

/// A successor that is the end of the control, among state ids
/// ([`States`]).
const END_ID: u32 = u32::MAX;

/// The control states met so far, numbered in the order first met, and
/// the successors of those walked from ([`ControlClasses::succ_span`]),
/// as ids in one flat list: a state is hashed once, when first met, and
/// the walks (the summary's, the distribution's, the listing's) go by id,
/// with no allocation per state.
#[derive(Default)]
struct States {
    ids: KeyMap<u32>,
    keys: Vec<Key>,
    /// Per state, its successors' place in `succ` (`None`: not made yet).
    span: Vec<Option<(usize, usize)>>,
    /// Successor ids ([`END_ID`]: the end of the control).
    succ: Vec<u32>,
}

impl States {
    /// The id of `k`, numbered now if new; `None` past `u32` ids.
    fn intern(&mut self, k: Key) -> Option<u32> {
        use std::collections::hash_map::Entry;
        match self.ids.entry(k) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                let id = u32::try_from(self.keys.len())
                    .ok()
                    .filter(|&i| i != END_ID)?;
                e.insert(id);
                self.keys.push(k);
                self.span.push(None);
                Some(id)
            }
        }
    }
}

/// The value of state `id` in a memo indexed by state id, if it has one.
fn memo_get<T>(memo: &[Option<T>], id: u32) -> Option<&T> {
    memo.get(id as usize).and_then(Option::as_ref)
}

/// Sets the value of state `id` in a memo indexed by state id.
fn memo_set<T>(memo: &mut Vec<Option<T>>, id: u32, v: T) {
    let i = id as usize;
    if memo.len() <= i {
        // Doubled: ids come one by one.
        memo.resize_with((i + 1).max(2 * memo.len()), || None);
    }
    memo[i] = Some(v);
}

/// The buffers [`ControlClasses::succ`] works in.
#[derive(Default)]
struct SuccScratch {
    states: Vec<Option<Key>>,
    out: Vec<Option<Key>>,
    meet: Vec<Option<Key>>,
    trail: Vec<Key>,
    next: Vec<Option<Key>>,
}

/// Control paths from one state to the end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlEntry {
    /// Paths.
    pub count: PathCount,
    /// Least summed table weight.
    pub min: f64,
    /// Greatest summed table weight.
    pub max: f64,
    /// The successors (state ids; `None`: the end) the extremes go on to.
    min_via: Option<u32>,
    max_via: Option<u32>,
}

/// One path through a control.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ControlPath {
    /// Nodes visited, in order.
    pub nodes: Vec<NodeId>,
    /// Tables applied, in order.
    pub tables: Vec<TableId>,
}

/// The control-side DP, memoised across signatures.
pub struct ControlClasses<'a> {
    name: &'a str,
    flow: &'a ControlFlow,
    h: TestedHeaders,
    /// Tracked headers whose validity node `i` may change.
    effects: Vec<ValidityEffect>,
    /// Node `i`'s condition compiled against `h` (empty for other nodes).
    conds: Vec<compiled::Compiled>,
    /// Node `i`, or the first node after a run of plain statements and
    /// action calls starting at `i` ([`SKIP_END`]: the end of the control).
    skip: Vec<u32>,
    /// Per node, the items (headers, flags, atoms) some condition at or
    /// after it may test: the rest of a state is forgotten there.
    live: Vec<u64>,
    /// Per node, its ways on in canonical order ([`order`]) where that is
    /// not the order the reader gave.
    order: order::Orders,
    /// Per node, whether [`Self::settle`] stops there ([`stops_at`]).
    stops: Vec<bool>,
    /// Where a state settles ([`Self::settle`]), memoised.
    settled: std::cell::RefCell<KeyMap<Option<Key>>>,
    /// The states met so far and the successors of those walked
    /// ([`Self::succ_span`]): the summary, the distribution and each listed
    /// path walk them again.
    states: std::cell::RefCell<States>,
    /// Buffers of [`Self::succ`].
    scratch: std::cell::Cell<SuccScratch>,
    table_w: std::borrow::Cow<'a, [f64]>,
    /// Per state id, its [`ControlEntry`] once evaluated.
    memo: Vec<Option<ControlEntry>>,
    /// States in `memo`.
    memoised: usize,
    limit: usize,
}

impl<'a> ControlClasses<'a> {
    /// Prepares the walk of `control`, `table_w[t]` the weight of table
    /// `t` (indexed by [`TableId`]), at most `limit` memoised states.
    pub fn new(
        program: &'a Program,
        control: ControlId,
        table_w: &'a [f64],
        limit: usize,
    ) -> Result<ControlClasses<'a>, ClassError> {
        if table_w.len() < program.tables.len() {
            return Err(ClassError::Weights {
                what: "tables",
                needed: program.tables.len(),
                given: table_w.len(),
            });
        }
        Ok(Self::with_weights(
            program,
            control,
            std::borrow::Cow::Borrowed(table_w),
            limit,
        ))
    }

    /// [`Self::new`] with every table weighing nothing (for listing).
    pub fn new_unweighted(
        program: &'a Program,
        control: ControlId,
        limit: usize,
    ) -> Result<ControlClasses<'a>, ClassError> {
        let zeros = vec![0.0; program.tables.len()];
        Ok(Self::with_weights(
            program,
            control,
            std::borrow::Cow::Owned(zeros),
            limit,
        ))
    }

    fn with_weights(
        program: &'a Program,
        control: ControlId,
        table_w: std::borrow::Cow<'a, [f64]>,
        limit: usize,
    ) -> ControlClasses<'a> {
        let c = program.control(control);
        let h = TestedHeaders::of_program(program, &c.flow);
        let effects = validity_effects(program, &c.flow, &h);
        let skip = skip_plain_runs(program, &c.flow, &effects);
        let live = live_items(&c.flow, &h);
        let order = order::canonical_orders(program, &c.flow);
        let conds = c
            .flow
            .nodes
            .iter()
            .map(|n| match &n.kind {
                NodeKind::Condition { cond, .. } => compiled::Compiled::new(&h, cond),
                _ => compiled::Compiled::default(),
            })
            .collect();
        ControlClasses {
            name: &c.name,
            flow: &c.flow,
            h,
            effects,
            conds,
            skip,
            live,
            order,
            stops: (0..c.flow.nodes.len())
                .map(|n| stops_at(&program.tables, &c.flow, n))
                .collect(),
            settled: std::cell::RefCell::new(KeyMap::default()),
            states: std::cell::RefCell::default(),
            scratch: std::cell::Cell::default(),
            table_w,
            memo: Vec::new(),
            memoised: 0,
            limit,
        }
    }

    /// The tested headers.
    pub fn tested(&self) -> &TestedHeaders {
        &self.h
    }

    /// States memoised so far.
    pub fn states(&self) -> usize {
        self.memoised
    }

    /// The successors of state `id` ([`Self::succ`]), made once per state,
    /// as their place in [`States::succ`]: the DP's walks (the summary's,
    /// the distribution's) and those that come back to a state for every
    /// listed path (the listing, the witnesses' ranks) share them. `None`
    /// past `u32` state ids.
    fn succ_span(&self, id: u32) -> Option<(usize, usize)> {
        let key = {
            let st = self.states.borrow();
            if let Some(span) = st.span[id as usize] {
                return Some(span);
            }
            st.keys[id as usize]
        };
        // The walk's buffers, kept across calls (no allocation per state).
        let mut sc = self.scratch.take();
        self.succ(key, &mut sc);
        let mut st = self.states.borrow_mut();
        let start = st.succ.len();
        for &s in &sc.out {
            match s.map_or(Some(END_ID), |k| st.intern(k)) {
                Some(v) => st.succ.push(v),
                None => {
                    st.succ.truncate(start);
                    self.scratch.replace(sc);
                    return None;
                }
            }
        }
        self.scratch.replace(sc);
        let span = (start, st.succ.len());
        st.span[id as usize] = Some(span);
        Some(span)
    }

    /// Successor states of `k` (`None` = end of the control) into
    /// `sc.out`, deduplicated, runs of plain statements jumped over: they
    /// apply no table and change no tracked validity, so they neither fork
    /// nor weigh, and memoising them would cost a state per statement. A state keeps only the items
    /// still tested from its node on.
    ///
    /// Successors come in the canonical order of [`order`] (the order
    /// class ids number control paths in), so a source and its compiled
    /// JSON number a class alike.
    ///
    /// Ways that meet before they part again are one way: two successors
    /// that [settle](Self::settle) on the same state are one (the first is
    /// kept). A class is told apart by the tables it applies and the forks
    /// it takes, not by the assignments, decided tests or `return`s it
    /// passed on the way, which compilers rewrite freely (p4c drops dead
    /// assignments, makes statements into `tbl_*` tables and `return` into a
    /// flag and a test).
    fn succ(&self, k: Key, sc: &mut SuccScratch) {
        succ_states(
            self.flow,
            &self.conds,
            &self.effects,
            &self.order,
            k,
            &mut sc.states,
        );
        sc.out.clear();
        sc.meet.clear();
        for &s in &sc.states {
            let s = self.enter(s.map(|(n, v, u)| (NodeId(n), v, u)));
            let at = self.settle_in(s, &mut sc.trail, &mut sc.next);
            if !sc.meet.contains(&at) {
                sc.meet.push(at);
                sc.out.push(s);
            }
        }
    }

    /// The id of state `k` ([`States`]), numbered now if new.
    fn id(&self, k: Key) -> Option<u32> {
        self.states.borrow_mut().intern(k)
    }

    /// The id of state `k` if it was met.
    fn known_id(&self, k: Key) -> Option<u32> {
        self.states.borrow().ids.get(&k).copied()
    }

    /// The successor at `i` of [`States::succ`] ([`Self::succ_span`]):
    /// `None` for the end of the control.
    fn succ_key(&self, i: usize) -> Option<Key> {
        let st = self.states.borrow();
        let s = st.succ[i];
        (s != END_ID).then(|| st.keys[s as usize])
    }

    /// The state at node `n` (plain runs jumped) with `valid` / `unknown`,
    /// keeping only the items tested from there on.
    fn enter(&self, s: Option<(NodeId, u64, u64)>) -> Option<Key> {
        let (n, v, u) = s?;
        let m = self.jump(n.0)?;
        // No list: nothing is tested anywhere ([`live_items`]).
        let live = self.live.get(m as usize).copied().unwrap_or(0);
        Some((m, v & live, u & live))
    }

    /// Where state `s` goes while it has one way to go: past nodes that
    /// neither fork nor weigh (decided tests, statements that set tracked
    /// items, a compiler's action-call tables, `exit`) to the first table
    /// of the program, undecided fork, or the end (`None`).
    pub(crate) fn settle(&self, s: Option<Key>) -> Option<Key> {
        let (mut trail, mut next) = (Vec::new(), Vec::new());
        self.settle_in(s, &mut trail, &mut next)
    }

    /// [`Self::settle`] with buffers for its trail and the successors of
    /// a step (their contents on entry do not matter).
    fn settle_in(
        &self,
        s: Option<Key>,
        trail: &mut Vec<Key>,
        next: &mut Vec<Option<Key>>,
    ) -> Option<Key> {
        let start = s?;
        if let Some(&done) = self.settled.borrow().get(&start) {
            return done;
        }
        trail.clear();
        let mut at = Some(start);
        let end = loop {
            let Some(k) = at else { break None };
            if self.stops(k.0) || trail.len() > self.flow.nodes.len() {
                break Some(k);
            }
            // (`start` was looked up above.)
            if k != start {
                if let Some(&done) = self.settled.borrow().get(&k) {
                    break done;
                }
            }
            succ_states(self.flow, &self.conds, &self.effects, &self.order, k, next);
            if next.len() != 1 {
                break Some(k);
            }
            trail.push(k);
            at = self.enter(next[0].map(|(n, v, u)| (NodeId(n), v, u)));
        };
        let mut memo = self.settled.borrow_mut();
        if memo.len() + trail.len() > self.limit {
            memo.clear(); // a cache only: bounded memory, same answers
        }
        memo.insert(start, end);
        for &k in trail.iter() {
            memo.insert(k, end);
        }
        end
    }

    /// True for a node [`Self::settle`] stops at ([`stops_at`]).
    fn stops(&self, n: u32) -> bool {
        self.stops.get(n as usize).copied().unwrap_or(false)
    }

    /// Where the way from state `k` to its successor node `n` settles.
    fn arm(&self, k: Key, n: Option<NodeId>) -> Option<Key> {
        let (valid, unknown) = self
            .effects
            .get(k.0 as usize)
            .map_or((k.1, k.2), |e| e.apply(k.1, k.2));
        let n = n.filter(|n| n.index() < self.flow.nodes.len())?;
        self.settle(self.enter(Some((n, valid, unknown))))
    }

    /// The value of state `k`'s condition (`None`: unknown, or not a
    /// condition).
    fn eval_node(&self, k: Key) -> Option<bool> {
        self.conds.get(k.0 as usize)?.eval(k.1, k.2)
    }

    /// Where node `n` leads once plain runs are skipped (`None`: the end).
    fn jump(&self, n: u32) -> Option<u32> {
        match self.skip.get(n as usize) {
            Some(&SKIP_END) => None,
            Some(&m) => Some(m),
            None => Some(n),
        }
    }

    fn weight(&self, n: u32) -> f64 {
        match &self.flow.nodes[n as usize].kind {
            NodeKind::Table { table, .. } => self.table_w[table.index()],
            _ => 0.0,
        }
    }

    /// The control state a packet with signature `sig` enters: the first
    /// node after any plain run, with the signature's known and unknown
    /// items. `None` when the control has no entry or only plain
    /// statements (one control path, applying nothing).
    fn root(&self, sig: u64) -> Option<Key> {
        let entry = self
            .flow
            .entry
            .filter(|e| e.index() < self.flow.nodes.len())?;
        let (valid, unknown) = self.h.initial(sig);
        self.enter(Some((entry, valid, unknown)))
    }

    /// Fills `memo` (indexed by state id; `memoised` counts its values)
    /// for state `root` and every control state reachable from it that
    /// `memo` lacks, successors first (an edge back to a state on the
    /// walk's stack is cut): `finish(id, state, successors, memo)` gives a
    /// state's value once its successors have theirs. Iterative. `false`
    /// when the states memoised and on the stack would reach `limit`.
    fn post_order<T>(
        &self,
        root: u32,
        (memo, memoised): (&mut Vec<Option<T>>, &mut usize),
        limit: usize,
        mut finish: impl FnMut(u32, Key, &[u32], &[Option<T>]) -> T,
    ) -> bool {
        struct Frame {
            id: u32,
            from: usize,
            at: usize,
            end: usize,
        }
        let mut on_stack: Vec<bool> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let push = |stack: &mut Vec<Frame>, on_stack: &mut Vec<bool>, id: u32| {
            let Some((from, end)) = self.succ_span(id) else {
                return false;
            };
            if on_stack.len() <= id as usize {
                on_stack.resize((id as usize + 1).max(2 * on_stack.len()), false);
            }
            on_stack[id as usize] = true;
            stack.push(Frame {
                id,
                from,
                at: from,
                end,
            });
            true
        };
        if memo_get(memo, root).is_none() && !push(&mut stack, &mut on_stack, root) {
            return false;
        }
        while let Some(top) = stack.last_mut() {
            if top.at < top.end {
                let s = self.states.borrow().succ[top.at];
                top.at += 1;
                let seen = |s: u32| on_stack.get(s as usize).copied().unwrap_or(false);
                if s == END_ID || memo_get(memo, s).is_some() || seen(s) {
                    continue; // the end, done, or a cycle edge (cut)
                }
                if *memoised + stack.len() >= limit || !push(&mut stack, &mut on_stack, s) {
                    return false;
                }
            } else if let Some(done) = stack.pop() {
                on_stack[done.id as usize] = false;
                let v = {
                    let st = self.states.borrow();
                    let key = st.keys[done.id as usize];
                    finish(done.id, key, &st.succ[done.from..done.end], memo)
                };
                memo_set(memo, done.id, v);
                *memoised += 1;
            }
        }
        true
    }

    /// The error for more control states than the limit.
    fn over_limit(&self) -> ClassError {
        ClassError::ControlStates {
            control: self.name.to_string(),
            limit: self.limit,
        }
    }

    /// Control paths (and weight extremes) for a packet whose tested
    /// headers in `sig` are valid and the others invalid.
    pub fn eval(&mut self, sig: u64) -> Result<ControlEntry, ClassError> {
        let Some(root) = self.root(sig) else {
            return Ok(ControlEntry {
                count: ONE,
                min: 0.0,
                max: 0.0,
                min_via: None,
                max_via: None,
            });
        };
        let root = self.id(root).ok_or_else(|| self.over_limit())?;
        let mut memo = std::mem::take(&mut self.memo);
        let mut memoised = self.memoised;
        let within = self.post_order(
            root,
            (&mut memo, &mut memoised),
            self.limit,
            |_, key, succ, memo| self.entry(key, succ, memo),
        );
        self.memo = memo;
        self.memoised = memoised;
        if !within {
            return Err(self.over_limit());
        }
        memo_get(&self.memo, root)
            .copied()
            .ok_or_else(|| self.over_limit())
    }

    /// The entry of state `key` from its successors' (ids) in `memo`.
    fn entry(&self, key: Key, succ: &[u32], memo: &[Option<ControlEntry>]) -> ControlEntry {
        let mut e = ControlEntry {
            count: PathCount::default(),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            min_via: None,
            max_via: None,
        };
        let mut take = |count: PathCount, min: f64, max: f64, via: Option<u32>| {
            if count.value == 0 && !count.saturated {
                return;
            }
            e.count = e.count.plus(count);
            if min < e.min {
                e.min = min;
                e.min_via = via;
            }
            if max > e.max {
                e.max = max;
                e.max_via = via;
            }
        };
        if succ.is_empty() {
            take(ONE, 0.0, 0.0, None); // exit
        }
        for &s in succ {
            if s == END_ID {
                take(ONE, 0.0, 0.0, None);
            } else if let Some(c) = memo_get(memo, s) {
                take(c.count, c.min, c.max, Some(s));
            }
        }
        let w = self.weight(key.0);
        e.min += w;
        e.max += w;
        e
    }

    /// The ids of the lightest (`max` false) or heaviest control path for
    /// `sig`, in order (after [`ControlClasses::eval`] of `sig`).
    fn witness_ids(&self, sig: u64, max: bool) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = self.root(sig).and_then(|k| self.known_id(k));
        while let Some(id) = at {
            let Some(e) = memo_get(&self.memo, id) else {
                break;
            };
            out.push(id);
            at = if max { e.max_via } else { e.min_via };
            if out.len() > self.memoised {
                break; // a via chain never loops; stay bounded regardless
            }
        }
        out
    }

    /// The keys of the lightest (`max` false) or heaviest control path for
    /// `sig`, in order (after [`ControlClasses::eval`] of `sig`).
    fn witness_keys(&self, sig: u64, max: bool) -> Vec<Key> {
        let st = self.states.borrow();
        let ids = self.witness_ids(sig, max);
        ids.into_iter().map(|id| st.keys[id as usize]).collect()
    }

    /// The lightest (`max` false) or heaviest control path for `sig`
    /// (after [`ControlClasses::eval`] of `sig`).
    pub fn witness(&self, sig: u64, max: bool) -> ControlPath {
        let mut out = ControlPath::default();
        for k in self.witness_keys(sig, max) {
            out.nodes.push(NodeId(k.0));
            if let NodeKind::Table { table, .. } = self.flow.nodes[k.0 as usize].kind {
                out.tables.push(table);
            }
        }
        out
    }

    /// The position (0-based, in listing order: the order
    /// [`ClassLister::list`] lists a parse path's classes) of the lightest
    /// (`max` false) or heaviest control path for `sig` among all control
    /// paths for `sig` (after [`ControlClasses::eval`] of `sig`): at each
    /// state of the path, the paths through the successors before the one
    /// taken.
    pub fn witness_rank(&self, sig: u64, max: bool) -> PathCount {
        let mut rank = PathCount::default();
        for id in self.witness_ids(sig, max) {
            let Some(e) = memo_get(&self.memo, id) else {
                continue;
            };
            let chosen = if max { e.max_via } else { e.min_via };
            let Some((from, end)) = self.succ_span(id) else {
                continue;
            };
            let st = self.states.borrow();
            for &s in &st.succ[from..end] {
                if (s != END_ID).then_some(s) == chosen {
                    break;
                }
                rank = rank.plus(match s {
                    END_ID => ONE,
                    s => memo_get(&self.memo, s).map_or(PathCount::default(), |c| c.count),
                });
            }
        }
        rank
    }
}

/// True for a node [`ControlClasses::settle`] stops at: a table of the
/// program's own (`tables`; not a compiler's action-call table), or an
/// `exit` that goes on to egress.
fn stops_at(tables: &[p4cost_ir::Table], flow: &ControlFlow, n: usize) -> bool {
    match &flow.nodes[n].kind {
        NodeKind::Table { table, .. } => tables
            .get(table.index())
            .is_none_or(|t| !t.is_action_call()),
        NodeKind::Statement { what, .. } => what == crate::gresses::EXIT_TO_EGRESS,
        _ => false,
    }
}

/// What a node does to the tracked headers' validity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ValidityEffect {
    /// Headers whose validity the node may change (any write).
    writes: u64,
    /// Of those, the ones it leaves valid for certain.
    set_valid: u64,
    /// Of those, the ones it leaves invalid for certain.
    set_invalid: u64,
}

impl ValidityEffect {
    /// The state after the node: headers set for certain are known, the
    /// other written ones unknown, the rest as they were.
    fn apply(self, valid: u64, unknown: u64) -> (u64, u64) {
        let known = self.set_valid | self.set_invalid;
        let unknown2 = (unknown | self.writes) & !known;
        let valid2 = (valid & !unknown2 & !self.set_invalid) | self.set_valid;
        (valid2, unknown2)
    }
}

/// Per node of `flow`, its [`ValidityEffect`] on the headers of `h`:
/// statements and direct action calls by their writes and certain sets; a
/// table by its actions' writes (any of them may run), and a header set the
/// same way by every action it may run (its actions and its default
/// action) as set for certain.
fn validity_effects(
    program: &Program,
    flow: &ControlFlow,
    h: &TestedHeaders,
) -> Vec<ValidityEffect> {
    let mut memo = EffectMemo {
        program,
        h,
        masks: HashMap::default(),
        actions: vec![None; program.actions.len()],
    };
    flow.nodes
        .iter()
        .map(|n| {
            if h.items() == 0 && h.atoms.is_empty() {
                return ValidityEffect::default();
            }
            match &n.kind {
                NodeKind::Statement {
                    writes,
                    validity,
                    flags,
                    ..
                } => memo.of(writes, validity, flags.as_slice()),
                NodeKind::Action { action: a, .. } => memo.action(*a),
                NodeKind::Table { table, .. } => memo.table(*table),
                _ => ValidityEffect::default(),
            }
        })
        .collect()
}

/// What [`validity_effects`] makes once: each written field's mask
/// (statements and actions write the same fields over and over, and a
/// mask is a pass over every item) and each action's effect (tables share
/// their actions).
struct EffectMemo<'a, 'h> {
    program: &'a Program,
    h: &'h TestedHeaders,
    masks: HashMap<&'a str, u64, foldhash::fast::FixedState>,
    actions: Vec<Option<ValidityEffect>>,
}

impl<'a> EffectMemo<'a, '_> {
    /// The mask of the items a write of field `w` may change.
    fn mask(&mut self, w: &'a str) -> u64 {
        if let Some(&m) = self.masks.get(w) {
            return m;
        }
        let m = self.h.mask_of_write(w);
        self.masks.insert(w, m);
        m
    }

    /// The effect of writing `ws` and setting `sets` and `flags` for certain.
    fn of(
        &mut self,
        ws: &'a [String],
        sets: &[p4cost_ir::ValiditySet],
        flags: &[p4cost_ir::FlagSet],
    ) -> ValidityEffect {
        let writes = ws.iter().fold(0u64, |m, w| m | self.mask(w));
        let (mut set_valid, mut set_invalid) = (0u64, 0u64);
        let known = sets
            .iter()
            .map(|s| (s.header.as_str(), s.valid))
            .chain(flags.iter().map(|f| (f.field.as_str(), f.value)));
        for (name, valid) in known {
            if let Some(b) = self.h.bit(name) {
                if valid {
                    set_valid |= 1 << b;
                } else {
                    set_invalid |= 1 << b;
                }
            }
        }
        ValidityEffect {
            writes: writes | set_valid | set_invalid,
            set_valid,
            set_invalid,
        }
    }

    /// Action `a`'s effect (none for an id out of range).
    fn action(&mut self, a: p4cost_ir::ActionId) -> ValidityEffect {
        if let Some(Some(e)) = self.actions.get(a.index()) {
            return *e;
        }
        let program = self.program;
        let e = program
            .actions
            .get(a.index())
            .map_or(ValidityEffect::default(), |a| {
                self.of(&a.writes, &a.validity, &a.flags)
            });
        if let Some(slot) = self.actions.get_mut(a.index()) {
            *slot = Some(e);
        }
        e
    }

    /// A table's effect: the writes of any action it may run (its actions
    /// and its default action), a header set only when every one sets it.
    fn table(&mut self, table: p4cost_ir::TableId) -> ValidityEffect {
        let program = self.program;
        let Some(t) = program.tables.get(table.index()) else {
            return ValidityEffect::default();
        };
        let mut all = t.actions.iter().chain(t.default_action.iter());
        let Some(first) = all.next() else {
            return ValidityEffect::default();
        };
        let first = self.action(*first);
        all.fold(first, |m, a| {
            let e = self.action(*a);
            ValidityEffect {
                writes: m.writes | e.writes,
                set_valid: m.set_valid & e.set_valid,
                set_invalid: m.set_invalid & e.set_invalid,
            }
        })
    }
}

/// Successor states of `k`, deduplicated; an out-of-range node is the end.
/// Marks "the end of the control" in [`ControlClasses::skip`].
const SKIP_END: u32 = u32::MAX;

/// Per node of `flow`, the items of `h` (header, flag and atom bits) that
/// a condition at the node or after it may test (an empty list when no
/// condition tests any): backward reachability of
/// the tests, iterated to a fixed point (each mask only grows, so at most
/// 64 rounds of growth per node). An item tested nowhere after a node is
/// forgotten there, so states that differ only in it are one.
fn live_items(flow: &ControlFlow, h: &TestedHeaders) -> Vec<u64> {
    let n = flow.nodes.len();
    let mut live = vec![0u64; n];
    for (i, node) in flow.nodes.iter().enumerate() {
        if let NodeKind::Condition { cond, .. } = &node.kind {
            live[i] = h.items_of(cond);
        }
    }
    if live.iter().all(|&m| m == 0) {
        return Vec::new(); // nothing is tested anywhere
    }
    // Predecessors, compressed: `from[at[i]..at[i + 1]]` lead to node `i`.
    let edges = || {
        flow.nodes.iter().enumerate().flat_map(move |(i, node)| {
            node.successors()
                .into_iter()
                .flatten()
                .filter(move |s| s.index() < n)
                .map(move |s| (i as u32, s.index()))
        })
    };
    let mut at = vec![0u32; n + 1];
    for (_, s) in edges() {
        at[s + 1] += 1;
    }
    for i in 0..n {
        at[i + 1] += at[i];
    }
    let mut fill = at.clone();
    let mut from = vec![0u32; at[n] as usize];
    for (p, s) in edges() {
        from[fill[s] as usize] = p;
        fill[s] += 1;
    }
    let mut work: Vec<u32> = (0..n as u32).filter(|&i| live[i as usize] != 0).collect();
    while let Some(i) = work.pop() {
        let m = live[i as usize];
        for &p in &from[at[i as usize] as usize..at[i as usize + 1] as usize] {
            let before = live[p as usize];
            if before | m != before {
                live[p as usize] = before | m;
                work.push(p);
            }
        }
    }
    live
}

/// For every node, itself, or when it is a plain statement or action call
/// (one successor, no tracked validity write; an ingress `exit` leading on
/// to egress is not plain), the first node after the
/// run of such nodes it starts ([`SKIP_END`] when the run ends the
/// control). Linear: each run is followed once (path compression).
fn skip_plain_runs(program: &Program, flow: &ControlFlow, effects: &[ValidityEffect]) -> Vec<u32> {
    const UNSET: u32 = u32::MAX - 1;
    let n = flow.nodes.len();
    let plain = |i: usize| -> Option<Option<NodeId>> {
        let quiet = effects.get(i).is_none_or(|e| e.writes == 0);
        match &flow.nodes[i].kind {
            NodeKind::Statement { what, .. } if what == crate::gresses::EXIT_TO_EGRESS => None,
            NodeKind::Statement { next, .. } | NodeKind::Action { next, .. } if quiet => {
                Some(*next)
            }
            // A compiler's table for a direct action call is the source's
            // action call.
            NodeKind::Table {
                table,
                next: TableNext::Always { next },
            } if quiet
                && program
                    .tables
                    .get(table.index())
                    .is_some_and(|t| t.is_action_call()) =>
            {
                Some(*next)
            }
            _ => None,
        }
    };
    let mut skip = vec![UNSET; n];
    for i in 0..n {
        let mut run: Vec<usize> = Vec::new();
        let mut cur = i;
        let target = loop {
            if skip[cur] != UNSET {
                break skip[cur];
            }
            match plain(cur) {
                None => break cur as u32,
                Some(next) => {
                    run.push(cur);
                    match next {
                        Some(m) if m.index() < n && run.len() <= n => cur = m.index(),
                        _ => break SKIP_END,
                    }
                }
            }
        };
        for r in run {
            skip[r] = target;
        }
        if skip[i] == UNSET {
            skip[i] = target;
        }
    }
    skip
}

/// Successor states of `k`, in the canonical order of `order`, into `out`
/// (cleared first: one buffer serves a whole walk).
fn succ_states(
    flow: &ControlFlow,
    conds: &[compiled::Compiled],
    effects: &[ValidityEffect],
    order: &order::Orders,
    k: Key,
    out: &mut Vec<Option<Key>>,
) {
    let (n, valid, unknown) = k;
    let node = &flow.nodes[n as usize];
    let canonical = order.get(n as usize).and_then(|o| o.as_deref());
    let (valid2, unknown2) = effects
        .get(n as usize)
        .map_or((valid, unknown), |e| e.apply(valid, unknown));
    let to = |s: Option<NodeId>| -> Option<Key> {
        s.filter(|s| s.index() < flow.nodes.len())
            .map(|s| (s.0, valid2, unknown2))
    };
    out.clear();
    let mut push = |s: Option<Key>| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    match &node.kind {
        NodeKind::Condition {
            then_next,
            else_next,
            ..
        } => match conds.get(n as usize).and_then(|c| c.eval(valid, unknown)) {
            Some(true) => push(to(*then_next)),
            Some(false) => push(to(*else_next)),
            None => match canonical {
                Some(ways) => ways.iter().for_each(|&s| push(to(s))),
                None => {
                    push(to(*then_next));
                    push(to(*else_next));
                }
            },
        },
        _ => match canonical {
            Some(ways) => ways.iter().for_each(|&s| push(to(s))),
            None => node.successors().into_iter().for_each(|s| push(to(s))),
        },
    }
}

/// The lightest or heaviest packet class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassExtreme {
    /// Parse weight plus control weight.
    pub value: f64,
    /// The parse path (graph nodes, start first).
    pub parse_path: Vec<u32>,
    /// The control path.
    pub control_path: ControlPath,
    /// Its position among the parse path's classes in listing order
    /// (0-based; what [`ListedClass::index`] would be).
    pub rank: PathCount,
}

/// Counts and extremes of the packet classes of a parser and a control.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSummary {
    /// Classes: (parse path, control path) pairs, saturating.
    pub classes: PathCount,
    /// Parse paths (the same as the graph's total).
    pub parse_paths: PathCount,
    /// Distinct signatures among whole parse paths.
    pub signatures: usize,
    /// The tested headers (H).
    pub tested: Vec<String>,
    /// The tracked field comparisons ([`atoms::Atom::text`]).
    pub fields: Vec<String>,
    /// The tracked flags ([`TestedHeaders::flags`]).
    pub flags: Vec<String>,
    /// Why some validity tests are undecidable, if any are.
    pub note: Option<String>,
    /// The lightest class (`None` without parse paths).
    pub min: Option<ClassExtreme>,
    /// The heaviest class.
    pub max: Option<ClassExtreme>,
}

/// Counts the packet classes of parse graph `pg` and `control` and finds
/// the lightest and heaviest, `parse_w[n]` the weight of parse node `n`,
/// `table_w[t]` that of table `t`. Linear in the DP sizes; no path is
/// enumerated.
pub fn packet_classes(
    program: &Program,
    control: ControlId,
    pg: &PathGraph<'_>,
    parse_w: &[f64],
    table_w: &[f64],
    budget: &ClassBudget,
) -> Result<ClassSummary, ClassError> {
    let mut cc = ControlClasses::new(program, control, table_w, budget.max_control_states)?;
    let ps = ParseSignatures::build(pg, &cc.h, parse_w, budget.max_signature_entries)?;
    summarize(&ps, &mut cc)
}

/// [`packet_classes`] over a product of the parse graph with an automaton
/// (the linear model's baseline flag: a state's cost depends on whether a
/// program header came before it), `parse_w[i]` the weight of product
/// node `i`, through the control `cc` walks (its memo is kept, so later
/// [`ControlClasses::eval`]s of the same signatures are lookups). The
/// witnesses' parse paths are product nodes.
pub fn packet_classes_over_product<S: Copy + Eq + std::hash::Hash>(
    cc: &mut ControlClasses<'_>,
    pg: &PathGraph<'_>,
    prod: &crate::Product<S>,
    parse_w: &[f64],
    budget: &ClassBudget,
) -> Result<ClassSummary, ClassError> {
    let ps =
        ParseSignatures::build_product(pg, prod, &cc.h, parse_w, budget.max_signature_entries)?;
    summarize(&ps, cc)
}

/// Totals and extremes over signatures.
fn summarize(
    ps: &ParseSignatures,
    cc: &mut ControlClasses<'_>,
) -> Result<ClassSummary, ClassError> {
    let mut classes = PathCount::default();
    let mut parse_paths = PathCount::default();
    let mut best: [Option<(f64, u64)>; 2] = [None, None];
    for (&sig, pe) in ps.at_start() {
        let ce = cc.eval(sig)?;
        parse_paths = parse_paths.plus(pe.count);
        classes = classes.plus(times(pe.count, ce.count));
        if ce.count.value == 0 && !ce.count.saturated {
            continue;
        }
        let lo = pe.min + ce.min;
        let hi = pe.max + ce.max;
        if best[0].is_none_or(|(b, _)| lo < b) {
            best[0] = Some((lo, sig));
        }
        if best[1].is_none_or(|(b, _)| hi > b) {
            best[1] = Some((hi, sig));
        }
    }
    let ext = |i: usize| {
        best[i].map(|(value, sig)| ClassExtreme {
            value,
            parse_path: ps.witness(sig, i == 1).unwrap_or_default(),
            control_path: cc.witness(sig, i == 1),
            rank: cc.witness_rank(sig, i == 1),
        })
    };
    Ok(ClassSummary {
        classes,
        parse_paths,
        signatures: ps.at_start().len(),
        tested: cc.h.names.clone(),
        fields: cc.h.atoms.iter().map(atoms::Atom::text).collect(),
        flags: cc.h.flags.clone(),
        note: cc.h.note.clone(),
        min: ext(0),
        max: ext(1),
    })
}

/// The saturating product of two counts.
fn times(a: PathCount, b: PathCount) -> PathCount {
    let zero = |c: PathCount| c.value == 0 && !c.saturated;
    if zero(a) || zero(b) {
        return PathCount::default();
    }
    match a.value.checked_mul(b.value) {
        Some(v) => PathCount {
            value: v,
            saturated: a.saturated || b.saturated,
        },
        None => PathCount {
            value: u128::MAX,
            saturated: true,
        },
    }
}

/// A table of the control that a class does not apply, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTable {
    /// The table.
    pub table: TableId,
    /// Its name (shared by every class that skips it).
    pub name: Arc<str>,
    /// Why: `hdr.ipv6 invalid on this path`, `on miss of acl`,
    /// `action_run = drop`, `branch not taken: <condition>` (shared by
    /// every class that skips a table at the same step).
    pub reason: Arc<str>,
}

/// What a class's control path took at a node with more than one way on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// An `if`: the branch taken (`true`: then).
    Branch(bool),
    /// A table whose successors differ on hit and miss: hit (`true`) or
    /// miss.
    Hit(bool),
    /// A `switch (t.apply().action_run)`: the actions of the arm taken,
    /// and whether that arm is also the one for actions without a case.
    ActionRun {
        /// Actions whose case leads where the class went.
        actions: Vec<ActionId>,
        /// True when the default (no case) leads there too.
        default: bool,
    },
}

impl Outcome {
    /// For an `action_run` arm, its actions' names joined by ` | `, then
    /// `default_label` when the arm is also the one for actions without a
    /// case; `None` for other outcomes.
    pub fn arm_text(&self, program: &Program, default_label: &str) -> Option<String> {
        let Outcome::ActionRun { actions, default } = self else {
            return None;
        };
        // Each action by the last component of its name, in one order:
        // p4c qualifies a control's actions (`ingress.on_miss`) where a
        // source names them `on_miss`, and lists the arms in the table's
        // order where a source gives its cases' order.
        let mut names: Vec<&str> = actions
            .iter()
            .map(|a| {
                program.actions.get(a.index()).map_or("?", |a| {
                    a.name.rsplit('.').next().unwrap_or(a.name.as_str())
                })
            })
            .collect();
        names.sort_by_key(|n| (n.to_ascii_lowercase(), *n));
        names.dedup();
        if *default {
            names.push(default_label);
        }
        Some(names.join(" | "))
    }
}

/// A condition node's text: its structured condition, or the expression
/// as the reader kept it when there is none.
pub fn condition_text(cond: &Cond, expr: &str) -> String {
    if cond.nodes.is_empty() {
        expr.to_string()
    } else {
        cond.text()
    }
}

/// One decision of a class: at `node`, `outcome`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The condition or table node of the control flow.
    pub node: NodeId,
    /// What was taken there.
    pub outcome: Outcome,
    /// True when the parse path decided it (a condition on header validity
    /// that is known on this path): no other class of the path goes the
    /// other way.
    pub forced: bool,
}

/// One listed class of a parse path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListedClass {
    /// Its position among all the classes of the parse path, in control
    /// order (0-based), whichever are listed.
    pub index: u128,
    /// The control path.
    pub control_path: ControlPath,
    /// At every node of the path with more than one way on, the way taken.
    pub decisions: Vec<Decision>,
    /// Every table of the control it does not apply, in control order.
    pub skipped: Vec<SkippedTable>,
}

/// The classes of one parse path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassListing {
    /// The parse path's signature.
    pub signature: u64,
    /// All its classes (control paths consistent with the signature).
    pub total: PathCount,
    /// The first ones in control order.
    pub classes: Vec<ListedClass>,
    /// True when `classes` holds fewer than `total`.
    pub truncated: bool,
}

/// Lists up to `max` classes of the parse path `parse_path` (graph nodes of
/// `pg`, start first) through `control`, each with its tables and the
/// reasons the others are skipped. Bounded by `budget.max_list_work` steps
/// (and `budget.max_control_states` for the total).
pub fn list_classes(
    program: &Program,
    control: ControlId,
    pg: &PathGraph<'_>,
    parse_path: &[u32],
    max: usize,
    budget: &ClassBudget,
) -> Result<ClassListing, ClassError> {
    ClassLister::new(program, control, budget)?.list(pg, parse_path, max, &|_| true)
}

/// Lists the classes of parse paths through one control; the control's
/// memoised walk and reachability are shared by every path listed.
pub struct ClassLister<'a> {
    program: &'a Program,
    control: ControlId,
    cc: ControlClasses<'a>,
    tables: Vec<TableId>,
    /// The names of `tables`, made once and shared by every class listed.
    names: TableNames,
    reach: Option<Reach>,
    budget: ClassBudget,
    /// Steps taken so far, against `budget.max_list_work`.
    work: usize,
    /// What each step met so far says (shared by every class listed).
    facts: StepCache,
    /// In a control joined by [`crate::join_egress`], the first node that is
    /// not an ingress one: validity there is said to be "in egress".
    egress_from: Option<u32>,
    /// The class being made and its steps, kept from class to class.
    scratch: Scratch,
}

impl<'a> ClassLister<'a> {
    /// Prepares listing through `control` within `budget` (its
    /// `max_list_work` bounds the work of every listing together).
    pub fn new(
        program: &'a Program,
        control: ControlId,
        budget: &ClassBudget,
    ) -> Result<ClassLister<'a>, ClassError> {
        let cc = ControlClasses::new_unweighted(program, control, budget.max_control_states)?;
        Self::with_classes(program, control, cc, budget)
    }

    /// [`Self::new`] over a walk of `control` made already (with table
    /// weights, perhaps memoised by a summary), so
    /// [`Self::extreme`] finds the lightest and heaviest class by its
    /// weights.
    pub fn with_classes(
        program: &'a Program,
        control: ControlId,
        cc: ControlClasses<'a>,
        budget: &ClassBudget,
    ) -> Result<ClassLister<'a>, ClassError> {
        let flow = &program.control(control).flow;
        let tables = flow.tables();
        let mut work = 0usize;
        let reach = match flow.entry.filter(|e| e.index() < flow.nodes.len()) {
            Some(_) => Some(
                Reach::build(flow, &tables, budget.max_list_work, &mut work).ok_or_else(|| {
                    ClassError::ListWork {
                        control: program.control(control).name.clone(),
                        limit: budget.max_list_work,
                    }
                })?,
            ),
            None => None,
        };
        let names = TableNames::new(program, &tables);
        Ok(ClassLister {
            program,
            control,
            cc,
            tables,
            names,
            reach,
            budget: *budget,
            work,
            facts: StepCache::default(),
            egress_from: None,
            scratch: Scratch::default(),
        })
    }

    /// Says that `control` was joined by [`crate::join_egress`] and its
    /// nodes from `ingress_nodes` on are egress ones: a skip reason
    /// decided there says the validity is that of egress (after the egress
    /// parser), not of the parse path.
    pub fn with_egress_from(mut self, ingress_nodes: usize) -> Self {
        self.egress_from = u32::try_from(ingress_nodes).ok();
        self
    }

    /// The walk of the control the lister lists by (its weights those it
    /// was made with).
    pub fn control_classes(&mut self) -> &mut ControlClasses<'a> {
        &mut self.cc
    }

    /// The lightest (`max` false) or heaviest class of the parse path
    /// `parse_path` (graph nodes of `pg`, start first) by the lister's
    /// table weights, with its summed table weight: the class
    /// [`ControlClasses::eval`]'s extreme stands for, described as
    /// [`Self::list`] describes it (its `index` its place in that
    /// listing), however far down the listing it is.
    pub fn extreme(
        &mut self,
        pg: &PathGraph<'_>,
        parse_path: &[u32],
        max: bool,
    ) -> Result<(f64, ListedClass), ClassError> {
        let sig = self.signature(pg, parse_path)?;
        self.extreme_of(sig, max)
    }

    /// [`Self::list`] and [`Self::extreme`] of one parse path, its
    /// signature worked out once: the listing's classes and its lightest
    /// (`max` false) or heaviest class.
    pub fn list_and_extreme(
        &mut self,
        pg: &PathGraph<'_>,
        parse_path: &[u32],
        (max_classes, keep): (usize, &dyn Fn(&ListedClass) -> bool),
        max: bool,
    ) -> Result<(ClassListing, (f64, ListedClass)), ClassError> {
        let sig = self.signature(pg, parse_path)?;
        let listing = self.list_of(sig, max_classes, keep)?;
        Ok((listing, self.extreme_of(sig, max)?))
    }

    /// The signature of `parse_path` (graph nodes of `pg`, start first),
    /// once its nodes are checked: what [`Self::visit_list`] and
    /// [`Self::visit_extreme`] take.
    pub fn signature(&self, pg: &PathGraph<'_>, parse_path: &[u32]) -> Result<u64, ClassError> {
        if let Some(&node) = parse_path.iter().find(|&&n| n as usize >= pg.len()) {
            return Err(ClassError::BadParsePath { node });
        }
        Ok(path_signature(pg, &self.cc.h, parse_path))
    }

    /// [`Self::extreme`] of a path whose signature is `sig`.
    fn extreme_of(&mut self, sig: u64, max: bool) -> Result<(f64, ListedClass), ClassError> {
        let mut class = None;
        let value = self.extreme_core(sig, max, &mut |c, s| {
            class = Some(c.with_skips(s));
            true
        })?;
        Ok((value, class.unwrap_or_default()))
    }

    /// [`Self::extreme`] of the path whose signature is `sig`
    /// ([`Self::signature`]): its class handed to `visit` as
    /// [`Self::visit_list`] hands its classes over; gives its summed table
    /// weight.
    pub fn visit_extreme(
        &mut self,
        sig: u64,
        max: bool,
        visit: &mut dyn FnMut(&ListedClass, &ClassRefs<'_>),
    ) -> Result<f64, ClassError> {
        self.extreme_core(sig, max, &mut |c, s| {
            visit(c, s);
            true
        })
    }

    /// The lightest (`max` false) or heaviest class of the path whose
    /// signature is `sig`, handed to `take`; its summed table weight.
    fn extreme_core(&mut self, sig: u64, max: bool, take: Take<'_>) -> Result<f64, ClassError> {
        let e = self.cc.eval(sig)?;
        let value = if max { e.max } else { e.min };
        let (Some(_), Some(_)) = (self.reach.as_ref(), self.cc.root(sig)) else {
            // No table on any way: the one class a listing gives (always
            // handed over: one is asked for, and `take` is the only test).
            self.list_core(sig, 1, take)?;
            return Ok(value);
        };
        let keys = self.cc.witness_keys(sig, max);
        self.work = self.work.saturating_add(keys.len());
        if self.work > self.budget.max_list_work {
            return Err(self.over_work());
        }
        self.scratch.same = 0;
        for (i, &k) in keys.iter().enumerate() {
            let chosen = keys.get(i + 1).copied();
            let id = self.fact_id(k, chosen);
            self.scratch.set(i, (k, chosen), id);
        }
        self.scratch.steps.truncate(keys.len());
        self.scratch.ids.truncate(keys.len());
        let rank = self.cc.witness_rank(sig, max);
        let index = if rank.saturated {
            u128::MAX
        } else {
            rank.value
        };
        self.emit(index, take);
        Ok(value)
    }

    /// The steps every listing of this lister took so far, against the
    /// budget's `max_list_work`.
    pub fn work(&self) -> usize {
        self.work
    }

    /// Counts `steps` more steps against the budget's `max_list_work`, as
    /// listing them again would: a caller that takes a path's classes from
    /// an earlier path with the same signature (its listing is the same)
    /// charges what that listing took, so the budget stops the listings
    /// where it would have. The listing's error when over the budget.
    pub fn charge(&mut self, steps: usize) -> Result<(), ClassError> {
        self.work = self.work.saturating_add(steps);
        if self.work > self.budget.max_list_work {
            return Err(self.over_work());
        }
        Ok(())
    }

    /// The listing's error for work over `budget.max_list_work`.
    fn over_work(&self) -> ClassError {
        ClassError::ListWork {
            control: self.program.control(self.control).name.clone(),
            limit: self.budget.max_list_work,
        }
    }

    /// Up to `max` classes of the parse path `parse_path` (graph nodes of
    /// `pg`, start first) for which `keep` holds, in control order.
    /// `total` counts all the path's classes, kept or not.
    pub fn list(
        &mut self,
        pg: &PathGraph<'_>,
        parse_path: &[u32],
        max: usize,
        keep: &dyn Fn(&ListedClass) -> bool,
    ) -> Result<ClassListing, ClassError> {
        let sig = self.signature(pg, parse_path)?;
        self.list_of(sig, max, keep)
    }

    /// [`Self::list`] of the path whose signature is `sig`
    /// ([`Self::signature`]), each class kept handed to `visit` with its
    /// skipped tables as it is made, not kept: the listing's `classes` are
    /// left empty, and the class `keep` and `visit` see has an empty
    /// `skipped` (its skipped tables are the [`ClassRefs`]). Cheaper than
    /// [`Self::list`]: no class is copied, no skipped table's name or
    /// reason shared out.
    pub fn visit_list(
        &mut self,
        sig: u64,
        max: usize,
        keep: &dyn Fn(&ListedClass) -> bool,
        visit: &mut dyn FnMut(&ListedClass, &ClassRefs<'_>),
    ) -> Result<ClassListing, ClassError> {
        self.list_core(sig, max, &mut |c, s| {
            let kept = keep(c);
            if kept {
                visit(c, s);
            }
            kept
        })
    }

    /// The class of the control path the lister's trail holds (the steps
    /// and facts in its scratch), made in its scratch as the `index`th of
    /// its listing and handed to `take`; true when taken.
    fn emit(&mut self, index: u128, take: Take<'_>) -> bool {
        self.explain_scratch();
        let ClassLister {
            scratch,
            tables,
            names,
            facts,
            ..
        } = self;
        scratch.made.class.index = index;
        let skips = ClassRefs {
            entries: &scratch.made.skips,
            decisions: &scratch.made.decision_ids,
            tables,
            names,
            facts: &facts.facts,
        };
        take(&scratch.made.class, &skips)
    }

    /// The class of one complete control path (the steps and facts in the
    /// scratch), explained into the scratch with the facts the lister
    /// keeps; without the tables' reach (callers check it first) the one
    /// class of [`Self::only_into_scratch`].
    fn explain_scratch(&mut self) {
        let Some(reach) = self.reach.as_ref() else {
            self.only_into_scratch();
            return;
        };
        let Scratch {
            steps,
            ids,
            same,
            made,
        } = &mut self.scratch;
        Explainer {
            program: self.program,
            flow: &self.program.control(self.control).flow,
            cc: &self.cc,
            tables: &self.tables,
            reach,
            egress_from: self.egress_from,
            facts: &mut self.facts,
        }
        .explain(steps, ids, *same, made);
    }

    /// The facts of the step from `k` to `chosen` ([`StepCache`]): their
    /// place in the lister's cache, made on first use.
    fn fact_id(&mut self, k: Key, chosen: Option<Key>) -> u32 {
        let flow = &self.program.control(self.control).flow;
        self.facts.id(
            self.program,
            flow,
            &self.cc,
            self.reach.as_ref(),
            (k, chosen),
        )
    }

    /// The complete path the frames of a listing trail, into the scratch:
    /// each frame's state and chosen successor, with the facts of that
    /// step (looked up once per frame and choice, not once per class:
    /// classes listed one after another share most of their trail).
    fn trail_steps(&mut self, stack: &mut [Frame]) {
        self.scratch.same = 0;
        for (i, f) in stack.iter_mut().enumerate() {
            let chosen = match f.next.checked_sub(1).filter(|&i| i < f.len()) {
                Some(i) => self.cc.succ_key(f.succ.0 + i),
                None => None,
            };
            let id = match f.fact {
                Some(id) => id,
                None => {
                    let id = self.fact_id(f.key, chosen);
                    f.fact = Some(id);
                    id
                }
            };
            self.scratch.set(i, (f.key, chosen), id);
        }
        self.scratch.steps.truncate(stack.len());
        self.scratch.ids.truncate(stack.len());
    }

    /// Into the scratch, the one class of a path on which the control
    /// applies no table: every table skipped as unreachable (none named
    /// when the lister had no budget left to say why).
    fn only_into_scratch(&mut self) {
        let made = &mut self.scratch.made;
        made.class.clear();
        made.done = 0;
        made.at.clear();
        made.decision_ids.clear();
        made.skips.clear();
        if self.reach.is_some() {
            let n = u32::try_from(self.tables.len()).unwrap_or(u32::MAX);
            made.skips.extend((0..n).map(|i| (i, NO_FACT)));
        }
    }

    /// [`Self::list`] of a path whose signature is `sig`.
    fn list_of(
        &mut self,
        sig: u64,
        max: usize,
        keep: &dyn Fn(&ListedClass) -> bool,
    ) -> Result<ClassListing, ClassError> {
        let mut classes = Vec::new();
        let mut out = self.list_core(sig, max, &mut |c, s| {
            let class = c.with_skips(s);
            let kept = keep(&class);
            if kept {
                classes.push(class);
            }
            kept
        })?;
        out.classes = classes;
        Ok(out)
    }

    /// The listing of a path whose signature is `sig`: up to `max` classes
    /// `take` takes, in control order, each handed to it as it is made
    /// (the listing's `classes` left empty).
    fn list_core(
        &mut self,
        sig: u64,
        max: usize,
        take: Take<'_>,
    ) -> Result<ClassListing, ClassError> {
        let total = self.cc.eval(sig)?.count;
        let mut out = ClassListing {
            signature: sig,
            total,
            classes: Vec::new(),
            truncated: false,
        };
        let (Some(root), Some(_)) = (self.cc.root(sig), self.reach.as_ref()) else {
            // No table on any way (or no budget left to say why): one class.
            if max > 0 {
                self.only_into_scratch();
                let made = &self.scratch.made;
                let skips = ClassRefs {
                    entries: &made.skips,
                    decisions: &made.decision_ids,
                    tables: &self.tables,
                    names: &self.names,
                    facts: &self.facts.facts,
                };
                take(&made.class, &skips);
            }
            out.truncated = max == 0;
            return Ok(out);
        };
        let (seen, open) = self.walk(root, max, take)?;
        // Truncated: some class was neither listed nor looked at.
        out.truncated = open && (seen < total.value || total.saturated);
        Ok(out)
    }

    /// The successors' place of state `k` ([`ControlClasses::succ_span`]).
    fn span_of(&self, k: Key) -> Result<(usize, usize), ClassError> {
        let cc = &self.cc;
        cc.id(k)
            .and_then(|id| cc.succ_span(id))
            .ok_or_else(|| cc.over_limit())
    }

    /// Depth-first over control states from `root` (the trail is the path
    /// so far), each complete path made a class and handed to `take`,
    /// until `max` are taken: the classes met, and whether the walk
    /// stopped before its end.
    fn walk(&mut self, root: Key, max: usize, take: Take<'_>) -> Result<(u128, bool), ClassError> {
        let limit = self.budget.max_list_work;
        let mut stack = vec![Frame {
            key: root,
            succ: self.span_of(root)?,
            next: 0,
            fact: None,
        }];
        let mut on_stack = KeySet::default();
        on_stack.insert(root);
        let (mut seen, mut taken) = (0u128, 0usize);
        while !stack.is_empty() && taken < max {
            self.work += 1;
            if self.work > limit {
                return Err(self.over_work());
            }
            let top = stack.last_mut().expect("non-empty");
            let at_end = top.len() == 0 && top.next == 0;
            let next = (top.next < top.len()).then(|| self.cc.succ_key(top.succ.0 + top.next));
            if at_end || next == Some(None) {
                top.next += 1;
                top.fact = None;
                self.trail_steps(&mut stack);
                self.work = self.work.saturating_add(self.scratch.steps.len());
                if self.emit(seen, take) {
                    taken += 1;
                }
                seen += 1;
                continue;
            }
            if let Some(Some(k)) = next {
                top.next += 1;
                top.fact = None;
                if on_stack.contains(&k) {
                    continue; // cycle edge (cut)
                }
                on_stack.insert(k);
                let succ = self.span_of(k)?;
                stack.push(Frame {
                    key: k,
                    succ,
                    next: 0,
                    fact: None,
                });
            } else if let Some(done) = stack.pop() {
                on_stack.remove(&done.key);
            }
        }
        Ok((seen, !stack.is_empty()))
    }
}

/// What a listing hands each class it makes to: true when it takes it
/// (the classes taken count against the listing's `max`).
type Take<'t> = &'t mut dyn FnMut(&ListedClass, &ClassRefs<'_>) -> bool;

/// The place of a skipped table's step facts when no step ruled it out:
/// unreachable in the control.
const NO_FACT: u32 = u32::MAX;

/// What the lister holds of a class it hands over
/// ([`ClassLister::visit_list`], [`ClassLister::visit_extreme`]): the
/// tables the class does not apply, in control order, and why; and what
/// its decisions are to the lister. Its records read in place, valid
/// while the class is handed over.
pub struct ClassRefs<'l> {
    /// Per skipped table, its position among the lister's tables and the
    /// place of the facts of the step that ruled it out ([`NO_FACT`]:
    /// none).
    entries: &'l [(u32, u32)],
    /// Per decision of the class, the place of its step's facts.
    decisions: &'l [u32],
    tables: &'l [TableId],
    names: &'l TableNames,
    facts: &'l [StepFacts],
}

/// One skipped table of [`ClassRefs`].
#[derive(Debug, Clone, Copy)]
pub struct SkipRef<'l> {
    /// The same for every class of the lister that skips this table for
    /// this reason (as the reason's text may be another's, two ids may
    /// read alike; one id never reads two ways).
    pub id: u64,
    /// The table's position among the control's tables (ascending along
    /// a class's skipped tables).
    pub place: u32,
    /// The table.
    pub table: TableId,
    /// Its name.
    pub name: &'l Arc<str>,
    /// Why it is skipped (as [`SkippedTable::reason`]).
    pub reason: &'l Arc<str>,
}

impl<'l> ClassRefs<'l> {
    /// How many tables are skipped.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the class applies every table.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Per decision of the class (in order), what it is to the lister:
    /// decisions with one id are one (same node, outcome and `forced`).
    pub fn decision_ids(&self) -> &'l [u32] {
        self.decisions
    }

    /// The `j`th skipped table's [`SkipRef::place`] and [`SkipRef::id`],
    /// read without the rest.
    pub fn key(&self, j: usize) -> Option<(u32, u64)> {
        self.entries
            .get(j)
            .map(|&(pos, fact)| (pos, u64::from(pos) << 32 | u64::from(fact)))
    }

    /// The `j`th skipped table.
    pub fn get(&self, j: usize) -> Option<SkipRef<'l>> {
        let &(pos, fact) = self.entries.get(j)?;
        let names = self.names;
        Some(SkipRef {
            id: u64::from(pos) << 32 | u64::from(fact),
            place: pos,
            table: *self.tables.get(pos as usize)?,
            name: names.tables.get(pos as usize)?,
            // The lister made the reason of every fact it names here.
            reason: self
                .facts
                .get(fact as usize)
                .and_then(|f| f.reason.as_ref())
                .unwrap_or(&names.unreachable),
        })
    }

    /// The skipped tables, in control order.
    pub fn iter(&self) -> impl Iterator<Item = SkipRef<'l>> + '_ {
        (0..self.entries.len()).filter_map(|j| self.get(j))
    }

    /// The skipped tables as a class's own list.
    pub fn to_vec(&self) -> Vec<SkippedTable> {
        self.iter()
            .map(|s| SkippedTable {
                table: s.table,
                name: s.name.clone(),
                reason: s.reason.clone(),
            })
            .collect()
    }
}

impl ListedClass {
    /// This class with `skips` as its skipped tables.
    pub fn with_skips(&self, skips: &ClassRefs<'_>) -> ListedClass {
        ListedClass {
            index: self.index,
            control_path: self.control_path.clone(),
            decisions: self.decisions.clone(),
            skipped: skips.to_vec(),
        }
    }

    /// Empties the class (index 0, no node, decision or skipped table),
    /// its lists' room kept.
    fn clear(&mut self) {
        self.index = 0;
        self.control_path.nodes.clear();
        self.control_path.tables.clear();
        self.decisions.clear();
        self.skipped.clear();
    }
}

/// What a lister reuses from class to class (a listing makes many): the
/// steps of the class being made and what is made of them.
#[derive(Debug, Default)]
struct Scratch {
    /// Each state of the control path and the way it takes.
    steps: Vec<(Key, Option<Key>)>,
    /// Step `i`'s place in the lister's [`StepCache`].
    ids: Vec<u32>,
    /// How many first steps are those of the class made last (classes
    /// listed one after another share most of their trail).
    same: usize,
    made: Made,
}

impl Scratch {
    /// Sets step `i` (the steps before it set already, from `same = 0`
    /// on) to `step` whose facts are `id`th, counting it in `same` while
    /// the steps are those of the class made last.
    fn set(&mut self, i: usize, step: (Key, Option<Key>), id: u32) {
        match (self.steps.get_mut(i), self.ids.get_mut(i)) {
            (Some(s), Some(d)) => {
                if self.same == i && *s == step && *d == id {
                    self.same = i + 1;
                }
                *s = step;
                *d = id;
            }
            _ => {
                self.steps.truncate(i);
                self.ids.truncate(i);
                self.steps.push(step);
                self.ids.push(id);
            }
        }
    }
}

/// A class as [`Explainer::explain`] makes it, in lists kept from class to
/// class and made again only past the steps it shares with the class made
/// before.
#[derive(Debug, Default)]
struct Made {
    /// The class, its `skipped` empty.
    class: ListedClass,
    /// The steps `class` was made of.
    done: usize,
    /// Per step, how many tables and decisions `class` had before it.
    at: Vec<(u32, u32)>,
    /// Its skipped tables ([`ClassRefs::entries`]).
    skips: Vec<(u32, u32)>,
    /// Per decision of `class`, the place of its step's facts.
    decision_ids: Vec<u32>,
    /// Per table, the first step whose node reaches it and whose way
    /// taken does not (`u32::MAX`: none). For a table the class does not
    /// apply, the step that rules it out.
    first_lost: Vec<u32>,
    /// The tables applied (bits over the lister's tables).
    applied: Vec<u64>,
}

/// Per control node, the control's tables (bits over `tables`) reachable
/// from it, the node included.
struct Reach {
    words: usize,
    bits: Vec<u64>,
    /// By table id, its position among the control's tables (`u32::MAX`:
    /// none).
    pos: Vec<u32>,
}

impl Reach {
    fn build(
        flow: &ControlFlow,
        tables: &[TableId],
        limit: usize,
        work: &mut usize,
    ) -> Option<Reach> {
        let n = flow.nodes.len();
        let words = tables.len().div_ceil(64).max(1);
        *work = work.saturating_add(n.saturating_mul(words));
        if *work > limit {
            return None;
        }
        let ids = tables.iter().map(|t| t.index() + 1).max().unwrap_or(0);
        let mut pos = vec![u32::MAX; ids];
        for (i, t) in tables.iter().enumerate() {
            pos[t.index()] = i as u32;
        }
        let mut bits = vec![0u64; n * words];
        // 0 unvisited, 1 on stack, 2 done.
        let mut mark = vec![0u8; n];
        for root in 0..n {
            if mark[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            mark[root] = 1;
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                let succ = flow.nodes[v].successors();
                if *i < succ.len() {
                    let s = succ[*i];
                    *i += 1;
                    if let Some(s) = s.filter(|s| s.index() < n) {
                        if mark[s.index()] == 0 {
                            mark[s.index()] = 1;
                            stack.push((s.index(), 0));
                        }
                    }
                } else {
                    stack.pop();
                    mark[v] = 2;
                    if let NodeKind::Table { table, .. } = &flow.nodes[v].kind {
                        if let Some(&t) = pos.get(table.index()).filter(|&&t| t != u32::MAX) {
                            let t = t as usize;
                            bits[v * words + t / 64] |= 1 << (t % 64);
                        }
                    }
                    for s in succ.into_iter().flatten().filter(|s| s.index() < n) {
                        if mark[s.index()] == 2 {
                            for w in 0..words {
                                let x = bits[s.index() * words + w];
                                bits[v * words + w] |= x;
                            }
                        }
                    }
                }
            }
        }
        Some(Reach { words, bits, pos })
    }

    /// Word `w` of the tables reachable from `node` (none from the end).
    fn word(&self, node: Option<u32>, w: usize) -> u64 {
        node.map_or(0, |n| self.bits[n as usize * self.words + w])
    }

    /// Pushes onto `out` the positions of the tables reachable from
    /// `node` and not from `chosen` (none from the end), ascending.
    fn lost(&self, node: u32, chosen: Option<u32>, out: &mut Vec<u32>) {
        for w in 0..self.words {
            let mut bits = self.word(Some(node), w) & !self.word(chosen, w);
            while bits != 0 {
                out.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    /// The position of table `t` among the control's tables.
    fn position(&self, t: TableId) -> Option<usize> {
        self.pos
            .get(t.index())
            .filter(|&&p| p != u32::MAX)
            .map(|&p| p as usize)
    }
}

/// What one step of a control path (a state and the way it takes) says,
/// whichever class takes it: worked out once per lister, not once per
/// class.
#[derive(Debug, Clone)]
struct StepFacts {
    /// The way taken, where the node has more than one.
    outcome: Option<Outcome>,
    /// True when the state decides it.
    forced: bool,
    /// Why a table reachable from the node but not from the way taken is
    /// skipped there (the same for every such table); made when first
    /// needed.
    reason: Option<Arc<str>>,
}

/// [`StepFacts`] by (state, way taken): the facts in the order first met,
/// and each step's place among them.
#[derive(Debug, Default)]
struct StepCache {
    at: HashMap<(Key, Option<Key>), u32, foldhash::fast::FixedState>,
    facts: Vec<StepFacts>,
    /// Per fact, its range in `lost_at`: the positions (among the
    /// lister's tables) of the tables the state's node reaches and the way
    /// taken does not, which the step rules out.
    lost: Vec<(u32, u32)>,
    lost_at: Vec<u32>,
}

impl StepCache {
    /// The place of the facts of `step` (a state and the way it takes),
    /// worked out on first use (with the tables it rules out when `reach`
    /// is known).
    fn id(
        &mut self,
        program: &Program,
        flow: &ControlFlow,
        cc: &ControlClasses<'_>,
        reach: Option<&Reach>,
        step: (Key, Option<Key>),
    ) -> u32 {
        let StepCache {
            at,
            facts,
            lost,
            lost_at,
        } = self;
        *at.entry(step).or_insert_with(|| {
            facts.push(step_facts(program, flow, cc, step.0, step.1));
            let from = lost_at.len() as u32;
            if let Some(reach) = reach {
                reach.lost(step.0 .0, step.1.map(|c| c.0), lost_at);
            }
            lost.push((from, lost_at.len() as u32 - from));
            (facts.len() - 1) as u32
        })
    }

    /// The positions of the tables the step whose facts are `id`th rules
    /// out ([`StepCache::lost`]).
    fn lost_of(&self, id: u32) -> &[u32] {
        self.lost
            .get(id as usize)
            .and_then(|&(from, n)| self.lost_at.get(from as usize..(from + n) as usize))
            .unwrap_or(&[])
    }
}

/// A state on the trail of a class listing: its successors, the next one
/// to take, and the facts of the step to the one taken last (`None` until
/// looked up for this choice).
struct Frame {
    key: Key,
    /// The state's successors' place in [`States::succ`].
    succ: (usize, usize),
    next: usize,
    fact: Option<u32>,
}

impl Frame {
    /// Successors of the frame's state.
    fn len(&self) -> usize {
        self.succ.1 - self.succ.0
    }
}

/// What explains the steps of a class: the walk, the control's tables and
/// their reach, and the facts of the steps met so far.
struct Explainer<'e, 'a> {
    program: &'a Program,
    flow: &'a ControlFlow,
    cc: &'e ControlClasses<'a>,
    tables: &'e [TableId],
    reach: &'e Reach,
    egress_from: Option<u32>,
    facts: &'e mut StepCache,
}

impl Explainer<'_, '_> {
    /// The class of one complete control path, into `made`: its tables and
    /// why the others are skipped (the first step after which a table can
    /// no longer run). `ids[i]`: the place of step `i`'s facts in the
    /// cache; the first `same` steps are those `made` was made of last
    /// (only the steps after them are looked at again).
    fn explain(&mut self, steps: &[(Key, Option<Key>)], ids: &[u32], same: usize, made: &mut Made) {
        let keep = same.min(made.done).min(made.at.len());
        self.path_into(steps, ids, keep, made);
        let reach = self.reach;
        // Tables applied, and the first step that rules out each other
        // one (a node's reach holds its successors', so along a path each
        // table is ruled out at one step: the lists the cache keeps). A
        // table applied is not skipped, whichever step loses it, so the
        // first step losing each table is kept whatever the class applies.
        made.applied.clear();
        made.applied.resize(reach.words, 0);
        for t in &made.class.control_path.tables {
            if let Some(i) = reach.position(*t) {
                made.applied[i / 64] |= 1 << (i % 64);
            }
        }
        made.first_lost.resize(self.tables.len(), u32::MAX);
        for f in made.first_lost.iter_mut().filter(|f| **f as usize >= keep) {
            *f = u32::MAX;
        }
        for (si, &id) in ids.iter().enumerate().skip(keep) {
            for &t in self.facts.lost_of(id) {
                if let Some(slot) = made.first_lost.get_mut(t as usize) {
                    if *slot == u32::MAX {
                        *slot = si as u32;
                    }
                }
            }
        }
        made.done = steps.len();
        self.skips_into(steps, ids, made);
    }

    /// The tables of `made` that its class does not apply, each with the
    /// facts of the step that rules it out (`ids[i]`: step `i`'s), the
    /// reason of each such step made if new.
    fn skips_into(&mut self, steps: &[(Key, Option<Key>)], ids: &[u32], made: &mut Made) {
        // Many tables are skipped at one step: its reason is made once, in
        // the step's facts, and shared (no list of reasons per class).
        made.skips.clear();
        let applied = &made.applied;
        for (i, &si) in made.first_lost.iter().enumerate() {
            if applied[i / 64] >> (i % 64) & 1 == 1 {
                continue;
            }
            let fact = match (steps.get(si as usize), ids.get(si as usize)) {
                (Some(&(k, _)), Some(&id)) => {
                    self.reason(id, k);
                    id
                }
                _ => NO_FACT,
            };
            made.skips.push((i as u32, fact));
        }
    }

    /// The control path of the steps into `made`'s class (its `skipped`
    /// empty), its first `keep` steps kept: its nodes and tables, and the
    /// way taken at every node with more than one.
    fn path_into(&self, steps: &[(Key, Option<Key>)], ids: &[u32], keep: usize, made: &mut Made) {
        let class = &mut made.class;
        let path = &mut class.control_path;
        // Past the last step made, every table and decision is kept.
        let (tables, decisions) = made
            .at
            .get(keep)
            .map_or((path.tables.len(), class.decisions.len()), |&(t, d)| {
                (t as usize, d as usize)
            });
        path.nodes.truncate(keep);
        path.tables.truncate(tables);
        class.decisions.truncate(decisions);
        made.decision_ids.truncate(decisions);
        made.at.truncate(keep);
        for (&(k, _), &id) in steps.iter().zip(ids).skip(keep) {
            made.at
                .push((path.tables.len() as u32, class.decisions.len() as u32));
            path.nodes.push(NodeId(k.0));
            if let NodeKind::Table { table, .. } = &self.flow.nodes[k.0 as usize].kind {
                path.tables.push(*table);
            }
            let f = &self.facts.facts[id as usize];
            if let Some(outcome) = &f.outcome {
                class.decisions.push(Decision {
                    node: NodeId(k.0),
                    outcome: outcome.clone(),
                    forced: f.forced,
                });
                made.decision_ids.push(id);
            }
        }
    }

    /// Makes the reason a table is skipped at step `k` whose facts are
    /// `id`th in the cache, if not made yet.
    fn reason(&mut self, id: u32, k: Key) {
        let (program, flow, cc, egress_from) = (self.program, self.flow, self.cc, self.egress_from);
        let Some(f) = self.facts.facts.get_mut(id as usize) else {
            return;
        };
        if f.reason.is_none() {
            f.reason =
                Some(skip_reason(program, flow, cc, k, f.outcome.as_ref(), egress_from).into());
        }
    }
}

/// The names a lister gives skipped tables, made once per lister: each
/// class that skips a table shares its name, not a copy of it.
#[derive(Debug)]
struct TableNames {
    /// Per table of the lister's `tables`, its name.
    tables: Vec<Arc<str>>,
    /// The reason of a table no step of the class could reach.
    unreachable: Arc<str>,
}

impl TableNames {
    fn new(program: &Program, tables: &[TableId]) -> TableNames {
        TableNames {
            tables: tables
                .iter()
                .map(|&t| Arc::from(table_name(program, t)))
                .collect(),
            unreachable: Arc::from("unreachable in the control"),
        }
    }
}

/// A table's name (`table#N` for an id the program lacks).
fn table_name(program: &Program, t: TableId) -> String {
    program
        .tables
        .get(t.index())
        .map_or_else(|| format!("table#{}", t.0), |t| t.name.clone())
}

/// The way state `k` takes to `chosen`, where its node has more than one,
/// and whether the state decides it.
fn step_facts(
    program: &Program,
    flow: &ControlFlow,
    cc: &ControlClasses<'_>,
    k: Key,
    chosen: Option<Key>,
) -> StepFacts {
    let node = &flow.nodes[k.0 as usize].kind;
    // Where a successor settles (ways that meet are one: `succ`).
    let to = |n: Option<NodeId>| cc.arm(k, n);
    let went = cc.settle(chosen);
    // Where a node leads once plain runs are jumped.
    let jumped = |n: Option<NodeId>| n.and_then(|n| cc.jump(n.0));
    let mut forced = false;
    let outcome = match node {
        // A test the state decides is shown where its branches differ
        // at all: it says why tables were skipped.
        NodeKind::Condition {
            then_next,
            else_next,
            ..
        } => match cc.eval_node(k) {
            Some(v) => {
                forced = true;
                (jumped(*then_next) != jumped(*else_next)).then_some(Outcome::Branch(v))
            }
            None if to(*then_next) != to(*else_next) => {
                Some(Outcome::Branch(to(*then_next) == went))
            }
            None => None,
        },
        NodeKind::Table {
            next: TableNext::HitMiss { hit, miss },
            ..
        } if to(*hit) != to(*miss) => Some(Outcome::Hit(to(*hit) == went)),
        NodeKind::Table {
            table,
            next: TableNext::ByAction { arms, default },
        } => {
            let actions: Vec<ActionId> = arms
                .iter()
                .filter(|(_, n)| to(*n) == went)
                .map(|(a, _)| *a)
                .collect();
            // The default way is one only if some action has no arm
            // (`Program::close_action_switches`).
            let open = program
                .tables
                .get(table.index())
                .is_none_or(|t| !t.has_arm_for_every_action(arms));
            let default = open && to(*default) == went;
            let all = (default || !open) && actions.len() == arms.len();
            (!all).then_some(Outcome::ActionRun { actions, default })
        }
        _ => None,
    };
    StepFacts {
        outcome,
        forced,
        reason: None,
    }
}

/// Why a table that node `k.0` can reach is no longer reachable after the
/// way `outcome` that state `k` took there.
fn skip_reason(
    program: &Program,
    flow: &ControlFlow,
    cc: &ControlClasses<'_>,
    k: Key,
    outcome: Option<&Outcome>,
    egress_from: Option<u32>,
) -> String {
    let (n, valid, unknown) = k;
    match (&flow.nodes[n as usize].kind, outcome) {
        (NodeKind::Table { table, .. }, Some(Outcome::Hit(hit))) => {
            format!(
                "on {} of {}",
                if *hit { "hit" } else { "miss" },
                table_name(program, *table)
            )
        }
        (NodeKind::Table { table, .. }, Some(arm @ Outcome::ActionRun { .. })) => {
            format!(
                "action_run = {} in {}",
                arm.arm_text(program, "(an action without a case)")
                    .unwrap_or_default(),
                table_name(program, *table)
            )
        }
        (NodeKind::Condition { cond, expr, .. }, outcome) => {
            // Written only where the reason shows it.
            let text = || condition_text(cond, expr);
            match (cc.eval_node(k), outcome) {
                (Some(v), _) => decided(&cc.h, cond, valid, unknown)
                    .map(|d| match egress_from {
                        Some(e) if n >= e => format!("{d}, in egress"),
                        _ => d,
                    })
                    .unwrap_or_else(|| format!("condition `{}` is always {v}", text())),
                (None, Some(Outcome::Branch(true))) => {
                    format!("branch not taken: !({})", text())
                }
                (None, _) => format!("branch not taken: {}", text()),
            }
        }
        _ => "not on this control path".into(),
    }
}

/// `hdr.a valid and hdr.b invalid on this path` for the decided validity
/// leaves of a condition (and `` `hdr.e.t == 0x800` holds `` for decided
/// field comparisons).
fn decided(h: &TestedHeaders, cond: &Cond, valid: u64, unknown: u64) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !parts.contains(&s) {
            parts.push(s);
        }
    };
    for (i, n) in cond.nodes.iter().enumerate() {
        if let Some((b, _)) = h.atom_item(cond, i).filter(|(b, _)| unknown >> b & 1 == 0) {
            let atom = &h.atoms[b as usize - h.items()];
            add(format!(
                "`{}` {}",
                atom.text(),
                if valid >> b & 1 == 1 {
                    "holds"
                } else {
                    "fails"
                }
            ));
        }
        if let (CondNode::Field { name }, Some(v)) = (n, h.flag_test(cond, i, valid, unknown)) {
            add(format!("`{name}` is {}", u8::from(v)));
        }
        if let CondNode::IsValid { header } = n {
            if let Some(b) = h.bit(header).filter(|b| unknown >> b & 1 == 0) {
                add(format!(
                    "{header} {}",
                    if valid >> b & 1 == 1 {
                        "valid"
                    } else {
                        "invalid"
                    }
                ));
            }
        }
    }
    (!parts.is_empty()).then(|| format!("{} on this path", parts.join(" and ")))
}

#[cfg(test)]
mod tests;
