//! The packet-class figures of an editor's last analyses, by what they
//! were computed from, so a keystroke that changes no class input (a
//! comment, a line inserted, a table's size where the model does not
//! price it) does not walk the classes again.
//!
//! The key is every input of the class stage, written as bytes with the
//! program's spans left out ([`shape`]) and compared byte for byte: the program (the joined
//! control included), the control walked, each table's weight, `L_B`,
//! each parse-graph node's term, the listed paths' nodes, the linear
//! terms and the options. What is kept holds no span (the summary, the
//! class counts and the listed paths' extremes are figures and names), so
//! an entry is right wherever the declarations now sit. The memo is off
//! by default (the CLI never keeps one); the language server keeps one per
//! open document.

pub mod shape;

use std::sync::{Arc, Mutex};

use crate::path_stats::{ClassesOut, SummaryOut};

/// Entries kept per memo (one per pipeline of the last analyses).
const KEEP: usize = 4;

/// What the class stage computed for one key.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The classes' facts and the summary over them.
    pub classes: ClassesOut,
    pub summary: SummaryOut,
    /// Per listed path, its control's fastest and slowest class weight.
    pub extremes: Vec<(f64, f64)>,
}

#[derive(Debug, Default)]
struct Store {
    entries: Vec<(Vec<u8>, Entry)>,
    hits: usize,
}

/// A memo of class-stage results shared by the analyses of one document;
/// the default keeps nothing. Two memos compare equal whatever they hold:
/// a memo changes no answer, only how long it takes.
#[derive(Clone, Default)]
pub struct ClassMemo(Option<Arc<Mutex<Store>>>);

impl ClassMemo {
    /// A memo that keeps the last analyses' class figures.
    pub fn new() -> ClassMemo {
        ClassMemo(Some(Arc::default()))
    }

    /// Whether this memo keeps anything (else no key need be made).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// How many times an entry was taken back.
    pub fn hits(&self) -> usize {
        self.store().map_or(0, |s| s.hits)
    }

    fn store(&self) -> Option<std::sync::MutexGuard<'_, Store>> {
        let m = self.0.as_ref()?;
        Some(m.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The longest key kept (0 when none): room to make the next one in.
    pub(crate) fn key_len(&self) -> usize {
        self.store()
            .and_then(|s| s.entries.iter().map(|(k, _)| k.len()).max())
            .unwrap_or(0)
    }

    /// The entry for `key`, counted as a hit.
    pub(crate) fn get(&self, key: &[u8]) -> Option<Entry> {
        let mut s = self.store()?;
        let e = s.entries.iter().find(|(k, _)| k == key)?.1.clone();
        s.hits += 1;
        Some(e)
    }

    /// Keeps `entry` for `key`, the oldest entry dropped past [`KEEP`].
    pub(crate) fn put(&self, key: Vec<u8>, entry: Entry) {
        if let Some(mut s) = self.store() {
            s.entries.retain(|(k, _)| *k != key);
            if s.entries.len() >= KEEP {
                s.entries.remove(0);
            }
            s.entries.push((key, entry));
        }
    }
}

impl std::fmt::Debug for ClassMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_on() {
            "ClassMemo(on)"
        } else {
            "ClassMemo(off)"
        })
    }
}

impl PartialEq for ClassMemo {
    fn eq(&self, _: &ClassMemo) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(x: f64) -> Entry {
        let count = crate::report::CountOut::of(p4cost_analysis::PathCount::exact(1));
        Entry {
            classes: ClassesOut {
                count: count.clone(),
                tested_headers: Vec::new(),
                tested_fields: Vec::new(),
                tested_flags: Vec::new(),
                note: String::new(),
            },
            summary: SummaryOut {
                over: "class",
                paths: count,
                classes: None,
                min: None,
                max: None,
                median_ns: None,
                median_note: String::new(),
                histogram: None,
            },
            extremes: vec![(x, x)],
        }
    }

    #[test]
    fn off_keeps_nothing_and_on_keeps_the_last_entries() {
        let off = ClassMemo::default();
        off.put(vec![1], entry(1.0));
        assert!(off.get(&[1]).is_none());
        let on = ClassMemo::new();
        for k in 0..=KEEP as u8 {
            on.put(vec![k], entry(k as f64));
        }
        assert!(on.get(&[0]).is_none(), "the oldest is dropped");
        let last = KEEP as u8;
        assert_eq!(on.get(&[last]).map(|e| e.extremes), Some(vec![(4.0, 4.0)]));
        assert_eq!(on.hits(), 1);
        assert_eq!(
            (on.key_len(), off.key_len()),
            (1, 0),
            "room for the next key"
        );
        assert_eq!(on, off, "a memo changes no answer");
    }
}
