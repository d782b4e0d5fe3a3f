//! Facts beside the parse graph and the control flow: the deparsers' emit
//! order and the extern instances (registers, counters, meters, action
//! profiles and selectors, and the rest).

use crate::{HashMap, HashSet};

use p4cost_ir as ir;
use p4cost_syntax::ast::{
    self, ControlDecl, Decl, ExprKind, Instantiation, LocalDecl, Stmt, StmtKind, TypeKind,
};

use crate::lower::{resolve_access, Cx, Locals};
use crate::scope::{expr_name, Shape};

/// Records the emit order of every control bound as a deparser.
pub fn deparsers<'a>(cx: &mut Cx<'a, '_>, program: &'a ast::Program) {
    let bound: Vec<String> = cx
        .program
        .controls
        .iter()
        .filter(|c| c.role == ir::ControlRole::Deparser)
        .map(|c| c.name.clone())
        .collect();
    for d in &program.decls {
        let Decl::Control(c) = d else { continue };
        if !bound.iter().any(|b| *b == c.name.name) {
            continue;
        }
        let order = match cx.taken_emits.remove(c.name.name.as_str()) {
            Some(order) => order,
            None => {
                let locals = Locals::from_params(&c.params);
                let mut order = Vec::new();
                emits(cx, &locals, &c.apply.stmts, &mut order);
                order
            }
        };
        let span = cx.spans.ir(c.span);
        cx.program.deparsers.push(ir::Deparser {
            name: c.name.name.as_str().to_owned(),
            order,
            span,
        });
    }
}

/// The headers `stmts` emit, in order (`pkt.emit(hdr)` of a struct emits
/// its headers), after those already in `order`.
pub fn emits<'a>(cx: &Cx<'a, '_>, locals: &Locals<'a>, stmts: &[Stmt], order: &mut Vec<String>) {
    let mut out = Order {
        seen: order.iter().cloned().collect(),
        names: std::mem::take(order),
        flattened: HashSet::default(),
    };
    emits_into(cx, locals, stmts, &mut out);
    *order = out.names;
}

/// An emit order being built: names in order, each once (a set beside
/// the list, so a deparser emitting thousands of headers stays linear),
/// and the arguments already flattened (emitting `hdr` twice walks its
/// type once).
struct Order {
    names: Vec<String>,
    seen: HashSet<String>,
    flattened: HashSet<String>,
}

impl Order {
    fn push(&mut self, name: String) {
        if self.seen.insert(name.clone()) {
            self.names.push(name);
        }
    }
}

fn emits_into<'a>(cx: &Cx<'a, '_>, locals: &Locals<'a>, stmts: &[Stmt], order: &mut Order) {
    for s in stmts {
        match &s.kind {
            StmtKind::Call(call) => {
                let ExprKind::Call { callee, args, .. } = &call.kind else {
                    continue;
                };
                let is_emit = matches!(&callee.kind, ExprKind::Member { member, .. } if member.name == "emit");
                if let (true, Some(a)) = (is_emit, args.first()) {
                    let name = expr_name(&a.value);
                    if !order.flattened.insert(name.clone()) {
                        continue;
                    }
                    match resolve_access(&cx.g, locals, &a.value).map(|x| x.shape) {
                        Some(shape) => flatten(cx, &name, &shape, order, 0),
                        None => order.push(name),
                    }
                }
            }
            StmtKind::Block(b) => emits_into(cx, locals, &b.stmts, order),
            StmtKind::If(i) => {
                emits_into(cx, locals, std::slice::from_ref(&i.then), order);
                if let Some(e) = &i.els {
                    emits_into(cx, locals, std::slice::from_ref(e), order);
                }
            }
            _ => {}
        }
    }
}

/// `emit(hdr)` of a struct emits its headers in field order (at most
/// `MAX_FLAT_FIELDS` of them: `lower_types` refuses bigger types).
fn flatten(cx: &Cx<'_, '_>, name: &str, shape: &Shape<'_>, order: &mut Order, depth: u32) {
    match shape {
        Shape::Aggregate(d) if d.kind == ast::StructKind::Struct && depth < 8 => {
            for f in &d.fields {
                if let Ok(s) = cx.g.shape(&f.ty, 0) {
                    flatten(cx, &format!("{name}.{}", f.name.name), &s, order, depth + 1);
                }
            }
        }
        Shape::Aggregate(_) | Shape::Stack(..) => order.push(name.to_string()),
        _ => {}
    }
}

/// Records every extern instance declared at the top level or in a
/// parser or control (parser and control instances are not externs).
/// The size of one declared in a control follows the control's instances:
/// its arguments are evaluated with each instance's constructor values
/// (`Meter(table_size, ...)` in `IngressMirrorMeter(...)(table_size)`);
/// where instances disagree, the figure is unknown, with a warning (the
/// program model has one record per declaration).
pub fn externs<'a>(cx: &mut Cx<'a, '_>, program: &'a ast::Program) {
    let mut found: Vec<(&'a Instantiation, Option<&'a ControlDecl>)> = Vec::new();
    for d in &program.decls {
        let (locals, ctl) = match d {
            Decl::Instantiation(i) => {
                found.push((i, None));
                continue;
            }
            Decl::Control(c) => (&c.locals, Some(c)),
            Decl::Parser(p) => (&p.locals, None),
            _ => continue,
        };
        for l in locals {
            if let LocalDecl::Instantiation(i) = l {
                found.push((i, ctl));
            }
        }
    }
    for (i, ctl) in found {
        let (ty, type_args) = match &i.ty.kind {
            TypeKind::Name(p) => (p.name.name.as_str(), &[][..]),
            TypeKind::Specialized { base, args } => (base.name.name.as_str(), args.as_slice()),
            _ => continue,
        };
        if !cx.g.externs.contains_key(ty) {
            continue;
        }
        let width = type_args
            .first()
            .and_then(|t| cx.g.shape(t, 0).ok())
            .and_then(|s| cx.g.fixed_bits(&s))
            .and_then(|b| u32::try_from(b).ok());
        let (kind, width_bits, direct) = match ty {
            "register" | "Register" => (ir::ExternKind::Register, width, false),
            "DirectRegister" => (ir::ExternKind::Register, width, true),
            "counter" | "Counter" => (ir::ExternKind::Counter, None, false),
            "direct_counter" | "DirectCounter" => (ir::ExternKind::Counter, None, true),
            "meter" | "Meter" => (ir::ExternKind::Meter, None, false),
            "direct_meter" | "DirectMeter" => (ir::ExternKind::Meter, None, true),
            "action_profile" | "ActionProfile" => (ir::ExternKind::ActionProfile, None, false),
            "action_selector" | "ActionSelector" => (ir::ExternKind::ActionSelector, None, false),
            other => (ir::ExternKind::Other(other.to_string()), None, false),
        };
        let per_instance: Vec<Sizes> = scopes(cx, ctl)
            .iter()
            .map(|(consts, values)| {
                let eval = |e: &ast::Expr| {
                    cx.g.eval_in(e, consts, values)
                        .and_then(|v| u64::try_from(v).ok())
                };
                sizes(i, ty, eval)
            })
            .collect();
        let sizes = agreed(cx, i, ctl, per_instance);
        let span = cx.spans.ir(i.span);
        cx.program.externs.push(ir::ExternInstance {
            max_group_size: sizes.max_group_size,
            args: sizes.args,
            works_on: works_on(i, ty),
            name: i.name.name.as_str().to_owned(),
            kind,
            size: sizes.size,
            width_bits,
            direct,
            span,
        });
    }
}

/// The register a `RegisterAction` (any TNA register action type) works
/// on: its first constructor argument, when that is a name.
fn works_on(i: &Instantiation, ty: &str) -> Option<String> {
    if !ty.contains("RegisterAction") {
        return None;
    }
    match &i.args.first()?.value.kind {
        ast::ExprKind::Path(p) => Some(p.name.name.as_str().to_owned()),
        _ => None,
    }
}

/// The figures of an extern instance its constructor arguments give.
#[derive(Clone, PartialEq, Default)]
struct Sizes {
    size: Option<u64>,
    max_group_size: Option<u64>,
    args: Vec<(String, u64)>,
}

/// Local constants and constructor parameter values.
type Scope<'a> = (HashMap<&'a str, &'a ast::Expr>, HashMap<String, i128>);

/// The constants and constructor values an extern declared in `ctl` (or
/// at the top level, or in a parser: `None`) is evaluated with: one pair
/// per instance of the control lowered for a pipeline, else the
/// declaration's defaults.
fn scopes<'a>(cx: &Cx<'a, '_>, ctl: Option<&'a ControlDecl>) -> Vec<Scope<'a>> {
    let Some(c) = ctl else {
        return vec![(HashMap::default(), HashMap::default())];
    };
    let consts: HashMap<&'a str, &'a ast::Expr> = c
        .locals
        .iter()
        .filter_map(|l| match l {
            LocalDecl::Const(k) => Some((k.name.name.as_str(), &k.value)),
            _ => None,
        })
        .collect();
    let values = match cx.instance_values.get(c.name.name.as_str()) {
        Some(v) if !v.is_empty() => v.clone(),
        _ => {
            let no = HashMap::default();
            let defaults =
                crate::ctor::values(&cx.g, &c.ctor_params, &[], &no, &HashMap::default());
            vec![defaults]
        }
    };
    values.into_iter().map(|v| (consts.clone(), v)).collect()
}

/// The size, group size and `Alpm` arguments of `i` (of type `ty`).
fn sizes(i: &Instantiation, ty: &str, eval: impl Fn(&ast::Expr) -> Option<u64>) -> Sizes {
    let arg = |n: usize| i.args.get(n).and_then(|a| eval(&a.value));
    let size = match ty {
        "register" | "Register" | "counter" | "Counter" | "meter" | "Meter" => arg(0),
        "action_profile" | "ActionProfile" => arg(0),
        // v1model: action_selector(algorithm, size, output width).
        "action_selector" => arg(1),
        // TNA's constructors vary by SDE version; the size is not
        // reliably one argument.
        _ => None,
    };
    // TNA's `ActionSelector(profile, hash, mode, max_group_size,
    // num_groups)` gives the group size; older forms do not.
    let max_group_size = match (ty, i.args.len()) {
        ("ActionSelector", 5) => arg(3),
        _ => None,
    };
    let args = match (ty, i.args.len()) {
        ("Alpm", _) => alpm_args(i, eval),
        // Its group count sizes the selector's RAM.
        ("ActionSelector", 5) => arg(4)
            .map(|n| vec![("num_groups".to_string(), n)])
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Sizes {
        size,
        max_group_size,
        args,
    }
}

/// The figures every instance agrees on; a warning names the ones that
/// differ, which are unknown.
fn agreed(
    cx: &mut Cx<'_, '_>,
    i: &Instantiation,
    ctl: Option<&ControlDecl>,
    mut per_instance: Vec<Sizes>,
) -> Sizes {
    let first = per_instance.pop().unwrap_or_default();
    if per_instance.iter().all(|s| *s == first) {
        return first;
    }
    let same = |f: &dyn Fn(&Sizes) -> Option<u64>| {
        let v = f(&first);
        per_instance
            .iter()
            .all(|s| f(s) == v)
            .then_some(v)
            .flatten()
    };
    let out = Sizes {
        size: same(&|s| s.size),
        max_group_size: same(&|s| s.max_group_size),
        args: first
            .args
            .iter()
            .filter(|a| per_instance.iter().all(|s| s.args.contains(a)))
            .cloned()
            .collect(),
    };
    let control = ctl.map(|c| c.name.name.as_str()).unwrap_or_default();
    cx.warn(
        i.span,
        format!(
            "`{}`: its constructor arguments differ between the instances of control `{control}`; the figures that differ are treated as unknown",
            i.name.name
        ),
    );
    out
}

/// The constant arguments of a TNA `Alpm(...)` by parameter name. Named
/// arguments are taken by name; of positional ones bf-p4c reads only the
/// first, as `number_partitions` (`bf-p4c/midend/alpm.cpp`,
/// `SplitAlpm::values_through_impl`), and so does this.
fn alpm_args(i: &Instantiation, eval: impl Fn(&ast::Expr) -> Option<u64>) -> Vec<(String, u64)> {
    const NAMES: [&str; 4] = [
        "number_partitions",
        "subtrees_per_partition",
        "atcam_subset_width",
        "shift_granularity",
    ];
    let mut out = Vec::new();
    for (n, a) in i.args.iter().enumerate() {
        let name = match &a.name {
            Some(id) => id.name.to_string(),
            None if n == 0 => NAMES[0].to_string(),
            None => continue,
        };
        if let Some(v) = eval(&a.value) {
            if NAMES.contains(&name.as_str()) {
                out.push((name, v));
            }
        }
    }
    out
}
