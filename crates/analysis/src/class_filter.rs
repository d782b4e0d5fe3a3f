//! Selecting packet classes by what their control path does: `--class`.
//!
//! A filter is a comma-separated list of terms, all of which a class must
//! satisfy:
//!
//! | term            | the class ...                                        |
//! |-----------------|------------------------------------------------------|
//! | `acl`           | applies a table named `acl`                          |
//! | `!acl`          | applies no table named `acl`                         |
//! | `acl:hit`       | applies `acl` and goes the hit way after it          |
//! | `acl:miss`      | applies `acl` and goes the miss way                  |
//! | `acl:drop`      | applies `acl` and takes the `action_run` arm of `drop` |
//!
//! A name matches a table (or action) whose qualified name is the name or
//! ends with `.name` (`acl` matches `FabricIngress.acl.acl`). Hit, miss and
//! actions are decided only where the control branches on them
//! (`if (t.apply().hit)`, `switch (t.apply().action_run)`); a term that
//! needs one elsewhere matches no class.

use p4cost_ir::{ControlId, NodeKind, Program};

use crate::classes::{ListedClass, Outcome};

/// What a term asks of one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// The table is applied.
    Applied,
    /// The table is not applied.
    NotApplied,
    /// Applied, and the class goes the hit way.
    Hit,
    /// Applied, and the class goes the miss way.
    Miss,
    /// Applied, and the class takes the `action_run` arm of this action.
    Action(String),
}

/// One term of a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassTerm {
    /// Table name (qualified, or its last components).
    pub table: String,
    /// What the class must do with it.
    pub want: Want,
}

/// A `--class` filter: every term must hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassFilter {
    /// The terms, in the order written.
    pub terms: Vec<ClassTerm>,
}

/// True when `qualified` is `name` or ends with `.name`.
pub fn name_matches(qualified: &str, name: &str) -> bool {
    qualified == name
        || qualified
            .strip_suffix(name)
            .is_some_and(|rest| rest.ends_with('.'))
}

impl ClassFilter {
    /// Parses `acl:miss,routing_v4,!ipv6` (see the module documentation).
    pub fn parse(spec: &str) -> Result<ClassFilter, String> {
        let mut terms = Vec::new();
        for raw in spec.split(',') {
            let t = raw.trim();
            if t.is_empty() {
                return Err(format!("empty term in `--class {spec}`"));
            }
            let (neg, t) = match t.strip_prefix('!') {
                Some(rest) => (true, rest.trim()),
                None => (false, t),
            };
            let (table, what) = match t.split_once(':') {
                Some((a, b)) => (a.trim(), Some(b.trim())),
                None => (t, None),
            };
            let ok = |n: &str| {
                !n.is_empty()
                    && n.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'))
            };
            if !ok(table) {
                return Err(format!("`{raw}` in `--class`: expected a table name"));
            }
            let want = match (neg, what) {
                (true, None) => Want::NotApplied,
                (true, Some(_)) => {
                    return Err(format!(
                        "`{raw}` in `--class`: `!` takes a table name only (`!{table}`)"
                    ))
                }
                (false, None) => Want::Applied,
                (false, Some("hit")) => Want::Hit,
                (false, Some("miss")) => Want::Miss,
                (false, Some(a)) if ok(a) => Want::Action(a.to_string()),
                (false, Some(_)) => {
                    return Err(format!(
                        "`{raw}` in `--class`: expected `{table}:hit`, `{table}:miss` or `{table}:ACTION`"
                    ))
                }
            };
            terms.push(ClassTerm {
                table: table.to_string(),
                want,
            });
        }
        Ok(ClassFilter { terms })
    }

    /// Terms naming no table that `control` applies (the user's typos).
    pub fn unknown_tables(&self, program: &Program, control: ControlId) -> Vec<String> {
        let applied = program.control(control).flow.tables();
        self.terms
            .iter()
            .filter(|t| {
                !applied.iter().any(|id| {
                    program
                        .tables
                        .get(id.index())
                        .is_some_and(|tab| name_matches(&tab.name, &t.table))
                })
            })
            .map(|t| t.table.clone())
            .collect()
    }

    /// True when `class` (of `control`) satisfies every term.
    pub fn matches(&self, program: &Program, control: ControlId, class: &ListedClass) -> bool {
        let flow = &program.control(control).flow;
        let table_named = |id: p4cost_ir::TableId, name: &str| {
            program
                .tables
                .get(id.index())
                .is_some_and(|t| name_matches(&t.name, name))
        };
        let applied = |name: &str| {
            class
                .control_path
                .tables
                .iter()
                .any(|&t| table_named(t, name))
        };
        // The outcomes decided at nodes applying a table of that name.
        let outcomes = |name: &str| -> Vec<&Outcome> {
            class
                .decisions
                .iter()
                .filter(|d| {
                    matches!(flow.nodes.get(d.node.index()).map(|n| &n.kind),
                        Some(NodeKind::Table { table, .. }) if table_named(*table, name))
                })
                .map(|d| &d.outcome)
                .collect()
        };
        self.terms.iter().all(|t| match &t.want {
            Want::Applied => applied(&t.table),
            Want::NotApplied => !applied(&t.table),
            Want::Hit => outcomes(&t.table).contains(&&Outcome::Hit(true)),
            Want::Miss => outcomes(&t.table).contains(&&Outcome::Hit(false)),
            Want::Action(a) => outcomes(&t.table).iter().any(|o| match o {
                Outcome::ActionRun { actions, .. } => actions.iter().any(|id| {
                    program
                        .actions
                        .get(id.index())
                        .is_some_and(|act| name_matches(&act.name, a))
                }),
                _ => false,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_parse() {
        let f = ClassFilter::parse("acl:miss, FabricIngress.routing_v4 ,!ipv6,fwd:set_port,t:hit")
            .expect("parses");
        let wants: Vec<(&str, &Want)> = f
            .terms
            .iter()
            .map(|t| (t.table.as_str(), &t.want))
            .collect();
        assert_eq!(
            wants,
            [
                ("acl", &Want::Miss),
                ("FabricIngress.routing_v4", &Want::Applied),
                ("ipv6", &Want::NotApplied),
                ("fwd", &Want::Action("set_port".into())),
                ("t", &Want::Hit),
            ]
        );
    }

    #[test]
    fn bad_terms_are_refused_with_the_term() {
        for (spec, part) in [
            ("acl,,x", "empty term"),
            ("!acl:hit", "`!` takes a table name only"),
            ("acl:", "expected `acl:hit`"),
            ("a b", "expected a table name"),
        ] {
            let e = ClassFilter::parse(spec).expect_err(spec);
            assert!(e.contains(part), "{spec}: {e}");
        }
    }

    #[test]
    fn names_match_whole_trailing_components() {
        assert!(name_matches("FabricIngress.acl.acl", "acl"));
        assert!(name_matches("FabricIngress.acl.acl", "acl.acl"));
        assert!(name_matches("acl", "acl"));
        assert!(!name_matches("FabricIngress.my_acl", "acl"));
        assert!(!name_matches("acl2", "acl"));
    }
}
