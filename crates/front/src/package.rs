//! Package binding: which parser and controls form the pipeline(s), found
//! by following the `main` instantiation through nested packages. Each
//! pipeline is named for its instance (`pipe`, `pipeline_profile_a`), for
//! the package parameter it is written inline in (`pipe0`), or `main` for
//! a single-pipeline package (v1model, PSA).

use std::collections::HashMap;

use p4cost_ir as ir;
use p4cost_syntax::ast::{self, Expr, ExprKind, Instantiation};

use crate::lower::Cx;

/// Most package instances bound under `main` (a Tofino `Switch` has at
/// most 4 pipelines; the bound also stops self-referencing instances).
const MAX_PACKAGE_BINDINGS: u32 = 64;

/// What a package parameter is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Parser(ir::Gress),
    Control(ir::ControlRole, ir::Gress),
}

fn classify(p: &ast::Param, is_parser: bool) -> Slot {
    let ty = crate::scope::type_base_name(&p.ty).unwrap_or("");
    let key = format!("{} {}", p.name.name, ty).to_ascii_lowercase();
    let gress = if key.contains("egress") || key.starts_with("eg") || key.starts_with("ep") {
        ir::Gress::Egress
    } else if key.contains("ghost") {
        ir::Gress::Ghost
    } else {
        ir::Gress::Ingress
    };
    if is_parser {
        return Slot::Parser(gress);
    }
    let role = if key.contains("deparse") || key.starts_with("dep") {
        ir::ControlRole::Deparser
    } else if key.contains("checksum") {
        ir::ControlRole::Checksum
    } else if gress == ir::Gress::Egress {
        ir::ControlRole::Egress
    } else if gress == ir::Gress::Ghost {
        ir::ControlRole::Other
    } else {
        ir::ControlRole::Ingress
    };
    Slot::Control(role, gress)
}

/// Binds parsers and controls to pipelines, starting from `main`.
pub fn bind(
    cx: &mut Cx<'_, '_>,
    parsers: &HashMap<String, ir::ParserId>,
    controls: &HashMap<String, ir::ControlId>,
) {
    let Some(main) = cx.g.instances.get("main").copied() else {
        cx.program
            .notes
            .push("the program has no `main` package instantiation; parsers and controls are bound by name".into());
        bind_by_name(cx);
        return;
    };
    let mut seen = 0;
    instantiate(cx, main, &main.name.name, parsers, controls, &mut seen);
}

fn target(e: &Expr) -> Option<(&str, &[ast::Argument])> {
    match &e.kind {
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Path(p) => Some((p.name.name.as_str(), &args[..])),
            _ => None,
        },
        ExprKind::Path(p) => Some((p.name.name.as_str(), &[])),
        _ => None,
    }
}

fn instantiate(
    cx: &mut Cx<'_, '_>,
    inst: &Instantiation,
    name: &str,
    parsers: &HashMap<String, ir::ParserId>,
    controls: &HashMap<String, ir::ControlId>,
    depth: &mut u32,
) {
    let Some(ty) = crate::scope::type_base_name(&inst.ty).map(str::to_string) else {
        return;
    };
    if let Some(pipe) = bind_package(cx, &ty, &inst.args, name, parsers, controls, depth) {
        push_pipeline(cx, pipe);
    }
}

/// Binds one package instance. Nested packages that bind controls are
/// pipelines of their own (pushed here); nested packages of parsers only
/// (`IngressParsers` of a `MultiParserPipeline`) lend their parsers to
/// this one. Returns this package's binding when it bound anything.
fn bind_package(
    cx: &mut Cx<'_, '_>,
    ty: &str,
    args: &[ast::Argument],
    name: &str,
    parsers: &HashMap<String, ir::ParserId>,
    controls: &HashMap<String, ir::ControlId>,
    depth: &mut u32,
) -> Option<ir::Pipeline> {
    *depth += 1;
    if *depth > MAX_PACKAGE_BINDINGS {
        let msg = format!(
            "more than {MAX_PACKAGE_BINDINGS} package instances under `main`: the bindings \
             from `{name}` on are not analysed"
        );
        if !cx.program.notes.iter().any(|n| n.starts_with("more than ")) {
            cx.program.notes.push(msg);
        }
        return None;
    }
    let pkg = cx.g.packages.get(ty).copied()?;
    let mut extra_parsers: Vec<(ir::Gress, ir::ParserId)> = Vec::new();
    let mut pipe = ir::Pipeline {
        name: name.to_string(),
        ..Default::default()
    };
    let mut bound_any = false;
    for (i, a) in args.iter().enumerate() {
        let param = match &a.name {
            Some(n) => pkg.params.iter().find(|p| p.name.name == n.name),
            None => pkg.params.get(i),
        };
        let Some(param) = param else { continue };
        let Some((mut tname, mut targs)) = target(&a.value) else {
            continue;
        };
        // An instance name: look through it.
        let mut inner_name = param.name.name.clone();
        if let Some(i2) = cx.g.instances.get(tname).copied() {
            if let ast::TypeKind::Name(n) | ast::TypeKind::Specialized { base: n, .. } = &i2.ty.kind
            {
                inner_name = i2.name.name.clone();
                tname = n.name.name.as_str();
                targs = &i2.args;
            }
        }
        let tname = tname.to_string();
        if let Some(&pid) = parsers.get(&tname) {
            if let Slot::Parser(g) = classify(param, true) {
                if let Some(p) = cx.program.parsers.get_mut(pid.index()) {
                    p.gress = g;
                }
                let slot = match g {
                    ir::Gress::Egress => &mut pipe.egress_parser,
                    _ => &mut pipe.ingress_parser,
                };
                if slot.is_some() {
                    extra_parsers.push((g, pid));
                } else {
                    *slot = Some(pid);
                }
                bound_any = true;
            }
        } else if let Some(&cid) = controls.get(&tname) {
            if let Slot::Control(mut role, g) = classify(param, false) {
                // Whatever its slot is called, a control that takes a
                // `packet_out` emits headers: it is a deparser.
                if emits_packets(cx, &tname) {
                    role = ir::ControlRole::Deparser;
                }
                if let Some(c) = cx.program.controls.get_mut(cid.index()) {
                    c.role = role;
                    c.gress = g;
                }
                match (role, g) {
                    (ir::ControlRole::Ingress, _) => pipe.ingress = Some(cid),
                    (ir::ControlRole::Egress, _) => pipe.egress = Some(cid),
                    (ir::ControlRole::Deparser, ir::Gress::Egress) => {
                        pipe.egress_deparser = Some(cid)
                    }
                    (ir::ControlRole::Deparser, _) => pipe.ingress_deparser = Some(cid),
                    _ => {}
                }
                bound_any = true;
            }
        } else if cx.g.packages.contains_key(tname.as_str()) {
            let targs = targs.to_vec();
            let inner = bind_package(cx, &tname, &targs, &inner_name, parsers, controls, depth);
            let Some(inner) = inner else { continue };
            let has_controls = inner.ingress.is_some()
                || inner.egress.is_some()
                || inner.ingress_deparser.is_some()
                || inner.egress_deparser.is_some();
            if has_controls {
                push_pipeline(cx, inner);
                continue;
            }
            for (slot, p) in [
                (&mut pipe.ingress_parser, inner.ingress_parser),
                (&mut pipe.egress_parser, inner.egress_parser),
            ] {
                if let Some(p) = p {
                    if slot.is_some() {
                        extra_parsers.push((ir::Gress::Ingress, p));
                    } else {
                        *slot = Some(p);
                    }
                }
            }
            bound_any = true;
        }
    }
    if !extra_parsers.is_empty() {
        let names: Vec<String> = extra_parsers
            .iter()
            .filter_map(|(_, p)| cx.program.parsers.get(p.index()).map(|p| p.name.clone()))
            .collect();
        cx.program.notes.push(format!(
            "`{name}` binds more than one parser per gress (parsers chosen by port): only the \
             first of each gress is analysed; not analysed: {}",
            names.join(", ")
        ));
    }
    bound_any.then_some(pipe)
}

/// Adds a pipeline binding. The same instance bound twice (`Switch(pipe,
/// pipe)`) is one pipeline: it is kept once, with a note saying so.
fn push_pipeline(cx: &mut Cx<'_, '_>, pipe: ir::Pipeline) {
    if let Some(prev) = cx.program.pipelines.iter().find(|p| p.name == pipe.name) {
        let msg = if *prev == pipe {
            format!(
                "pipeline `{}` is bound more than once by `main`: the same pipeline, analysed once",
                pipe.name
            )
        } else {
            format!(
                "two different pipelines are both named `{}`: only the first is analysed",
                pipe.name
            )
        };
        if !cx.program.notes.contains(&msg) {
            cx.program.notes.push(msg);
        }
        return;
    }
    cx.program.pipelines.push(pipe);
}

/// True when control `name` has a `packet_out` parameter.
fn emits_packets(cx: &Cx<'_, '_>, name: &str) -> bool {
    cx.g.controls.get(name).is_some_and(|c| {
        c.params
            .iter()
            .any(|p| matches!(&p.ty.kind, ast::TypeKind::Name(n) if n.name.name == "packet_out"))
    })
}

/// Without `main`: controls named like ingress/egress get those roles.
fn bind_by_name(cx: &mut Cx<'_, '_>) {
    for c in &mut cx.program.controls {
        let n = c.name.to_ascii_lowercase();
        if n.contains("deparser") {
            c.role = ir::ControlRole::Deparser;
        } else if n.contains("ingress") {
            c.role = ir::ControlRole::Ingress;
            c.gress = ir::Gress::Ingress;
        } else if n.contains("egress") {
            c.role = ir::ControlRole::Egress;
            c.gress = ir::Gress::Egress;
        }
    }
}

/// The architecture, from the includes read and the `main` package type.
pub fn detect_arch(cx: &Cx<'_, '_>) -> ir::Arch {
    let mut arch = ir::Arch::Unknown;
    for f in &cx.spans.out.files {
        let base = f.path.rsplit(['/', '\\']).next().unwrap_or(&f.path);
        let found = match p4cost_arch::arch_of(base) {
            Some("tna") => ir::Arch::Tna,
            Some("t2na") => ir::Arch::T2na,
            Some("v1model") => ir::Arch::V1model,
            Some("psa") => ir::Arch::Psa,
            Some("pna") => ir::Arch::Pna,
            Some("ebpf") => ir::Arch::Ebpf,
            Some("ubpf") => ir::Arch::Ubpf,
            Some("xdp") => ir::Arch::Xdp,
            _ => continue,
        };
        // t2na.p4 includes Tofino 2 files; the entry file decides.
        if arch == ir::Arch::Unknown {
            arch = found;
        }
    }
    arch
}
