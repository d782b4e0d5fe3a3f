//! Package binding: which parser and controls form the pipeline(s), found
//! by following the `main` instantiation through nested packages. Each
//! pipeline is named for its instance (`pipe`, `pipeline_profile_a`), for
//! the package parameter it is written inline in (`pipe0`), or `main` for
//! a single-pipeline package (v1model, PSA).

use crate::HashMap;

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
    cx.program.main_package = crate::scope::type_base_name(&main.ty).map(str::to_string);
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
/// pipelines of their own, or halves of this one (see [`settle_nested`]);
/// nested packages of parsers only (`IngressParsers` of a
/// `MultiParserPipeline`) lend their parsers to this one. Returns this
/// package's binding when it bound anything.
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
    let mut b = Binding {
        pipe: ir::Pipeline {
            name: name.to_string(),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut nested: Vec<ir::Pipeline> = Vec::new();
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
            bind_parser(cx, &mut b, param, pid);
        } else if let Some(&cid) = controls.get(&tname) {
            bind_control(cx, &mut b, param, &tname, cid);
        } else if cx.g.packages.contains_key(tname.as_str()) {
            let targs = targs.to_vec();
            let inner = bind_package(cx, &tname, &targs, &inner_name, parsers, controls, depth);
            let Some(inner) = inner else { continue };
            if has_controls(&inner) {
                nested.push(inner);
            } else {
                b.lend_parsers(&inner);
            }
        }
    }
    settle_nested(cx, &mut b, nested);
    b.note_extra_parsers(cx, name);
    b.bound_any.then_some(b.pipe)
}

/// One package's binding while its arguments are read.
#[derive(Default)]
struct Binding {
    pipe: ir::Pipeline,
    /// Parsers past the first of their gress (chosen by port).
    extra_parsers: Vec<ir::ParserId>,
    bound_any: bool,
}

impl Binding {
    /// Puts a parser in its gress's slot, or with the extras when taken.
    fn put_parser(&mut self, g: ir::Gress, pid: ir::ParserId) {
        let slot = match g {
            ir::Gress::Egress => &mut self.pipe.egress_parser,
            _ => &mut self.pipe.ingress_parser,
        };
        if slot.is_some() {
            self.extra_parsers.push(pid);
        } else {
            *slot = Some(pid);
        }
        self.bound_any = true;
    }

    /// Takes the parsers of a nested package of parsers only.
    fn lend_parsers(&mut self, inner: &ir::Pipeline) {
        if let Some(p) = inner.ingress_parser {
            self.put_parser(ir::Gress::Ingress, p);
        }
        if let Some(p) = inner.egress_parser {
            self.put_parser(ir::Gress::Egress, p);
        }
        self.bound_any = true;
    }

    fn note_extra_parsers(&self, cx: &mut Cx<'_, '_>, name: &str) {
        if self.extra_parsers.is_empty() {
            return;
        }
        let names: Vec<String> = self
            .extra_parsers
            .iter()
            .filter_map(|p| cx.program.parsers.get(p.index()).map(|p| p.name.clone()))
            .collect();
        cx.program.notes.push(format!(
            "`{name}` binds more than one parser per gress (parsers chosen by port): only the \
             first of each gress is analysed; not analysed: {}",
            names.join(", ")
        ));
    }
}

fn bind_parser(cx: &mut Cx<'_, '_>, b: &mut Binding, param: &ast::Param, pid: ir::ParserId) {
    let Slot::Parser(g) = classify(param, true) else {
        return;
    };
    if let Some(p) = cx.program.parsers.get_mut(pid.index()) {
        p.gress = g;
    }
    b.put_parser(g, pid);
}

fn bind_control(
    cx: &mut Cx<'_, '_>,
    b: &mut Binding,
    param: &ast::Param,
    tname: &str,
    cid: ir::ControlId,
) {
    let Slot::Control(mut role, g) = classify(param, false) else {
        return;
    };
    // Whatever its slot is called, a control that takes a `packet_out`
    // emits headers: it is a deparser.
    if emits_packets(cx, tname) {
        role = ir::ControlRole::Deparser;
    }
    if let Some(c) = cx.program.controls.get_mut(cid.index()) {
        c.role = role;
        c.gress = g;
    }
    let pipe = &mut b.pipe;
    match (role, g) {
        (ir::ControlRole::Ingress, _) => pipe.ingress = Some(cid),
        (ir::ControlRole::Egress, _) => pipe.egress = Some(cid),
        (ir::ControlRole::Deparser, ir::Gress::Egress) => pipe.egress_deparser = Some(cid),
        (ir::ControlRole::Deparser, _) => pipe.ingress_deparser = Some(cid),
        _ => {}
    }
    b.bound_any = true;
}

fn has_controls(p: &ir::Pipeline) -> bool {
    p.ingress.is_some()
        || p.egress.is_some()
        || p.ingress_deparser.is_some()
        || p.egress_deparser.is_some()
}

/// The gresses a binding fills: (ingress side, egress side).
fn sides(p: &ir::Pipeline) -> (bool, bool) {
    (
        p.ingress_parser.is_some() || p.ingress.is_some() || p.ingress_deparser.is_some(),
        p.egress_parser.is_some() || p.egress.is_some() || p.egress_deparser.is_some(),
    )
}

/// Nested packages that bind controls. When each fills one gress only and
/// no two of them (nor this package's own blocks) fill the same gress,
/// they are the halves of this package's one pipeline (PSA's
/// `PSA_Switch(IngressPipeline(..), .., EgressPipeline(..), ..)`) and are
/// merged into it. Otherwise each is a pipeline of its own, named for its
/// instance (a Tofino `Switch(pipe0, pipe1)`, each `Pipeline` both gresses).
fn settle_nested(cx: &mut Cx<'_, '_>, b: &mut Binding, nested: Vec<ir::Pipeline>) {
    let (mut ig, mut eg) = sides(&b.pipe);
    let halves = nested.iter().all(|n| {
        let (i, e) = sides(n);
        let fits = i != e && !(i && ig) && !(e && eg);
        ig |= i;
        eg |= e;
        fits
    });
    if !halves || nested.is_empty() {
        for n in nested {
            push_pipeline(cx, n);
        }
        return;
    }
    for n in nested {
        let p = &mut b.pipe;
        p.ingress_parser = p.ingress_parser.or(n.ingress_parser);
        p.ingress = p.ingress.or(n.ingress);
        p.ingress_deparser = p.ingress_deparser.or(n.ingress_deparser);
        p.egress_parser = p.egress_parser.or(n.egress_parser);
        p.egress = p.egress.or(n.egress);
        p.egress_deparser = p.egress_deparser.or(n.egress_deparser);
    }
    b.bound_any = true;
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
