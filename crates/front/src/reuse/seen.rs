//! Which top-level declarations a recorded lowering read the places of:
//! every span turned into an IR span or a diagnostic names one.

use std::cell::RefCell;

/// The declarations whose places were read while a unit was lowered; off
/// (every call a no-op) unless [`Seen::arm`]ed and [`Seen::start`]ed.
#[derive(Debug, Default)]
pub struct Seen(RefCell<Option<State>>);

#[derive(Debug)]
struct State {
    /// Each top-level declaration's byte range in the preprocessed text,
    /// in order.
    ranges: Vec<(u32, u32)>,
    /// Read since [`Seen::start`], by declaration.
    read: Vec<bool>,
    /// The same, in the order first read.
    list: Vec<usize>,
    /// A place outside every declaration was read.
    outside: bool,
    /// Between [`Seen::start`] and [`Seen::stop`].
    on: bool,
}

impl Seen {
    /// Tracks the declarations with these ranges (in text order).
    pub fn arm(&self, ranges: Vec<(u32, u32)>) {
        let read = vec![false; ranges.len()];
        *self.0.borrow_mut() = Some(State {
            ranges,
            read,
            list: Vec::new(),
            outside: false,
            on: false,
        });
    }

    /// Starts a unit: nothing read yet.
    pub fn start(&self) {
        if let Some(s) = self.0.borrow_mut().as_mut() {
            for &i in &s.list {
                s.read[i] = false;
            }
            s.list.clear();
            s.outside = false;
            s.on = true;
        }
    }

    /// Ends a unit: the declarations read, `None` when a place outside
    /// every declaration was (or nothing is tracked).
    pub fn stop(&self) -> Option<Vec<usize>> {
        let mut b = self.0.borrow_mut();
        let s = b.as_mut()?;
        s.on = false;
        (!s.outside).then(|| s.list.clone())
    }

    /// Notes that the place at preprocessed offset `lo` was read.
    pub fn touch(&self, lo: u32) {
        let mut b = self.0.borrow_mut();
        let Some(s) = b.as_mut().filter(|s| s.on) else {
            return;
        };
        let k = s.ranges.partition_point(|&(a, _)| a <= lo);
        match k.checked_sub(1) {
            Some(i) if lo < s.ranges[i].1 || s.ranges[i].0 == lo => {
                if !s.read[i] {
                    s.read[i] = true;
                    s.list.push(i);
                }
            }
            _ => s.outside = true,
        }
    }
}
