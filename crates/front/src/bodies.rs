//! Apply blocks lowered exactly once, taken out of the syntax tree so that
//! their statements are freed one by one as they are lowered.
//!
//! The syntax tree of a long apply block is as large as its control-flow
//! graph; lowering from a borrowed tree keeps both alive at the end.
//! Most controls (every control a package binds: ingress, egress, the
//! deparsers) are lowered once, at the top level. A control that is also
//! applied as a sub-control, passed as a constructor argument or invoked
//! directly is lowered again per instance and keeps its body in the tree.
//!
//! Which is which is decided from the program text, conservatively: a
//! control's body is taken only when every identifier equal to its name in
//! the preprocessed text is its own declaration or a direct argument of a
//! package instantiation (`V1Switch(P(), V(), I(), ...) main;`,
//! `Pipeline(IP(), I(), ...) pipe;`, nested packages included), and at
//! least one is. Any other mention, even in a comment or a string, keeps
//! the body; so does no mention at all (a control nothing uses keeps its
//! body in the tree: only the few names a package binds are searched for).

use crate::{HashMap, HashSet};
use p4cost_pp::is_ident_char;

use p4cost_syntax::ast::{self, Decl, ExprKind};

/// Statements taken out of the tree by [`take_lowered_once`], by control name.
pub type TakenBodies = HashMap<String, Vec<ast::Stmt>>;

/// Takes the apply-block statements of every control that is lowered once
/// (see the module documentation) out of `tree`, leaving its block empty.
/// `text` is the text `tree` was parsed from.
pub fn take_lowered_once(tree: &mut ast::Program, text: &str) -> TakenBodies {
    let mut containers: HashSet<&str> = HashSet::default();
    let mut controls: HashMap<&str, usize> = HashMap::default();
    for d in &tree.decls {
        match d {
            Decl::Parser(p) => {
                containers.insert(&p.name.name);
            }
            Decl::Control(c) => {
                containers.insert(&c.name.name);
                *controls.entry(&c.name.name).or_default() += 1;
            }
            _ => {}
        }
    }
    if controls.is_empty() {
        return TakenBodies::default();
    }
    // Mentions a package instantiation accounts for.
    let mut bound: HashMap<String, usize> = HashMap::default();
    let mut work: Vec<&ast::Argument> = Vec::new();
    for d in &tree.decls {
        if let Decl::Instantiation(i) = d {
            let package = crate::scope::type_base_name(&i.ty)
                .is_some_and(|t| !containers.contains(t) && !controls.contains_key(t));
            if package {
                work.extend(i.args.iter());
            }
        }
    }
    while let Some(a) = work.pop() {
        let ExprKind::Call { callee, args, .. } = &a.value.kind else {
            continue;
        };
        let ExprKind::Path(p) = &callee.kind else {
            continue;
        };
        let name = p.name.name.as_str();
        if controls.contains_key(name) {
            *bound.entry(name.to_string()).or_default() += 1;
        } else if !containers.contains(name) {
            // A nested package: its arguments are bound the same way.
            work.extend(args.iter());
        }
    }
    // A control no package binds is lowered once only if nothing else
    // mentions it (dead code): its body is left in the tree, and only the
    // bound names are searched for.
    let candidates: Vec<&str> = controls
        .iter()
        .filter(|(name, decls)| **decls == 1 && bound.contains_key(**name))
        .map(|(name, _)| *name)
        .collect();
    let mentions = identifier_counts(text, &candidates);
    let once: Vec<String> = candidates
        .into_iter()
        .filter(|name| {
            mentions.get(name).copied().unwrap_or(0) == 1 + bound.get(*name).copied().unwrap_or(0)
        })
        .map(str::to_owned)
        .collect();
    let mut taken = TakenBodies::default();
    for d in &mut tree.decls {
        if let Decl::Control(c) = d {
            if once.iter().any(|n| *n == c.name.name) {
                taken.insert(
                    c.name.name.as_str().to_owned(),
                    std::mem::take(&mut c.apply.stmts),
                );
            }
        }
    }
    taken
}

/// How often each of `names` occurs as a whole identifier in `text`: a
/// match not preceded or followed by an identifier character (a name
/// never starts with a digit, so a match inside a number such as `0x1F`
/// is preceded by one). Each name is searched with `memchr::memmem`,
/// which skips text far faster than a walk over every word (that walk was
/// a tenth of lowering switch_p4_16); the caller asks for the few names a
/// package binds.
fn identifier_counts<'n>(text: &str, names: &[&'n str]) -> HashMap<&'n str, usize> {
    let bytes = text.as_bytes();
    let ident_at = |i: usize| bytes.get(i).is_some_and(|&b| is_ident_char(b));
    let mut out: HashMap<&'n str, usize> = HashMap::default();
    for &name in names {
        if name.is_empty() {
            continue;
        }
        let n = memchr::memmem::find_iter(bytes, name.as_bytes())
            .filter(|&at| (at == 0 || !ident_at(at - 1)) && !ident_at(at + name.len()))
            .count();
        if n > 0 {
            out.insert(name, n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(src: &str) -> Vec<String> {
        let mut tree = p4cost_syntax::parse(src).expect("parses");
        let mut names: Vec<String> = take_lowered_once(&mut tree, src).into_keys().collect();
        names.sort();
        names
    }

    /// Every whole-word mention counts, whatever the other words' first
    /// bytes and lengths, a name longer than 63 bytes included.
    #[test]
    fn mentions_are_counted_as_whole_words() {
        let long = "L".repeat(70);
        let names = ["Ab", "Ingress", long.as_str()];
        let text =
            format!("Ab Abc xAb Ab_ 0xAb Ab(Ingress) Ingress2 /* Ingress */ {long} {long}L Ab");
        let counts = identifier_counts(&text, &names);
        assert_eq!(counts.get("Ab"), Some(&3));
        assert_eq!(counts.get("Ingress"), Some(&2));
        assert_eq!(counts.get(long.as_str()), Some(&1));
    }

    const HEAD: &str = "control C_t(); package Pkg(C_t a, C_t b); package Top(Pkg p);\n";

    #[test]
    fn package_bound_controls_are_taken() {
        let src = format!(
            "{HEAD}control A() {{ apply {{ }} }}\ncontrol B() {{ apply {{ }} }}\nPkg(A(), B()) main;\n"
        );
        assert_eq!(taken(&src), ["A", "B"]);
    }

    #[test]
    fn nested_packages_bind_too() {
        let src = format!(
            "{HEAD}control A() {{ apply {{ }} }}\ncontrol B() {{ apply {{ }} }}\nTop(Pkg(A(), B())) main;\n"
        );
        assert_eq!(taken(&src), ["A", "B"]);
    }

    #[test]
    fn sub_controls_and_constructor_arguments_stay() {
        // S is instantiated inside A and T is a constructor argument of B:
        // both stay. A and U are bound twice (still lowered once: taken);
        // V is also mentioned in a comment (stays).
        let src = format!(
            "{HEAD}control S() {{ apply {{ }} }}\ncontrol T() {{ apply {{ }} }}\n\
             control A() {{ S() s; apply {{ s.apply(); }} }}\n\
             control B()(C_t t) {{ apply {{ t.apply(); }} }}\n\
             control U() {{ apply {{ }} }}\ncontrol V() {{ apply {{ }} }}\n\
             // V\n\
             Pkg(A(), B(T())) p1; Pkg(U(), U()) p2; Pkg(V(), A()) p3;\n"
        );
        assert_eq!(taken(&src), ["A", "B", "U"]);
    }

    #[test]
    fn identifiers_are_whole_words() {
        let names = ["I", "x1"];
        let c = identifier_counts("I Ig gI I_ 0x1I x1 I;x1(I)", &names);
        assert_eq!(c.get("I"), Some(&3));
        assert_eq!(c.get("x1"), Some(&2));
    }
}
