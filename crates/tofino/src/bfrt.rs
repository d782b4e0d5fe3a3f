//! Reading a BF-RT JSON file (`bfrt.json` / `bf-rt.json`) and pairing its
//! tables with the match tables of a context.json.
//!
//! Format facts: the top level has `schema_version` and `tables[]`; each
//! table has `name` (qualified by the pipe, `pipe.SwitchIngress.forward`),
//! `table_type` (`MatchAction_Direct`, `MatchAction_Indirect`,
//! `MatchAction_Indirect_Selector`, `PortMetadata`, `Action`, `Selector`,
//! and fixed-function tables), `size` and `key[]` with `name`,
//! `match_type` (`Exact`, `Ternary`, `LPM`, `Range`, `Optional`) and
//! `type.width` for bit-string keys. Keys whose names start with `$` are
//! BF-RT's own (entry handles, priorities, member ids).

use std::collections::HashMap;

use p4cost_ir::{MatchKind, Program, Span, TableKey};
use serde_json::Value;

use crate::error::Fault;
use crate::json::{self, Loc};

/// One key of a BF-RT table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BfrtKey {
    pub name: String,
    pub match_type: String,
    pub width: Option<u32>,
}

/// One BF-RT table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BfrtTable {
    pub name: String,
    pub table_type: String,
    pub size: Option<u64>,
    pub keys: Vec<BfrtKey>,
}

/// Reads the tables of a parsed BF-RT document.
pub(crate) fn read(doc: &Value) -> Result<Vec<BfrtTable>, Fault> {
    let root = Loc::ROOT;
    let m = json::object(doc, &root)?;
    let t_loc = root.key("tables");
    let mut out = Vec::new();
    for (i, t) in json::array(json::field(m, "tables", &root)?, &t_loc)?
        .iter()
        .enumerate()
    {
        let loc = t_loc.index(i);
        let tm = json::object(t, &loc)?;
        let name = json::string(json::field(tm, "name", &loc)?, &loc.key("name"))?.to_string();
        let table_type = match json::opt(tm, "table_type") {
            Some(v) => json::string(v, &loc.key("table_type"))?.to_string(),
            None => String::new(),
        };
        let size = match json::opt(tm, "size") {
            Some(v) => Some(json::uint64(v, &loc.key("size"))?),
            None => None,
        };
        let mut keys = Vec::new();
        if let Some(ks) = json::opt(tm, "key") {
            let k_loc = loc.key("key");
            for (j, k) in json::array(ks, &k_loc)?.iter().enumerate() {
                let kl = k_loc.index(j);
                let km = json::object(k, &kl)?;
                let kname = json::string(json::field(km, "name", &kl)?, &kl.key("name"))?;
                let match_type = match json::opt(km, "match_type") {
                    Some(v) => json::string(v, &kl.key("match_type"))?.to_string(),
                    None => String::new(),
                };
                let width = match json::opt(km, "type") {
                    Some(ty) => {
                        let ty_loc = kl.key("type");
                        let tym = json::object(ty, &ty_loc)?;
                        match json::opt(tym, "width") {
                            Some(w) => Some(json::uint32(w, &ty_loc.key("width"))?),
                            None => None,
                        }
                    }
                    None => None,
                };
                keys.push(BfrtKey {
                    name: kname.to_string(),
                    match_type,
                    width,
                });
            }
        }
        out.push(BfrtTable {
            name,
            table_type,
            size,
            keys,
        });
    }
    Ok(out)
}

/// The P4 match kind for a BF-RT match type.
fn match_kind(bfrt: &str) -> MatchKind {
    MatchKind::from_name(&bfrt.to_ascii_lowercase())
}

/// Finds the context table a BF-RT table name stands for: the same name,
/// or the name without its pipe prefix. `by_name` maps each table name to
/// its first index.
fn find_table(by_name: &HashMap<String, usize>, bfrt_name: &str) -> Option<usize> {
    if let Some(&t) = by_name.get(bfrt_name) {
        return Some(t);
    }
    let (_, rest) = bfrt_name.split_once('.')?;
    by_name.get(rest).copied()
}

/// True for tables the compiler made up (marked `p4_hidden`, or named
/// `tbl_*` without a control prefix by older compilers): BF-RT does not
/// list them.
fn compiler_generated(t: &p4cost_ir::Table) -> bool {
    t.annotations.iter().any(|a| a.name == "hidden")
        || (t.name.starts_with("tbl_") && !t.name.contains('.'))
}

/// Pairs BF-RT tables with the program's tables: fills key widths, key
/// lists and sizes the context lacks, and adds notes for mismatches.
pub(crate) fn merge(program: &mut Program, tables: &[BfrtTable], bfrt_file: &str) {
    let file = program.add_file(bfrt_file);
    let span = Span::file_start(file);
    let mut paired = vec![false; program.tables.len()];
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, t) in program.tables.iter().enumerate() {
        by_name.entry(t.name.clone()).or_insert(i);
    }
    let mut m = Merged::default();
    for bt in tables {
        let is_match = bt.table_type.starts_with("MatchAction") || bt.table_type == "PortMetadata";
        let Some(ti) = find_table(&by_name, &bt.name) else {
            if is_match {
                m.unmatched.push(bt.name.clone());
            }
            continue;
        };
        if let Some(flag) = paired.get_mut(ti) {
            *flag = true;
        }
        if let Some(t) = program.tables.get_mut(ti) {
            m.keys(t, bt, span);
            m.size(t, bt);
        }
    }
    let unpaired: Vec<String> = program
        .tables
        .iter()
        .zip(paired.iter())
        .filter(|(t, p)| !**p && !compiler_generated(t))
        .map(|(t, _)| t.name.clone())
        .collect();
    let n_paired = paired.iter().filter(|p| **p).count();
    program.notes.push(format!(
        "bfrt.json {bfrt_file}: {n_paired} of {} match tables paired by name; \
         {} key widths and {} sizes filled from it",
        program.tables.len(),
        m.filled_widths,
        m.filled_sizes
    ));
    m.notes(&unpaired, &mut program.notes);
}

/// What pairing BF-RT tables with the program's filled in and found
/// different.
#[derive(Default)]
struct Merged {
    unmatched: Vec<String>,
    filled_widths: usize,
    filled_sizes: usize,
    size_diffs: Vec<String>,
    key_diffs: Vec<String>,
}

impl Merged {
    /// Takes a table's keys from BF-RT when the context has none, else
    /// fills missing widths and notes differing match kinds or counts.
    fn keys(&mut self, t: &mut p4cost_ir::Table, bt: &BfrtTable, span: Span) {
        let user_keys: Vec<&BfrtKey> = bt
            .keys
            .iter()
            .filter(|k| !k.name.starts_with('$'))
            .collect();
        if t.keys.is_empty() && !user_keys.is_empty() {
            t.keys = user_keys
                .iter()
                .map(|k| TableKey {
                    field: k.name.clone(),
                    width_bits: k.width,
                    match_kind: match_kind(&k.match_type),
                    reads: vec![k.name.clone()],
                    span,
                })
                .collect();
        } else if user_keys.len() == t.keys.len() {
            // BF-RT names keys by their @name; pair them by position.
            for (k, bk) in t.keys.iter_mut().zip(user_keys.iter()) {
                if k.width_bits.is_none() && bk.width.is_some() {
                    k.width_bits = bk.width;
                    self.filled_widths += 1;
                }
                let kind = match_kind(&bk.match_type);
                if kind != k.match_kind {
                    self.key_diffs.push(format!(
                        "{} key {} ({} in context.json, {} in bfrt.json)",
                        t.name,
                        k.field,
                        k.match_kind.name(),
                        kind.name()
                    ));
                }
            }
        } else {
            self.key_diffs.push(format!(
                "{} ({} keys in context.json, {} in bfrt.json)",
                t.name,
                t.keys.len(),
                user_keys.len()
            ));
        }
    }

    /// Takes a table's size from BF-RT when the context has none, else
    /// notes a different one.
    fn size(&mut self, t: &mut p4cost_ir::Table, bt: &BfrtTable) {
        match (t.size, bt.size) {
            (None, Some(s)) => {
                t.size = Some(s);
                self.filled_sizes += 1;
            }
            (Some(a), Some(b)) if a != b => {
                self.size_diffs.push(format!("{} ({a} vs {b})", t.name))
            }
            _ => {}
        }
    }

    /// The notes on tables found on one side only and on differences.
    fn notes(&self, unpaired: &[String], notes: &mut Vec<String>) {
        let lists: [(&str, &[String], &str); 4] = [
            (
                "bfrt.json match tables absent from context.json: ",
                &self.unmatched,
                ", ",
            ),
            (
                "context.json match tables (not compiler-hidden) absent from bfrt.json: ",
                unpaired,
                ", ",
            ),
            (
                "table sizes differ between context.json and bfrt.json: ",
                &self.size_diffs,
                ", ",
            ),
            (
                "keys differ between context.json and bfrt.json: ",
                &self.key_diffs,
                "; ",
            ),
        ];
        for (what, list, sep) in lists {
            if !list.is_empty() {
                notes.push(format!("{what}{}", list.join(sep)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_keys_and_widths() {
        let d = json!({"schema_version": "1.0.0", "tables": [
            {"name": "pipe.C.t", "table_type": "MatchAction_Direct", "size": 512,
             "key": [{"name": "hdr.a", "match_type": "Ternary", "type": {"type": "bytes", "width": 48}},
                     {"name": "$MATCH_PRIORITY", "match_type": "Exact", "type": {"type": "uint32"}}]}]});
        let t = read(&d).unwrap();
        assert_eq!(t[0].keys[0].width, Some(48));
        assert_eq!(t[0].keys[1].width, None);
        assert_eq!(match_kind(&t[0].keys[0].match_type), MatchKind::Ternary);
        assert_eq!(match_kind("LPM"), MatchKind::Lpm);
    }

    #[test]
    fn wrong_width_type_names_the_path() {
        let d = json!({"tables": [{"name": "t", "key": [{"name": "k", "type": {"width": "9"}}]}]});
        match read(&d) {
            Err(Fault::Type { path, .. }) => assert_eq!(path, "tables[0].key[0].type.width"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
