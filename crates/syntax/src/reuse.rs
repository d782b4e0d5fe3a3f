//! [`Reuse`]: the top-level declarations of the last successful parse,
//! kept so that parsing an edited text again builds only what changed (an
//! editor's keystroke). A declaration is taken back when the new text has
//! the very bytes it was parsed from, at the same offset or moved by the
//! edit's change of length (an edit before it: its spans are then moved
//! by as much, [`Shift`]), and the parse budget it had then is no larger
//! than the one it has now (a parse depends on nothing else: pest reads
//! the item's own bytes only, and the budget grows with the text still to
//! parse, which an edit before the item leaves as it was).

use std::collections::HashMap;

use crate::ast::Decl;
use crate::shift::Shift;

/// One program item of an earlier parse.
#[derive(Debug, Clone)]
struct Item {
    /// Where it ended (exclusive), in the text it was parsed from.
    end: usize,
    /// The text from its start to the end of that text, in bytes: its
    /// parse budget's measure.
    rest: usize,
    /// What it built (none for an empty declaration, one otherwise).
    decls: Vec<Decl>,
}

/// The program items of the last successful parse, by start offset, and
/// the text they were parsed from; [`crate::parse_reusing_on_current_thread`]
/// takes back those the new text still has.
#[derive(Debug, Default, Clone)]
pub struct Reuse {
    text: String,
    items: HashMap<usize, Item>,
    /// Items being recorded by the parse running now.
    next: HashMap<usize, Item>,
    /// Where the items the parse running now took back start, and where
    /// they started in the last text.
    taken_at: Vec<(usize, usize)>,
    /// How many items the last parse took back and how many it parsed.
    taken: usize,
    parsed: usize,
}

impl Reuse {
    /// Nothing to reuse yet.
    pub fn new() -> Reuse {
        Reuse::default()
    }

    /// The item of the last parse that started at `pos`, or at `pos` less
    /// the change of length (an edit before it moved it), if `text` has
    /// the same bytes there and its budget is at least the one it had:
    /// its declarations, moved to `pos`, are appended to `out` and its
    /// end returned.
    pub(crate) fn take(&mut self, text: &str, pos: usize, out: &mut Vec<Decl>) -> Option<usize> {
        let moved = pos
            .checked_add(self.text.len())
            .and_then(|p| p.checked_sub(text.len()));
        let from = [Some(pos), moved]
            .into_iter()
            .flatten()
            .find(|&from| self.same_bytes(text, from, pos))?;
        let mut item = self.items.remove(&from)?;
        if from != pos {
            let by = pos as i64 - from as i64;
            item.decls.iter_mut().for_each(|d| d.shift(by));
            item.end = item.end + pos - from;
        }
        out.extend(item.decls.iter().cloned());
        let end = item.end;
        self.next.insert(pos, item);
        self.taken_at.push((pos, from));
        self.taken += 1;
        Some(end)
    }

    /// Whether the item that started at `from` in the last text has its
    /// bytes at `pos` of `text` and no smaller budget there.
    fn same_bytes(&self, text: &str, from: usize, pos: usize) -> bool {
        let Some(item) = self.items.get(&from) else {
            return false;
        };
        let len = item.end - from;
        let old = self.text.as_bytes().get(from..item.end);
        let new = text.as_bytes().get(pos..pos + len);
        old.is_some() && old == new && text.len() - pos >= item.rest
    }

    /// Records the item parsed from `pos` to `end` of `text`, which built
    /// `decls`.
    pub(crate) fn record(&mut self, text: &str, pos: usize, end: usize, decls: &[Decl]) {
        self.parsed += 1;
        self.next.insert(
            pos,
            Item {
                end,
                rest: text.len() - pos,
                decls: decls.to_vec(),
            },
        );
    }

    /// The parse of `text` succeeded: its items are what the next parse
    /// may take back.
    pub(crate) fn commit(&mut self, text: &str) {
        self.text.clear();
        self.text.push_str(text);
        self.items = std::mem::take(&mut self.next);
        self.taken_at.clear();
    }

    /// The parse failed: the items of the last successful parse stay
    /// (those it took back return).
    pub(crate) fn abandon(&mut self) {
        for (pos, from) in self.taken_at.drain(..) {
            if let Some(mut item) = self.next.remove(&pos) {
                if from != pos {
                    let by = from as i64 - pos as i64;
                    item.decls.iter_mut().for_each(|d| d.shift(by));
                    item.end = item.end + from - pos;
                }
                self.items.insert(from, item);
            }
        }
        self.next.clear();
    }

    /// Starts a parse: the counts of [`Reuse::counts`] restart.
    pub(crate) fn start(&mut self) {
        self.abandon();
        self.taken = 0;
        self.parsed = 0;
    }

    /// How many program items the last parse took back, and how many it
    /// parsed.
    pub fn counts(&self) -> (usize, usize) {
        (self.taken, self.parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::Reuse;
    use crate::{parse, parse_reusing_on_current_thread};

    const PROGRAM: &str = "header h_t { bit<8> a; bit<16> b; }
struct headers_t { h_t h; }
const bit<8> LIMIT = 8;
;
parser P(packet_in pkt, out headers_t hdr) {
    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { 1: accept; default: reject; } }
}
action drop() { }
control C(inout headers_t hdr) {
    table t { key = { hdr.h.a : exact; } actions = { drop; } size = 1024; }
    apply { if (hdr.h.isValid()) { t.apply(); } }
}
";

    /// Parses `text` reusing `r` and checks the tree (or the error) is a
    /// fresh parse's; gives (items taken back, items parsed).
    fn same_as_fresh(r: &mut Reuse, text: &str) -> (usize, usize) {
        let reused = parse_reusing_on_current_thread(text, r);
        let fresh = parse(text);
        match (reused, fresh) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("reused {a:?}\nfresh {b:?}"),
        }
        r.counts()
    }

    #[test]
    fn an_edit_reparses_only_the_declarations_it_changed_or_moved() {
        let mut r = Reuse::new();
        assert_eq!(same_as_fresh(&mut r, PROGRAM), (0, 6), "`;` makes no item");
        assert_eq!(same_as_fresh(&mut r, PROGRAM), (6, 0));
        // Same length, inside the control: the one item parsed again.
        let sized = PROGRAM.replace("size = 1024", "size = 2048");
        assert_eq!(same_as_fresh(&mut r, &sized), (5, 1));
        // Longer, in the constant: what comes after moved, and is taken
        // back with its spans moved.
        let longer = sized.replace("LIMIT = 8", "LIMIT = 80");
        assert_eq!(same_as_fresh(&mut r, &longer), (5, 1));
        // A syntax error keeps the last good items; the fix takes them.
        let broken = longer.replace("action drop() { }", "action drop() { ");
        same_as_fresh(&mut r, &broken);
        assert_eq!(same_as_fresh(&mut r, &longer), (6, 0));
        // Shorter at the end: the items before have a smaller budget now
        // and are parsed again.
        let shorter = longer.replace("size = 2048", "size = 20");
        assert_eq!(same_as_fresh(&mut r, &shorter), (0, 6));
        // A line inserted first moves everything: only it is parsed.
        let moved = format!("const bit<8> FIRST = 1;\n{shorter}");
        assert_eq!(same_as_fresh(&mut r, &moved), (6, 1));
        // A syntax error after a moving edit keeps the last good items
        // where they were: the text put back takes them all.
        let broken = format!("const bit<8> FIRST = 1;;\n{shorter}").replace("apply {", "apply ");
        same_as_fresh(&mut r, &broken);
        assert_eq!(same_as_fresh(&mut r, &moved), (7, 0));
        // Deleted again: the rest moves back.
        assert_eq!(same_as_fresh(&mut r, &shorter), (6, 0));
    }

    /// Declarations of every kind, with the constructs inside them that
    /// carry spans (annotations of each form, entries, value sets, `for`
    /// and `switch`, initializers, constructors, enums, typedefs).
    const CONSTRUCTS: &str = r#"error { NoMatch, Other }
match_kind { exact, ternary }
typedef bit<48> mac_t;
type bit<32> ip_t;
@name("E") @pragma foo bar
enum bit<8> E { A = 1, @hidden B = 2 }
enum F { X, Y }
struct s_t<T> { T a; @kv[k = 1, j = "x"] bit<8> b; }
header_union u_t { bit<8> a; }
extern Counter<W> { Counter(bit<32> n); void count(in W w); abstract void f(); }
extern void ext_fn<T>(in T x, bit<8> d = 3);
bit<8> add(in bit<8> a, in bit<8> b) { return a + b; }
parser Pt(packet_in p);
control Ct(inout bit<8> x);
package Pkg(Pt p, Ct c);
Counter<bit<8>>(32w1024) global_counter;
Counter<bit<8>>(1) with_init = { void f() { } };
control C(inout s_t<bit<8>> h)(bit<8> k) {
    const bit<8> N = 8w3;
    bit<16> v = (bit<16>) h.a[7:0] ++ 8w0;
    action a(bit<8> x) { h.b = x > 1 ? x : (bit<8>) -x; h.a = {1, 2}[0]; }
    table t {
        key = { h.a : exact @name("k"); h.b & 0xf : ternary; }
        actions = { a; @defaultonly NoAction; }
        const entries = {
            (1, 0x1 &&& 0xf) : a(1);
            (2 .. 3, _) : a(2);
            priority = 5 : (default, default) : a(3);
        }
        default_action = a(0);
        size = 1024;
        custom = { a = 1 };
    }
    apply {
        @atomic { h.a = h.a |+| 1; }
        for (bit<8> i = 0; i < 4; i = i + 1) { if (i == 2) { break; } else { continue; } }
        for (bit<8> j in 0 .. 3) { h.b = h.b + j; }
        switch (t.apply().action_run) { a: { h.a = 1; } default: { exit; } }
        bit<8> w = h.a[3:0] ++ h.b[3:0];
        h.a = h.b << 2 >> 1;
        ext_fn<bit<8>>(x = h.a);
        return;
    }
}
parser P(packet_in pkt, out s_t<bit<8>> h) {
    value_set<bit<8>>(4) pvs;
    state start {
        pkt.extract(h);
        transition select(h.a, h.b) {
            (1, 2): next; (pvs, _): accept; default: reject;
        }
    }
    state next { transition accept; }
}
Pkg(P(), C(1)) main;
"#;

    /// A line inserted before every declaration moves all of them: each
    /// is taken back with every span moved (the tree is a fresh parse's,
    /// spans compared), and deleting the line moves them back.
    #[test]
    fn moved_declarations_are_taken_back_with_their_spans_moved() {
        for text in [
            CONSTRUCTS,
            include_str!("../testdata/tna_router.p4"),
            include_str!("../testdata/v1model_basic.p4"),
        ] {
            if let Err(e) = parse(text) {
                panic!("{e} at {}", &text[e.offset..]);
            }
            let mut r = Reuse::new();
            let (_, items) = same_as_fresh(&mut r, text);
            assert!(items > 10, "{items} items");
            let moved = format!("const bit<8> FIRST = 1;\n{text}");
            assert_eq!(same_as_fresh(&mut r, &moved), (items, 1));
            assert_eq!(same_as_fresh(&mut r, text), (items, 0));
        }
    }
}
