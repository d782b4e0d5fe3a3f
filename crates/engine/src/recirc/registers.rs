//! Register extern calls (`ExternUse::StatefulAlu`: v1model's
//! `register.read/write`, BMv2's `register_read`/`register_write`,
//! `RegisterAction.execute`) per control-flow node, and summed along a
//! class's route.

use p4cost_ir::{ActionId, ControlFlow, ExternCall, ExternUse, NodeId, NodeKind, Program};

use super::RegisterOps;

impl RegisterOps {
    /// All register calls.
    pub fn total(&self) -> usize {
        (self.reads as usize) + (self.writes as usize) + (self.other as usize)
    }

    fn add(&mut self, e: &ExternCall) {
        if e.uses != ExternUse::StatefulAlu {
            return;
        }
        match e.method.as_str() {
            "read" => self.reads += 1,
            "write" => self.writes += 1,
            _ => self.other += 1,
        }
    }

    fn plus(self, o: RegisterOps) -> RegisterOps {
        RegisterOps {
            reads: self.reads + o.reads,
            writes: self.writes + o.writes,
            other: self.other + o.other,
        }
    }
}

/// A node's register calls (a table: its dearest action's).
pub fn node_ops(program: &Program, kind: &NodeKind) -> RegisterOps {
    match kind {
        NodeKind::Table { table, .. } => program
            .table(*table)
            .actions
            .iter()
            .map(|a| action_ops(program, *a))
            .max_by_key(RegisterOps::total)
            .unwrap_or_default(),
        NodeKind::Action { action, .. } => action_ops(program, *action),
        NodeKind::Statement { externs, .. } => {
            let mut r = RegisterOps::default();
            externs.iter().for_each(|e| r.add(e));
            r
        }
        _ => RegisterOps::default(),
    }
}

fn action_ops(program: &Program, a: ActionId) -> RegisterOps {
    let mut r = RegisterOps::default();
    program.action(a).externs.iter().for_each(|e| r.add(e));
    r
}

/// The register calls of the nodes of a route (each node listed once per
/// call, as `route::sites` gives them).
pub fn along(program: &Program, flow: &ControlFlow, nodes: &[NodeId]) -> RegisterOps {
    let mut distinct = nodes.to_vec();
    distinct.dedup();
    distinct
        .iter()
        .map(|n| node_ops(program, &flow.node(*n).kind))
        .fold(RegisterOps::default(), RegisterOps::plus)
}
