//! Canonical names (ARCHITECTURE.md, "Names") for what BMv2 JSON calls
//! header instances and fields, so a model read from the JSON names
//! fields as the P4 source front end does and the two compare.
//!
//! - A packet header instance (`"metadata": false`), header stack, union
//!   or union stack gets the `hdr.` prefix p4c drops: `ipv4.ttl` is
//!   `hdr.ipv4.ttl`, `mpls[0].label` is `hdr.mpls[0].label`.
//! - A header's validity bit `$valid$` is the field `<header>.$valid`.
//! - A metadata instance is named by the source path that holds it: the
//!   P4-14-style instance `acl_metadata` is `meta.acl_metadata` when the
//!   program's metadata parameter is `meta`; `standard_metadata` stays
//!   `standard_metadata` unless the program names its parameter otherwise.
//! - User metadata that p4c flattened into `scalars`
//!   (`metadata._ingress_metadata_flowlet_id2`: struct type, `_`, the
//!   field path joined with `_`, a counter) is mapped back to its source
//!   path (`meta.ingress_metadata.flowlet_id`).
//!
//! The JSON does not name the source's parameters, and flattening is not
//! reversible when names contain `_`, so the metadata names are learned
//! from the source text the JSON quotes: every `source_info.source_fragment`
//! and table key `name` is scanned for dotted paths (`meta.x.y`), and a
//! path that flattens to a JSON field votes for its root. Metadata nobody
//! quotes keeps its JSON name (`scalars.<field>`) and the reader says so
//! in a note. Compiler temporaries (`scalars.tmp_3`) keep their names:
//! the source has nothing they correspond to.

use std::collections::{HashMap, HashSet};

use crate::doc::Value;

use crate::access::J;
use crate::error::Result;
use crate::headers::Headers;

/// JSON names to canonical names.
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// JSON header, stack, union or union stack name -> canonical name.
    headers: HashMap<String, String>,
    /// `scalars` field -> canonical name, for the fields mapped.
    scalars: HashMap<String, String>,
    /// User-metadata fields of `scalars` left with their JSON names.
    pub unmapped: Vec<String>,
}

impl Names {
    /// The canonical name of a header instance, stack, union or metadata
    /// instance (unknown names are kept).
    pub fn header(&self, h: &str) -> String {
        match self.headers.get(h) {
            Some(n) => n.clone(),
            None => h.to_string(),
        }
    }

    /// The canonical name of field `f` of instance `h`; `$valid$` is
    /// `<header>.$valid`.
    pub fn field(&self, h: &str, f: &str) -> String {
        if f == "$valid$" {
            return format!("{}.$valid", self.header(h));
        }
        if h == "scalars" {
            if let Some(n) = self.scalars.get(f) {
                return n.clone();
            }
        }
        format!("{}.{f}", self.header(h))
    }
}

/// Builds the names of one document.
pub(crate) fn read(root: &J, headers: &Headers) -> Result<Names> {
    let paths = quoted_paths(root.v);
    let index = PathIndex::new(&paths);
    let mut names = Names::default();
    let mut scalar_fields: Vec<String> = Vec::new();
    let mut packet: HashSet<&str> = HashSet::new();
    for item in root.key_items("headers")? {
        let name = item.key_str("name")?;
        let metadata = match item.opt("metadata")? {
            Some(m) => m.bool()?,
            None => false,
        };
        if name == "scalars" {
            if let Some(ty) = headers.type_of_header(name) {
                scalar_fields = headers.field_names(ty).map(str::to_string).collect();
            }
            continue;
        }
        let canonical = if !metadata {
            packet.insert(name);
            format!("hdr.{name}")
        } else {
            let fields: HashSet<&str> = headers
                .type_of_header(name)
                .map(|ty| headers.field_names(ty).collect())
                .unwrap_or_default();
            metadata_root(name, &fields, &paths)
        };
        names.headers.insert(name.to_string(), canonical);
    }
    for key in ["header_stacks", "header_unions", "header_union_stacks"] {
        for item in root.opt_items(key)? {
            let name = item.key_str("name")?;
            names
                .headers
                .insert(name.to_string(), format!("hdr.{name}"));
        }
    }
    // Roots of quoted packet-header paths (`hdr`, or a sub-control's
    // `h`): their structure says nothing about metadata.
    let mut header_roots: HashSet<String> = HashSet::from(["hdr".to_string()]);
    for p in &paths {
        if let (Some(root), Some(second)) = (p.first(), p.get(1)) {
            let base = second.split('[').next().unwrap_or(second);
            if packet.contains(base) || packet.contains(second.as_str()) {
                header_roots.insert(root.clone());
            }
        }
    }
    map_scalars(&scalar_fields, &index, &header_roots, &mut names);
    Ok(names)
}

/// The canonical root of metadata instance `inst` with fields `fields`:
/// the source path the quoted paths most often put before its fields
/// (`meta.acl_metadata` for `meta.acl_metadata.acl_deny`), the instance
/// name itself when none does.
fn metadata_root(inst: &str, fields: &HashSet<&str>, paths: &[Vec<String>]) -> String {
    // Root -> the distinct fields quoted under it.
    let mut votes: HashMap<String, HashSet<&str>> = HashMap::new();
    for p in paths {
        let Some((last, before)) = p.split_last() else {
            continue;
        };
        let Some(&f) = fields.get(last.as_str()) else {
            continue;
        };
        let root = match before {
            [] => continue,
            // `standard_metadata.egress_spec`, or `sm.egress_spec` when
            // the parameter of the intrinsic metadata is called `sm`.
            [one] if one == inst || inst == "standard_metadata" => one.clone(),
            // `meta.acl_metadata.acl_deny`: a member named as the instance.
            [.., member] if member == inst => before.join("."),
            _ => continue,
        };
        votes.entry(root).or_default().insert(f);
    }
    best(votes.into_iter().map(|(r, f)| (r, f.len())), Some(inst)).unwrap_or_else(|| inst.into())
}

/// The root with the most votes; ties go to `prefer`, then to the
/// smallest name.
fn best(votes: impl Iterator<Item = (String, usize)>, prefer: Option<&str>) -> Option<String> {
    let mut all: Vec<(String, usize)> = votes.filter(|(_, n)| *n > 0).collect();
    all.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| (Some(b.0.as_str()) == prefer).cmp(&(Some(a.0.as_str()) == prefer)))
            .then_with(|| a.0.cmp(&b.0))
    });
    all.into_iter().next().map(|(r, _)| r)
}

/// Quoted paths by their flattened form: `meta.ingress_metadata.vrf`
/// is found under `ingress_metadata_vrf` as (`meta`, `ingress_metadata.vrf`),
/// and, for its structure alone, under `meta_ingress_metadata_vrf` as
/// (``, `meta.ingress_metadata.vrf`): a key `@name("sflow_metadata.x")`
/// quotes a path without its root.
struct PathIndex {
    by_flat: HashMap<String, Vec<(String, String)>>,
}

impl PathIndex {
    fn new(paths: &[Vec<String>]) -> PathIndex {
        let mut by_flat: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for p in paths {
            let Some((root, rest)) = p.split_first() else {
                continue;
            };
            if rest.is_empty() {
                continue;
            }
            for (flat, entry) in [
                (rest.join("_"), (root.clone(), rest.join("."))),
                (p.join("_"), (String::new(), p.join("."))),
            ] {
                let list = by_flat.entry(flat).or_default();
                if !list.contains(&entry) {
                    list.push(entry);
                }
            }
        }
        PathIndex { by_flat }
    }

    fn get(&self, flat: &str) -> &[(String, String)] {
        self.by_flat.get(flat).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// One user-metadata field of `scalars`: its JSON name and the flattened
/// source paths it may stand for (more than one when the counter p4c
/// appends cannot be told from the field name's own digits).
struct ScalarField {
    json: String,
    flats: Vec<String>,
}

/// Maps the `<type>.<field>` entries of `scalars` to source paths.
/// A field quoted under the winning root takes that path; one quoted only
/// under another metadata root (a sub-control's parameter, not one of
/// `header_roots`) takes its structure (`spgw.direction`) under the
/// winning root.
fn map_scalars(
    fields: &[String],
    index: &PathIndex,
    header_roots: &HashSet<String>,
    names: &mut Names,
) {
    for (ty, rests) in group_scalars(fields) {
        let members = scalar_members(ty, &rests);
        let Some(root) = vote_root(&members, index) else {
            names
                .unmapped
                .extend(members.iter().map(|m| format!("scalars.{}", m.json)));
            continue;
        };
        map_group(&members, &root, index, header_roots, names);
    }
}

/// `scalars` fields grouped by the prefix before the first `.` (the
/// metadata struct's type name, or `userMetadata`), in JSON order;
/// temporaries and locals (`tmp_3`, no `.`) are left out.
fn group_scalars(fields: &[String]) -> Vec<(&str, Vec<&str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for f in fields {
        let Some((ty, rest)) = f.split_once('.') else {
            continue;
        };
        match groups.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, v)) => v.push(rest),
            None => groups.push((ty, vec![rest])),
        }
    }
    groups
}

/// The fields of one group with the flattened names each may stand for.
fn scalar_members(ty: &str, rests: &[&str]) -> Vec<ScalarField> {
    let mut members = Vec::new();
    let mut counter = 0usize;
    for rest in rests {
        let flats = match rest.strip_prefix('_') {
            Some(flat) => {
                // p4c numbers the flattened fields 0, 1, 2, ... in order.
                let c = counter.to_string();
                counter += 1;
                match flat.strip_suffix(c.as_str()) {
                    Some(f) if !f.is_empty() => vec![f.to_string()],
                    _ => digit_splits(flat),
                }
            }
            None => vec![rest.replace('.', "_")],
        };
        members.push(ScalarField {
            json: format!("{ty}.{rest}"),
            flats,
        });
    }
    members
}

/// The source root that explains most of a group's fields (one vote per
/// field it can explain), if any does.
fn vote_root(members: &[ScalarField], index: &PathIndex) -> Option<String> {
    let mut votes: HashMap<&str, usize> = HashMap::new();
    for m in members {
        let mut roots: HashSet<&str> = HashSet::new();
        for flat in &m.flats {
            for (root, _) in index.get(flat) {
                if !root.is_empty() {
                    roots.insert(root);
                }
            }
        }
        for r in roots {
            *votes.entry(r).or_default() += 1;
        }
    }
    best(votes.into_iter().map(|(r, n)| (r.to_string(), n)), None)
}

/// Names a group's fields under `root`: quoted fields first; their
/// struct members (`ingress_metadata.`) then decode the fields nobody
/// quotes.
fn map_group(
    members: &[ScalarField],
    root: &str,
    index: &PathIndex,
    header_roots: &HashSet<String>,
    names: &mut Names,
) {
    let mut prefixes: Vec<(String, String)> = Vec::new();
    let mut pending = Vec::new();
    for m in members {
        match quoted_path(m, root, index, header_roots) {
            Some(dotted) => {
                let parts: Vec<&str> = dotted.split('.').collect();
                for i in 1..parts.len() {
                    let p = (
                        format!("{}_", parts[..i].join("_")),
                        format!("{}.", parts[..i].join(".")),
                    );
                    if !prefixes.contains(&p) {
                        prefixes.push(p);
                    }
                }
                names
                    .scalars
                    .insert(m.json.clone(), format!("{root}.{dotted}"));
            }
            None => pending.push(m),
        }
    }
    prefixes.sort_by_key(|(flat, _)| std::cmp::Reverse(flat.len()));
    for m in pending {
        let Some(flat) = m.flats.last() else { continue };
        let decoded = prefixes
            .iter()
            .find_map(|(pf, dotted)| {
                flat.strip_prefix(pf.as_str())
                    .filter(|r| !r.is_empty())
                    .map(|r| format!("{dotted}{r}"))
            })
            .unwrap_or_else(|| flat.clone());
        names
            .scalars
            .insert(m.json.clone(), format!("{root}.{decoded}"));
    }
}

/// The dotted source path of a field as quoted under `root`, else under
/// another metadata root (not one of `header_roots`).
fn quoted_path(
    m: &ScalarField,
    root: &str,
    index: &PathIndex,
    header_roots: &HashSet<String>,
) -> Option<String> {
    let quoted = |same_root: bool| {
        m.flats.iter().find_map(|flat| {
            index
                .get(flat)
                .iter()
                .find(|(r, _)| {
                    if same_root {
                        r == root
                    } else {
                        !header_roots.contains(r)
                    }
                })
                .map(|(_, dotted)| dotted.clone())
        })
    };
    quoted(true).or_else(|| quoted(false))
}

/// Every way to drop a trailing counter from a flattened name whose
/// counter is unknown, longest counter last (`hash132` -> `hash13`,
/// `hash1`, `hash`).
fn digit_splits(flat: &str) -> Vec<String> {
    let digits = flat.bytes().rev().take_while(u8::is_ascii_digit).count();
    let mut out: Vec<String> = (1..=digits)
        .map(|n| flat[..flat.len() - n].to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if out.is_empty() {
        out.push(flat.to_string());
    }
    out
}

/// Dotted paths (`meta.ingress_metadata.vrf`, `hdr.mpls[0].label`, as
/// lists of components) in the source text the document quotes: every
/// `source_fragment` string, and the `name` of every table key. The walk
/// uses an explicit stack.
fn quoted_paths(doc: &Value) -> Vec<Vec<String>> {
    let mut texts: Vec<&str> = Vec::new();
    let mut stack: Vec<(&Value, bool)> = vec![(doc, false)];
    while let Some((v, in_key_list)) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter() {
                    match (k, x) {
                        ("source_fragment", Value::String(s)) => texts.push(s),
                        ("name", Value::String(s)) if in_key_list => texts.push(s),
                        _ => stack.push((x, k == "key")),
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, in_key_list))),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut seen: HashSet<Vec<String>> = HashSet::new();
    // p4c quotes the same fragment many times (every use of a field):
    // a text seen before gives only paths seen before.
    let mut seen_texts: HashSet<&str> = HashSet::new();
    for t in texts {
        if !seen_texts.insert(t) {
            continue;
        }
        for p in paths_in(t) {
            if seen.insert(p.clone()) {
                out.push(p);
            }
        }
    }
    out
}

/// The dotted paths of one text: identifiers (with an optional constant
/// index, `mpls[0]`) joined by `.`, not preceded by an identifier
/// character, a digit or a `.` (so `32w5` and `a().b` give none).
fn paths_in(text: &str) -> Vec<Vec<String>> {
    let b = text.as_bytes();
    let ident_start = |c: u8| c.is_ascii_alphabetic() || c == b'_';
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = ident_start(b[i]) && (i == 0 || !(ident(b[i - 1]) || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        loop {
            let s = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            // A constant index: `[` digits `]`.
            if i < b.len() && b[i] == b'[' {
                let d = i + 1;
                let mut e = d;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                if e > d && e < b.len() && b[e] == b']' {
                    i = e + 1;
                }
            }
            parts.push(text[s..i].to_string());
            if i + 1 < b.len() && b[i] == b'.' && ident_start(b[i + 1]) {
                i += 1;
            } else {
                break;
            }
        }
        if parts.len() >= 2 {
            out.push(parts);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_dotted_identifiers() {
        let p = paths_in("meta.ingress_metadata.vrf = 32w5 + hdr.mpls[0].label; f(x).y");
        assert_eq!(
            p,
            vec![
                vec!["meta", "ingress_metadata", "vrf"],
                vec!["hdr", "mpls[0]", "label"],
            ]
        );
        assert!(paths_in("32w50000 x").is_empty());
    }

    fn scalars(fields: &[&str], quoted: &[&str]) -> Names {
        let paths: Vec<Vec<String>> = quoted.iter().flat_map(|t| paths_in(t)).collect();
        let index = PathIndex::new(&paths);
        let fields: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        let mut names = Names::default();
        let header_roots = HashSet::from(["hdr".to_string()]);
        map_scalars(&fields, &index, &header_roots, &mut names);
        names
    }

    #[test]
    fn flattened_metadata_maps_to_source_paths() {
        let n = scalars(
            &[
                "tmp_0",
                "metadata._ingress_metadata_flow_ipg0",
                "metadata._ingress_metadata_flowlet_id1",
                "metadata._hash12",
            ],
            &[
                "meta.ingress_metadata.flow_ipg > 32w50000",
                "meta.hash1 = 1",
            ],
        );
        let f = |x: &str| n.field("scalars", x);
        assert_eq!(
            f("metadata._ingress_metadata_flow_ipg0"),
            "meta.ingress_metadata.flow_ipg"
        );
        // Not quoted: decoded with the struct member learned above.
        assert_eq!(
            f("metadata._ingress_metadata_flowlet_id1"),
            "meta.ingress_metadata.flowlet_id"
        );
        // The counter (2) follows the field's own trailing digit.
        assert_eq!(f("metadata._hash12"), "meta.hash1");
        assert_eq!(f("tmp_0"), "scalars.tmp_0");
        assert!(n.unmapped.is_empty());
    }

    #[test]
    fn structure_from_another_metadata_root() {
        // `spgw.direction` is quoted only through a sub-control's
        // parameter `fabric_meta`; `hdr.ipv4.ttl` lends no structure.
        let n = scalars(
            &[
                "fm_t._vlan_id0",
                "fm_t._spgw_direction1",
                "fm_t._ipv4_ttl2",
                "fm_t._eth_type3",
            ],
            &[
                "fabric_metadata.vlan_id == fabric_metadata.eth_type",
                "fabric_meta.spgw.direction",
                "hdr.ipv4.ttl",
            ],
        );
        assert_eq!(
            n.field("scalars", "fm_t._vlan_id0"),
            "fabric_metadata.vlan_id"
        );
        assert_eq!(
            n.field("scalars", "fm_t._spgw_direction1"),
            "fabric_metadata.spgw.direction"
        );
        assert_eq!(
            n.field("scalars", "fm_t._ipv4_ttl2"),
            "fabric_metadata.ipv4_ttl"
        );
    }

    #[test]
    fn structure_from_a_rootless_key_name() {
        // switch_p4_16: `@name("sflow_metadata.sflow_session_id")` on a key
        // of `meta.sflow_metadata.sflow_session_id`.
        let n = scalars(
            &[
                "metadata._acl_metadata_acl_deny0",
                "metadata._sflow_metadata_sflow_session_id1",
            ],
            &[
                "meta.acl_metadata.acl_deny",
                "sflow_metadata.sflow_session_id",
            ],
        );
        assert_eq!(
            n.field("scalars", "metadata._sflow_metadata_sflow_session_id1"),
            "meta.sflow_metadata.sflow_session_id"
        );
    }

    #[test]
    fn counters_out_of_order_try_every_split() {
        // `hash1` numbered 32 where 0 was expected: the quoted path decides.
        let n = scalars(&["m._hash132"], &["meta.hash1"]);
        assert_eq!(n.field("scalars", "m._hash132"), "meta.hash1");
    }

    #[test]
    fn unquoted_metadata_keeps_its_json_name() {
        let n = scalars(&["M.hash1"], &["hdr.ipv4.ttl"]);
        assert_eq!(n.field("scalars", "M.hash1"), "scalars.M.hash1");
        assert_eq!(n.unmapped, vec!["scalars.M.hash1"]);
        let n = scalars(&["M.hash1"], &["meta.hash1"]);
        assert_eq!(n.field("scalars", "M.hash1"), "meta.hash1");
    }

    #[test]
    fn metadata_instances_take_the_quoted_root() {
        let fields: HashSet<&str> = ["acl_deny", "bd_label"].into_iter().collect();
        let paths: Vec<Vec<String>> = ["meta.acl_metadata.acl_deny == 1", "x.bd_label"]
            .iter()
            .flat_map(|t| paths_in(t))
            .collect();
        assert_eq!(
            metadata_root("acl_metadata", &fields, &paths),
            "meta.acl_metadata"
        );
        let sm: HashSet<&str> = ["egress_spec"].into_iter().collect();
        let paths: Vec<Vec<String>> = paths_in("sm.egress_spec = 1");
        assert_eq!(metadata_root("standard_metadata", &sm, &paths), "sm");
        assert_eq!(
            metadata_root("standard_metadata", &sm, &[]),
            "standard_metadata"
        );
    }
}
