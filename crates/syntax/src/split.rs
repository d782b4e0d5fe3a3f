//! A large program's top-level declarations parsed on two threads.
//!
//! Declarations parse independently of each other: no symbol table, each
//! parse reads only the text and its own offset (the fast path, `pieces`,
//! pest and the builder alike). So when the blanked text is at least
//! [`MIN_BYTES`] long, a second thread guesses where a declaration starts
//! just after its middle ([`point`], a linear scan) and parses from there
//! to the end while the calling thread parses from the start, and
//! [`parse_halves`] keeps the
//! second thread's declarations only when the calling thread's loop lands
//! exactly on that offset (a declaration ends there). Otherwise the guess
//! was wrong (a `}` or `;` inside a declaration, such as in an
//! `@pragma`'s raw text): the calling thread goes on alone, as the
//! sequential loop would. The tree, the counts and any error are those of
//! the sequential parse:
//!
//! - Names: the second thread interns in its own table (a [`crate::Name`]
//!   compares by content, so the trees are equal) and frees it at its end.
//! - Nesting (`prescan::Nesting`): the only state the loop keeps from one
//!   declaration to the next is whether the rest of the text has been
//!   scanned. The second thread starts with none scanned: when the first
//!   half did not scan, that is the sequential state at the split, and
//!   when it did (finding nothing), the second thread's checks are extra
//!   and a success is still the sequential success. Any error of the
//!   second half is therefore not taken as is: the calling thread parses
//!   the second half again itself, which gives the sequential error.
//! - pest's budgets (`ParseGuard`): pest reads its call limit, a
//!   process-wide static, when a parse starts, and the limit in force is
//!   the largest budget of the parses running. A parse of the second half
//!   has a smaller budget than one of the first, so the two threads take
//!   turns for everything but the fast path (which has budgets of its own
//!   and never runs pest): each parse then runs with the budget it has
//!   when parsed sequentially. The fast path takes about 99 % of real
//!   programs' declarations, so the turns hardly ever wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::{name, Counts, Items, Ran, SyntaxError, PARSE_STACK_BYTES};

/// Blanked texts shorter than this are parsed on the calling thread alone.
/// Parsing runs at about 40 MB/s (5 MB in about 115 ms), so the second
/// thread saves about 3 ms at this size, against tens of microseconds to
/// start it; for `p4cost parse` of 115 KB and 290 KB programs the gain
/// was lost in the noise.
pub const MIN_BYTES: usize = 256 << 10;

/// The second half's parse, as its thread hands it back.
struct Half {
    result: Result<Ran, SyntaxError>,
    decls: Vec<crate::ast::Decl>,
    counts: Counts,
}

/// How a parse used the split (the tests check which way they went).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// No split: the text is short, or has no split point, or the
    /// second thread could not be started.
    None,
    /// The second thread's declarations were taken.
    Taken,
    /// The first half failed before the split point.
    FirstFailed,
    /// The first half ran over the split point (it was inside a
    /// declaration), or ended before it: parsed on alone.
    Missed,
    /// The second half failed: parsed again on the calling thread.
    SecondFailed,
}

/// Parses the declarations of `first`'s text (at its start), those from
/// the split point on (see [`point`]) on a second thread, which looks for
/// the point first (the calling thread needs it only once at the middle);
/// `first` ends with all the declarations and counts of the sequential
/// parse, or its error. `how` tells which way it went.
pub(crate) fn parse_halves(first: &mut Items<'_, '_>, how: &mut Split) -> Result<(), SyntaxError> {
    let turn = Mutex::new(());
    let cancel = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let (text, in_pieces, fast) = (first.text, first.in_pieces, first.fast);
    std::thread::scope(|scope| {
        let second = std::thread::Builder::new()
            .name("p4cost-syntax-2".to_string())
            .stack_size(PARSE_STACK_BYTES)
            .spawn_scoped(scope, || {
                let mid = point(text);
                // The calling thread may have stopped waiting.
                let _ = tx.send(mid);
                mid.map(|mid| second_half(Items::at(text, mid, in_pieces, fast), &turn, &cancel))
            });
        let Ok(second) = second else {
            return first.run(usize::MAX, None, None).map(drop);
        };
        // The point is never before the middle.
        let reached = first.run(text.len() / 2, Some(&turn), None);
        let mid = match reached {
            Ok(Ran::Landed | Ran::Passed) => rx.recv().ok().flatten(),
            _ => None,
        };
        let ran = match mid {
            Some(mid) if first.pos <= mid => first.run(mid, Some(&turn), None),
            _ => reached.map(|r| if r == Ran::End { r } else { Ran::Passed }),
        };
        if ran != Ok(Ran::Landed) {
            // The scope waits for the second thread, which stops at its
            // next declaration.
            cancel.store(true, Ordering::Relaxed);
            *how = Split::FirstFailed;
            let ran = ran?;
            *how = if mid.is_some() {
                Split::Missed
            } else {
                Split::None
            };
            if ran == Ran::Passed {
                first.run(usize::MAX, Some(&turn), None)?;
            }
            return Ok(());
        }
        match second.join() {
            Ok(Some(Half {
                result: Ok(_),
                mut decls,
                counts,
            })) => {
                first.decls.append(&mut decls);
                first.counts.add(&counts);
                *how = Split::Taken;
                Ok(())
            }
            _ => {
                *how = Split::SecondFailed;
                first.run(usize::MAX, None, None).map(drop)
            }
        }
    })
}

/// The second thread's parse, from its start to the end of the text or
/// until `cancel` is set, with names of its own.
fn second_half(mut items: Items<'_, '_>, turn: &Mutex<()>, cancel: &AtomicBool) -> Half {
    name::forget_names();
    name::reserve_names(items.text.len().saturating_sub(items.pos) / 96);
    let result = items.run(usize::MAX, Some(turn), Some(cancel));
    name::forget_names();
    Half {
        result,
        decls: items.decls,
        counts: items.counts,
    }
}

/// Where to split the blanked `text` (comments and `#` lines are blanks):
/// the start of the first declaration after the middle that follows a `}`
/// or `;` outside any bracket, string literals skipped. A guess, checked
/// by [`parse_halves`]: the byte there starts a declaration (a letter,
/// `_` or `@`), and the brackets before it are balanced.
pub(crate) fn point(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let half = b.len() / 2;
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(p) = b.get(i..)?.iter().position(|&c| SPECIAL[usize::from(c)]) {
        i += p;
        match b[i] {
            b'"' => {
                i = crate::trivia::string_end(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            c => {
                if c == b'}' {
                    depth = depth.saturating_sub(1);
                }
                if depth == 0 && i >= half {
                    let next = crate::skip_whitespace(text, i + 1);
                    if b.get(next)
                        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'@')
                    {
                        return Some(next);
                    }
                }
            }
        }
        i += 1;
    }
    None
}

/// The bytes [`point`] looks at.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let special = b"\"()[]{};";
    let mut k = 0;
    while k < special.len() {
        t[special[k] as usize] = true;
        k += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::{point, Split};
    use crate::parse_split_for_test;

    /// Short declarations, `n` of them.
    fn decls(n: usize) -> String {
        (0..n)
            .map(|i| format!("header h{i}_t {{ bit<8> f; }}\nconst bit<8> c{i} = {i};\n"))
            .collect()
    }

    /// `src` split at every size parses as it does sequentially, the
    /// split going the way `want` says.
    fn same_as_sequential(src: &str, want: Split) {
        let (seq, none) = parse_split_for_test(src, usize::MAX);
        assert_eq!(none, Split::None);
        let (par, how) = parse_split_for_test(src, 0);
        assert_eq!(how, want, "{src}");
        assert_eq!(par, seq, "{src}");
    }

    /// `head`, then `fool` placed so that the middle of the text falls
    /// exactly at its start (blanks pad the start or the end), then
    /// `tail`.
    fn around_middle(head: &str, fool: &str, tail: &str) -> String {
        let after = fool.len() + tail.len();
        let lead = " ".repeat(after.saturating_sub(head.len()));
        let trail = " ".repeat(head.len().saturating_sub(after));
        let src = format!("{lead}{head}{fool}{tail}{trail}");
        assert_eq!(src.len() / 2, lead.len() + head.len());
        src
    }

    #[test]
    fn the_point_is_a_declaration_start_after_the_middle() {
        let src = decls(10);
        let mid = point(&src).expect("a point");
        assert!(mid >= src.len() / 2);
        assert!(src[mid..].starts_with("header ") || src[mid..].starts_with("const "));
        assert!(src[..mid].ends_with('\n'));
        same_as_sequential(&src, Split::Taken);
    }

    #[test]
    fn strings_and_brackets_are_skipped() {
        // Neither the braces of the string nor the `;` in the brackets
        // are at the top level.
        let fool = "@name(\"}; x \\\" }; y\") const bit<8> s = (bit<8>){ 1 };\n";
        let src = around_middle(&decls(3), fool, &decls(3));
        let mid = point(&src).expect("a point");
        assert_eq!(Some(mid), src.find(fool).map(|at| at + fool.len()));
        same_as_sequential(&src, Split::Taken);
        // An opening bracket never closed: no point at all.
        let open = around_middle(&decls(3), "@pragma p {\n", &decls(3));
        assert_eq!(point(&open), None);
        same_as_sequential(&open, Split::None);
    }

    #[test]
    fn a_point_inside_a_declaration_is_refused() {
        // A pragma's raw text runs to the end of its line: `; q` and
        // `} r` there are inside the declaration it annotates.
        for fool in [
            "@pragma p ; q\nconst bit<8> z = 2;\n",
            "@pragma p } r\nconst bit<8> z = 2;\n",
            "@pragma p ; _q\nheader h { bit<8> f; }\n",
        ] {
            let src = around_middle(&decls(3), fool, &decls(3));
            let mid = point(&src).expect("a point");
            assert!(
                src.find(fool).is_some_and(|at| mid < at + fool.len()),
                "{fool}"
            );
            same_as_sequential(&src, Split::Missed);
        }
    }

    #[test]
    fn errors_are_the_sequential_ones() {
        let bad = "const bit<8> = ;\n";
        // In the first half, at the split point, in the second half.
        same_as_sequential(&format!("{bad}{}", decls(8)), Split::FirstFailed);
        let at = around_middle(&decls(3), &format!("const bit<8> a = 1;\n{bad}"), &decls(3));
        same_as_sequential(&at, Split::SecondFailed);
        same_as_sequential(&format!("{}{bad}", decls(8)), Split::SecondFailed);
        // Both halves: the first half's error wins.
        same_as_sequential(&format!("{bad}{}{bad}", decls(8)), Split::FirstFailed);
        // A split point inside a declaration with an error.
        let fooled = around_middle(&decls(3), "@pragma p ; q\nconst = 2;\n", &decls(3));
        same_as_sequential(&fooled, Split::FirstFailed);
    }

    #[test]
    fn nesting_errors_are_the_sequential_ones() {
        let deep = format!(
            "const bit<8> z = {}1{};\n",
            "(".repeat(1001),
            ")".repeat(1001)
        );
        // Too deep in the second half, found there.
        same_as_sequential(&format!("{}{deep}", decls(60)), Split::SecondFailed);
        // A declaration only pest parses in the first half scans the rest
        // of the text, and finds it there, in the second half.
        let slow = "control C() { apply { for (bit<8> i = 0; i < 4; i = i + 1) { } } }\n";
        let src = format!("{slow}{}{deep}{}", decls(60), decls(20));
        same_as_sequential(&src, Split::FirstFailed);
    }
}
