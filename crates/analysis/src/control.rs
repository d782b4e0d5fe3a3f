//! Control-flow facts: which tables a control applies, how many paths its
//! graph has.

use p4cost_ir::{ControlId, NodeId, Program, TableId};

use crate::PathCount;

/// Tables applied anywhere in a control, in graph order, each once.
pub fn control_tables(program: &Program, control: ControlId) -> Vec<TableId> {
    program.control(control).flow.tables()
}

/// Number of distinct paths from the entry to the end of a control's
/// graph (an `exit` ends a path too). Linear in the graph size.
pub fn control_path_count(program: &Program, control: ControlId) -> PathCount {
    let flow = &program.control(control).flow;
    let Some(entry) = flow.entry else {
        return PathCount::exact(1);
    };
    // The graph is acyclic: count by memoised iterative post-order.
    let n = flow.nodes.len();
    let mut memo: Vec<Option<PathCount>> = vec![None; n];
    let mut stack: Vec<(NodeId, bool)> = vec![(entry, false)];
    let one = PathCount::exact(1);
    while let Some((id, expanded)) = stack.pop() {
        if id.index() >= n || memo[id.index()].is_some() {
            continue;
        }
        let succ = flow.node(id).successors();
        if expanded {
            let mut total = PathCount::default();
            if succ.is_empty() {
                total = one; // exit
            }
            for s in succ {
                let c = match s {
                    None => one,
                    Some(s) => memo.get(s.index()).copied().flatten().unwrap_or_default(),
                };
                total = total.plus(c);
            }
            memo[id.index()] = Some(total);
        } else {
            stack.push((id, true));
            for s in succ.into_iter().flatten() {
                if memo.get(s.index()).is_some_and(|m| m.is_none()) {
                    stack.push((s, false));
                }
            }
        }
    }
    memo.get(entry.index())
        .copied()
        .flatten()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::*;

    fn node(kind: NodeKind) -> Node {
        Node {
            kind,
            span: Span::file_start(FileId(0)),
        }
    }

    #[test]
    fn if_else_and_hit_miss_multiply() {
        let mut p = Program::new("t", InputKind::P4Source);
        // n0: if (c) -> n1 else n2 ; n1: t0 hit->n2 miss->end ; n2: t1 -> end
        let flow = ControlFlow {
            nodes: vec![
                node(NodeKind::Condition {
                    expr: "c".into(),
                    reads: vec![],
                    cond: Default::default(),
                    then_next: Some(NodeId(1)),
                    else_next: Some(NodeId(2)),
                }),
                node(NodeKind::Table {
                    table: TableId(0),
                    next: TableNext::HitMiss {
                        hit: Some(NodeId(2)),
                        miss: None,
                    },
                }),
                node(NodeKind::Table {
                    table: TableId(1),
                    next: TableNext::Always { next: None },
                }),
            ],
            entry: Some(NodeId(0)),
        };
        p.controls.push(Control {
            name: "Ig".into(),
            role: ControlRole::Ingress,
            gress: Gress::Ingress,
            flow,
            span: Span::file_start(FileId(0)),
        });
        // paths: c->t0 hit->t1, c->t0 miss, !c->t1  = 3
        assert_eq!(control_path_count(&p, ControlId(0)).value, 3);
        assert_eq!(
            control_tables(&p, ControlId(0)),
            vec![TableId(0), TableId(1)]
        );
    }
}
