//! [`Name`]: the text of an identifier, shared between its occurrences.
//!
//! A program names the same few things (`hdr`, `meta`, `ipv4`, a local) over
//! and over; one parse keeps one allocation per distinct name and every
//! [`crate::ast::Ident`] points at it, so a name costs a pointer and a length
//! however often it is written.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashSet;

/// The interned names of one thread.
pub(crate) type NameSet = HashSet<Name, foldhash::fast::FixedState>;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An identifier's text. Reads as a `&str` (it dereferences to one and
/// compares equal to `str`, `&str` and `String`); cloning shares the text.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name(Arc<str>);

impl Name {
    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(Arc::from(s))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.0.to_string()
    }
}

impl From<&Name> for String {
    fn from(n: &Name) -> Self {
        n.0.to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == &*other.0
    }
}

thread_local! {
    /// The names of the parse running on this thread (see [`intern`]),
    /// hashed with foldhash: every identifier of the program is looked up
    /// here, and SipHash cost more than the rest of the lookup.
    static NAMES: RefCell<NameSet> = RefCell::new(NameSet::default());
}

/// The shared [`Name`] for `text`: the same allocation for every call with
/// the same text on this thread until [`forget_names`].
pub(crate) fn intern(text: &str) -> Name {
    NAMES.with(|names| intern_in(&mut names.borrow_mut(), text))
}

/// The [`Name`] for `text` in `names`, added when new.
pub(crate) fn intern_in(names: &mut NameSet, text: &str) -> Name {
    if let Some(n) = names.get(text) {
        return n.clone();
    }
    let n = Name::from(text);
    names.insert(n.clone());
    n
}

/// This thread's names, taken out of it (so that a parser interns without
/// a thread-local lookup per name) until [`give_back_names`].
pub(crate) fn take_names() -> NameSet {
    NAMES.with(|names| std::mem::take(&mut *names.borrow_mut()))
}

/// Puts back the names [`take_names`] took, with those added since.
pub(crate) fn give_back_names(set: NameSet) {
    NAMES.with(|names| *names.borrow_mut() = set);
}

/// Makes room for about `n` distinct names in this thread's table, so
/// that a large program's table does not grow (rehashing every name) as
/// it is parsed.
pub(crate) fn reserve_names(n: usize) {
    NAMES.with(|names| names.borrow_mut().reserve(n));
}

/// Ends sharing on this thread: names made from now on are new allocations
/// (those already handed out stay valid), and the table's memory is freed.
pub(crate) fn forget_names() {
    NAMES.with(|names| *names.borrow_mut() = NameSet::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_allocation_per_distinct_name() {
        forget_names();
        let a = intern("ipv4");
        let b = intern("ipv4");
        let c = intern("tcp");
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert!(!Arc::ptr_eq(&a.0, &c.0));
        forget_names();
        let d = intern("ipv4");
        assert_eq!(a, d);
        assert!(!Arc::ptr_eq(&a.0, &d.0));
    }

    #[test]
    fn reads_and_compares_as_a_string() {
        let n = Name::from("hdr");
        assert_eq!(n, "hdr");
        assert_eq!("hdr", n);
        assert_eq!(n, String::from("hdr"));
        assert_eq!(n.len(), 3);
        assert_eq!(format!("{n}/{n:?}"), "hdr/\"hdr\"");
        assert_eq!(String::from(n), "hdr");
    }
}
