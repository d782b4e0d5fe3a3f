//! [`Reuse`]: the top-level declarations of the last successful parse,
//! kept so that parsing an edited text again builds only what changed (an
//! editor's keystroke). A declaration is taken back when the new text has
//! the very bytes it was parsed from at the very offset (its spans are
//! offsets into the text, so the same place means the same tree), and the
//! parse budget it had then is no larger than the one it has now (a parse
//! depends on nothing else: pest reads the item's own bytes only, and the
//! budget grows with the text still to parse).

use std::collections::HashMap;

use crate::ast::Decl;

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
    /// Where the items the parse running now took back start.
    taken_at: Vec<usize>,
    /// How many items the last parse took back and how many it parsed.
    taken: usize,
    parsed: usize,
}

impl Reuse {
    /// Nothing to reuse yet.
    pub fn new() -> Reuse {
        Reuse::default()
    }

    /// The item of the last parse that started at `pos`, if `text` has the
    /// same bytes there and its budget is at least the one it had: its
    /// declarations are appended to `out` and its end returned.
    pub(crate) fn take(&mut self, text: &str, pos: usize, out: &mut Vec<Decl>) -> Option<usize> {
        let item = self.items.get(&pos)?;
        let old = self.text.as_bytes().get(pos..item.end)?;
        let new = text.as_bytes().get(pos..item.end)?;
        if old != new || text.len() - pos < item.rest {
            return None;
        }
        out.extend(item.decls.iter().cloned());
        let end = item.end;
        if let Some(item) = self.items.remove(&pos) {
            self.next.insert(pos, item);
        }
        self.taken_at.push(pos);
        self.taken += 1;
        Some(end)
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
        for pos in self.taken_at.drain(..) {
            if let Some(item) = self.next.remove(&pos) {
                self.items.insert(pos, item);
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
        // Longer, in the constant: what comes after moved.
        let longer = sized.replace("LIMIT = 8", "LIMIT = 80");
        assert_eq!(same_as_fresh(&mut r, &longer), (2, 4));
        // A syntax error keeps the last good items; the fix takes them.
        let broken = longer.replace("action drop() { }", "action drop() { ");
        same_as_fresh(&mut r, &broken);
        assert_eq!(same_as_fresh(&mut r, &longer), (6, 0));
        // Shorter at the end: the items before have a smaller budget now
        // and are parsed again.
        let shorter = longer.replace("size = 2048", "size = 20");
        assert_eq!(same_as_fresh(&mut r, &shorter), (0, 6));
        // A line inserted first moves everything.
        let moved = format!("const bit<8> FIRST = 1;\n{shorter}");
        assert_eq!(same_as_fresh(&mut r, &moved), (0, 7));
    }
}
