//! Tables, their keys, and actions.

use serde::{Deserialize, Serialize};

use crate::{ActionId, ControlId, Span};

/// A `@name(...)`-style annotation kept as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// Name without the `@`.
    pub name: String,
    /// Body text between the parentheses or brackets (empty if none).
    pub body: String,
    /// Site of the annotation.
    pub span: Span,
}

/// How a table key field is matched.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// `exact`.
    Exact,
    /// `lpm`.
    Lpm,
    /// `ternary`.
    Ternary,
    /// `range`.
    Range,
    /// `optional`.
    Optional,
    /// `selector` (action selector input).
    Selector,
    /// `valid` (BMv2 validity match).
    Valid,
    /// Any other match kind, by name.
    Other(String),
}

impl MatchKind {
    /// The match kind for a P4 name.
    pub fn from_name(name: &str) -> MatchKind {
        match name {
            "exact" => MatchKind::Exact,
            "lpm" => MatchKind::Lpm,
            "ternary" => MatchKind::Ternary,
            "range" => MatchKind::Range,
            "optional" => MatchKind::Optional,
            "selector" => MatchKind::Selector,
            "valid" => MatchKind::Valid,
            other => MatchKind::Other(other.to_string()),
        }
    }

    /// The P4 name of the match kind.
    pub fn name(&self) -> &str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Lpm => "lpm",
            MatchKind::Ternary => "ternary",
            MatchKind::Range => "range",
            MatchKind::Optional => "optional",
            MatchKind::Selector => "selector",
            MatchKind::Valid => "valid",
            MatchKind::Other(s) => s,
        }
    }
}

/// One key field of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableKey {
    /// The key expression as text (`hdr.ipv4.dst_addr`).
    pub field: String,
    /// Width in bits, when known.
    pub width_bits: Option<u32>,
    /// Match kind.
    pub match_kind: MatchKind,
    /// Fields the key expression reads, canonical names (`hdr.ipv4.$valid`
    /// for a validity key); empty when the input does not say.
    #[serde(default)]
    pub reads: Vec<String>,
    /// Site of the key.
    pub span: Span,
}

/// A match-action table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Name as declared (qualified by its control when the input does so,
    /// e.g. `Ingress.ipv4_lpm` from compiler outputs).
    pub name: String,
    /// The control that owns the table, when known.
    pub control: Option<ControlId>,
    /// Key fields in order (empty for keyless tables).
    pub keys: Vec<TableKey>,
    /// `size` (or `max_size`), when declared.
    pub size: Option<u64>,
    /// Actions the table may run.
    pub actions: Vec<ActionId>,
    /// The default action, when declared.
    pub default_action: Option<ActionId>,
    /// True when the default action is `const` (the control plane cannot
    /// change it, so a miss runs only it).
    #[serde(default)]
    pub default_action_const: bool,
    /// Number of `const entries` / `entries`.
    pub const_entries: u64,
    /// Action profile or selector implementation, if any.
    pub implementation: Option<String>,
    /// Direct resources attached by table properties (`counters`,
    /// `meters`, `registers`): extern instance names.
    #[serde(default)]
    pub attached: Vec<String>,
    /// Tofino MAU stages the compiler placed the table in (empty when not
    /// known; -1 is the compiler's "no stage" value).
    pub stages: Vec<i32>,
    /// Annotations on the table.
    pub annotations: Vec<Annotation>,
    /// Declaration site.
    pub span: Span,
}

impl Table {
    /// A table with only a name and a site: no control, keys, size,
    /// actions, entries, resources, stages or annotations. Readers and
    /// tests set the rest with struct update syntax.
    pub fn new(name: impl Into<String>, span: Span) -> Table {
        Table {
            name: name.into(),
            control: None,
            keys: Vec::new(),
            size: None,
            actions: Vec::new(),
            default_action: None,
            default_action_const: false,
            const_entries: 0,
            implementation: None,
            attached: Vec::new(),
            stages: Vec::new(),
            annotations: Vec::new(),
            span,
        }
    }

    /// True for a table the compiler made for its own use, recognised by a
    /// name no P4 program can declare: a `$` in the last name component
    /// (bf-p4c's `IngressParser.$PORT_METADATA`, the parser's port-metadata
    /// table). Such a table is not one of the program's match tables.
    pub fn is_compiler_internal(&self) -> bool {
        self.name
            .rsplit('.')
            .next()
            .unwrap_or(&self.name)
            .contains('$')
    }

    /// True for a table a compiler made for a direct action call of an
    /// apply block (p4c's `tbl_<action>`): marked `@action_call` by the BMv2
    /// reader, or keyless with at most one action and a `tbl_` name. The
    /// source has a plain action call there, not a match table.
    pub fn is_action_call(&self) -> bool {
        if self.annotations.iter().any(|a| a.name == "action_call") {
            return true;
        }
        let short = self.name.rsplit('.').next().unwrap_or(&self.name);
        self.keys.is_empty() && self.actions.len() <= 1 && short.starts_with("tbl_")
    }

    /// True for a table a compiler made rather than the programmer: an
    /// internal one ([`Table::is_compiler_internal`]) or one for a direct
    /// action call ([`Table::is_action_call`]). A source and its compiler
    /// output share only the programmer's match tables.
    pub fn is_compiler_made(&self) -> bool {
        self.is_compiler_internal() || self.is_action_call()
    }

    /// True when `arms` (a `switch` on this table's `action_run`) has an
    /// arm for every action the table may run: its actions and its declared
    /// default action. Without a declared default (P4's implicit
    /// `NoAction`), some action may have no arm.
    pub fn has_arm_for_every_action<N>(&self, arms: &[(ActionId, N)]) -> bool {
        let has = |a: &ActionId| arms.iter().any(|(x, _)| x == a);
        self.default_action.as_ref().is_some_and(has) && self.actions.iter().all(has)
    }

    /// Sum of known key widths in bits.
    pub fn key_bits(&self) -> u64 {
        self.keys
            .iter()
            .filter_map(|k| k.width_bits)
            .map(u64::from)
            .sum()
    }
}

#[cfg(test)]
mod internal_tests {
    use super::*;
    use crate::{FileId, Span};

    fn named(name: &str) -> Table {
        Table::new(name, Span::file_start(FileId(0)))
    }

    #[test]
    fn dollar_names_are_compiler_internal() {
        assert!(named("FabricIngressParser.$PORT_METADATA").is_compiler_internal());
        assert!(named("$PORT_METADATA").is_compiler_internal());
        assert!(!named("FabricIngress.forwarding.bridging").is_compiler_internal());
        assert!(!named("tbl_act").is_compiler_internal());
    }
}

/// A parameter of an action (its action data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// Parameter name.
    pub name: String,
    /// Width in bits, when known.
    pub width_bits: Option<u32>,
}

/// One primitive operation of an action body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Primitive {
    /// The operation (`assign`, `add`, `register.write`, `mark_to_drop`,
    /// ...).
    pub op: String,
    /// Site of the operation.
    pub span: Span,
}

/// A header made valid or invalid for certain by an action or statement:
/// `setValid()` / `setInvalid()` (BMv2 `add_header` / `remove_header`) not
/// undone or made uncertain before the action or statement ends (by a
/// whole-header assignment, or by being under an `if`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValiditySet {
    /// The header (`hdr.vlan`).
    pub header: String,
    /// True for `setValid`, false for `setInvalid`.
    pub valid: bool,
}

impl ValiditySet {
    /// Records `header.setValid()` (`valid`) or `.setInvalid()` in `sets`,
    /// the effects so far of straight-line code: the latest call wins.
    pub fn record(sets: &mut Vec<ValiditySet>, header: &str, valid: bool) {
        sets.retain(|s| s.header != header);
        sets.push(ValiditySet {
            header: header.to_string(),
            valid,
        });
    }

    /// Forgets what `sets` knows of headers a write of `place` may change:
    /// the header itself (`hdr.x = ...`), a struct or stack holding it. A
    /// field write (`hdr.x.ttl`) changes no validity.
    pub fn clobber(sets: &mut Vec<ValiditySet>, place: &str) {
        let place = place.strip_suffix(".$valid").unwrap_or(place);
        sets.retain(|s| {
            let h = s.header.as_str();
            let inside = h.len() > place.len()
                && h.starts_with(place)
                && matches!(h.as_bytes()[place.len()], b'.' | b'[');
            let same_stack = match (h.find('['), place.find('[')) {
                (Some(i), _) => h[..i] == *place || place.starts_with(&h[..=i]),
                _ => false,
            };
            !(h == place || inside || same_stack)
        });
    }

    /// The headers both `a` and `b` set, the same way (what holds after an
    /// `if` whose branches end with `a` and `b`).
    pub fn common(a: &[ValiditySet], b: &[ValiditySet]) -> Vec<ValiditySet> {
        a.iter().filter(|s| b.contains(s)).cloned().collect()
    }
}

/// A field set to the constant 0 or 1 (`false` / `true`): `hit = true;`,
/// p4c's `hasReturned = true` for a `return` in an inlined control.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagSet {
    /// The field (canonical name).
    pub field: String,
    /// True for 1 / `true`.
    pub value: bool,
}

impl FlagSet {
    /// Records `field = value` in `sets`, the effects so far of
    /// straight-line code: the latest assignment wins.
    pub fn record(sets: &mut Vec<FlagSet>, field: &str, value: bool) {
        sets.retain(|s| s.field != field);
        sets.push(FlagSet {
            field: field.to_string(),
            value,
        });
    }

    /// Forgets what `sets` knows of fields a write of `place` may change:
    /// the field itself, or a struct or header holding it.
    pub fn clobber(sets: &mut Vec<FlagSet>, place: &str) {
        sets.retain(|s| {
            let f = s.field.as_str();
            let inside = f.len() > place.len()
                && f.starts_with(place)
                && matches!(f.as_bytes()[place.len()], b'.' | b'[');
            !(f == place || inside)
        });
    }

    /// The fields both `a` and `b` set, the same way.
    pub fn common(a: &[FlagSet], b: &[FlagSet]) -> Vec<FlagSet> {
        a.iter().filter(|s| b.contains(s)).cloned().collect()
    }
}

/// An action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// Name as declared (qualified when the input qualifies it).
    pub name: String,
    /// Action-data parameters.
    pub params: Vec<Param>,
    /// Fields read by the body.
    pub reads: Vec<String>,
    /// Fields written by the body.
    pub writes: Vec<String>,
    /// The body's operations in order.
    pub primitives: Vec<Primitive>,
    /// Extern objects the body calls, in order.
    #[serde(default)]
    pub externs: Vec<ExternCall>,
    /// Headers the action leaves valid or invalid for certain.
    #[serde(default)]
    pub validity: Vec<ValiditySet>,
    /// Fields the action leaves holding a constant 0 or 1 for certain (a
    /// `bool` flag such as the `hasReturned` p4c makes of a `return`).
    #[serde(default)]
    pub flags: Vec<FlagSet>,
    /// Annotations on the action.
    pub annotations: Vec<Annotation>,
    /// Declaration site.
    pub span: Span,
}

/// Most names an [`ExternCall::index_reads`] keeps (an index computed
/// through a long chain of copies keeps the first).
pub const MAX_INDEX_READS: usize = 32;

/// What a call on an extern object costs in the match-action unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExternUse {
    /// A register read/write through a stateful ALU (`RegisterAction`,
    /// `register.read/write`, `DirectRegisterAction`).
    StatefulAlu,
    /// A counter update.
    Counter,
    /// A meter (color-aware or not).
    Meter,
    /// A low-pass filter.
    Lpf,
    /// A weighted random early detection unit.
    Wred,
    /// A hash computation.
    Hash,
    /// A random number.
    Random,
    /// A checksum computation.
    Checksum,
    /// A digest to the control plane.
    Digest,
    /// A mirror session.
    Mirror,
    /// A resubmit.
    Resubmit,
    /// Any other extern method.
    Other,
}

impl ExternUse {
    /// The use of a method call on an instance of the extern type `ty`
    /// (`RegisterAction`, `Meter`, `Hash`, v1model's `register`, ...).
    pub fn of_type(ty: &str) -> ExternUse {
        match ty {
            "Register"
            | "DirectRegister"
            | "RegisterAction"
            | "DirectRegisterAction"
            | "RegisterAction2"
            | "register"
            | "MathUnit"
            | "RegisterParam" => ExternUse::StatefulAlu,
            "Counter" | "DirectCounter" | "counter" | "direct_counter" => ExternUse::Counter,
            "Meter" | "DirectMeter" | "meter" | "direct_meter" => ExternUse::Meter,
            "Lpf" | "DirectLpf" => ExternUse::Lpf,
            "Wred" | "DirectWred" => ExternUse::Wred,
            "Hash" | "CRCPolynomial" => ExternUse::Hash,
            "Random" => ExternUse::Random,
            "Checksum" | "InternetChecksum" => ExternUse::Checksum,
            "Digest" => ExternUse::Digest,
            "Mirror" => ExternUse::Mirror,
            "Resubmit" => ExternUse::Resubmit,
            _ => ExternUse::Other,
        }
    }

    /// True for uses that need a stateful, meter or LPF/WRED ALU.
    pub fn needs_meter_alu(self) -> bool {
        matches!(
            self,
            ExternUse::StatefulAlu | ExternUse::Meter | ExternUse::Lpf | ExternUse::Wred
        )
    }
}

/// One call of an extern method in an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternCall {
    /// Instance name (`reg_act`, `hash`).
    pub instance: String,
    /// Its extern type name, when known (`RegisterAction`).
    pub ty: String,
    /// Method (`execute`, `get`, `count`).
    pub method: String,
    /// What the call uses.
    pub uses: ExternUse,
    /// True when the stateful action divides or takes a modulo (costs
    /// extra cycles on Tofino).
    #[serde(default)]
    pub divides: bool,
    /// The fields and locals the call's index argument reads (a register
    /// `read`/`write`, a stateful `execute`): empty for a constant index
    /// or a call without one.
    /// At most [`MAX_INDEX_READS`].
    #[serde(default)]
    pub index_reads: Vec<String>,
    /// Where the call puts the value it reads (`r.read(dst, i)`, or the
    /// place assigned `r.execute(i)`), when it reads one into a place.
    #[serde(default)]
    pub result: Option<String>,
    /// Site of the call.
    pub span: Span,
}

#[cfg(test)]
mod validity_tests {
    use super::ValiditySet;

    fn set(h: &str, v: bool) -> ValiditySet {
        ValiditySet {
            header: h.into(),
            valid: v,
        }
    }

    #[test]
    fn the_latest_call_wins_and_writes_of_the_header_forget_it() {
        let mut s = Vec::new();
        ValiditySet::record(&mut s, "hdr.vlan", true);
        ValiditySet::record(&mut s, "hdr.ipv4", false);
        ValiditySet::record(&mut s, "hdr.vlan", false);
        assert_eq!(s, [set("hdr.ipv4", false), set("hdr.vlan", false)]);
        ValiditySet::clobber(&mut s, "hdr.ipv4.ttl");
        assert_eq!(s.len(), 2, "a field write keeps validity");
        ValiditySet::clobber(&mut s, "hdr.ipv4");
        assert_eq!(s, [set("hdr.vlan", false)]);
        ValiditySet::clobber(&mut s, "hdr");
        assert!(s.is_empty(), "a write of the struct holding it");
        let mut t = vec![set("hdr.s[1]", true)];
        ValiditySet::clobber(&mut t, "hdr.s[0]");
        assert!(t.is_empty(), "another element of the same stack");
    }

    #[test]
    fn after_an_if_only_what_both_branches_set() {
        let a = [set("hdr.a", true), set("hdr.b", true)];
        let b = [set("hdr.a", true), set("hdr.b", false)];
        assert_eq!(ValiditySet::common(&a, &b), [set("hdr.a", true)]);
    }
}
