//! A path-tracking view of a `serde_json::Value`: every accessor knows the
//! JSON path it stands at, so type and shape errors can say where they are.
//!
//! The path is kept as steps (a shared list of keys and indices borrowed
//! from the document) and written out only when an error names it: a
//! document read without error formats no path at all.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::doc::Value;

use crate::error::{Bmv2Error, Result};

/// One step from a value to its child.
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A value's path from the root: its parent's path and its own step
/// (`None` at the root).
#[derive(Debug)]
struct Node<'a> {
    parent: Option<Rc<Node<'a>>>,
    step: Option<Step<'a>>,
}

/// A JSON value together with the path that leads to it from the root.
#[derive(Debug, Clone)]
pub(crate) struct J<'a> {
    /// The value.
    pub v: &'a Value<'a>,
    /// The parent's path (`None` at the root).
    parent: Option<Rc<Node<'a>>>,
    /// The step from the parent to this value (`None` at the root).
    step: Option<Step<'a>>,
    /// This value's own path node, made when a child first needs it.
    node: OnceCell<Rc<Node<'a>>>,
}

/// The JSON type name of a value, as used in error messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn shown(path: &str) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.to_string()
    }
}

/// Writes the path of the steps `steps` (root first): `a[1].b`; empty at
/// the root, an index right at the root as `(root)[0]`.
fn path_text(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => {
                if out.is_empty() {
                    out.push_str("(root)");
                }
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    out
}

impl<'a> J<'a> {
    /// The root of a document.
    pub fn root(v: &'a Value<'a>) -> J<'a> {
        J {
            v,
            parent: None,
            step: None,
            node: OnceCell::new(),
        }
    }

    /// The same path standing at another value (an expression's inner
    /// value, reported where the outer one is).
    pub fn at_value(&self, v: &'a Value<'a>) -> J<'a> {
        J {
            v,
            parent: self.parent.clone(),
            step: self.step,
            node: OnceCell::new(),
        }
    }

    /// The child of this value one `step` down.
    fn child(&self, v: &'a Value<'a>, step: Step<'a>) -> J<'a> {
        let node = self.node.get_or_init(|| {
            Rc::new(Node {
                parent: self.parent.clone(),
                step: self.step,
            })
        });
        J {
            v,
            parent: Some(Rc::clone(node)),
            step: Some(step),
            node: OnceCell::new(),
        }
    }

    /// The path of this value (`pipelines[0].tables[3]`); empty at the
    /// root. Written out on demand: for error messages.
    pub fn path(&self) -> String {
        let mut steps: Vec<Step<'a>> = self.step.into_iter().collect();
        let mut at = self.parent.as_deref();
        while let Some(n) = at {
            steps.extend(n.step);
            at = n.parent.as_deref();
        }
        steps.reverse();
        path_text(&steps)
    }

    /// An error saying this value should have been `expected`.
    pub fn expected(&self, expected: &str) -> Bmv2Error {
        Bmv2Error::WrongType {
            path: shown(&self.path()),
            expected: expected.to_string(),
            found: kind(self.v),
        }
    }

    /// An error about this value's content.
    pub fn invalid(&self, message: impl Into<String>) -> Bmv2Error {
        Bmv2Error::Invalid {
            path: shown(&self.path()),
            message: message.into(),
        }
    }

    /// True when the value is JSON `null`.
    pub fn is_null(&self) -> bool {
        self.v.is_null()
    }

    /// The member `key` of this object; an error when this is not an
    /// object or the key is absent.
    pub fn key(&self, key: &str) -> Result<J<'a>> {
        let obj = self
            .v
            .as_object()
            .ok_or_else(|| self.expected("an object"))?;
        match obj.get_key_value(key) {
            Some((k, v)) => Ok(self.child(v, Step::Key(k))),
            None => Err(Bmv2Error::Missing {
                path: shown(&self.path()),
                key: key.to_string(),
            }),
        }
    }

    /// The member `key` of this object, `None` when absent or `null`.
    pub fn opt(&self, key: &str) -> Result<Option<J<'a>>> {
        let obj = self
            .v
            .as_object()
            .ok_or_else(|| self.expected("an object"))?;
        Ok(match obj.get_key_value(key) {
            Some((k, v)) if !v.is_null() => Some(self.child(v, Step::Key(k))),
            _ => None,
        })
    }

    /// The elements of this array.
    pub fn items(&self) -> Result<Vec<J<'a>>> {
        let arr = self.v.as_array().ok_or_else(|| self.expected("an array"))?;
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, v)| self.child(v, Step::Index(i)))
            .collect())
    }

    /// The members of this object, in the map's order.
    pub fn entries(&self) -> Result<Vec<(&'a str, J<'a>)>> {
        let obj = self
            .v
            .as_object()
            .ok_or_else(|| self.expected("an object"))?;
        Ok(obj
            .iter()
            .map(|(k, v)| (k, self.child(v, Step::Key(k))))
            .collect())
    }

    /// This value as a string.
    pub fn str(&self) -> Result<&'a str> {
        self.v.as_str().ok_or_else(|| self.expected("a string"))
    }

    /// This value as a string, `None` for `null`.
    pub fn opt_str(&self) -> Result<Option<&'a str>> {
        if self.v.is_null() {
            return Ok(None);
        }
        self.str().map(Some)
    }

    /// This value as a non-negative integer.
    pub fn u64(&self) -> Result<u64> {
        self.v
            .as_u64()
            .ok_or_else(|| self.expected("a non-negative integer"))
    }

    /// This value as a non-negative integer that fits 32 bits.
    pub fn u32(&self) -> Result<u32> {
        let n = self.u64()?;
        u32::try_from(n).map_err(|_| self.invalid(format!("{n} does not fit in 32 bits")))
    }

    /// This value as a boolean.
    pub fn bool(&self) -> Result<bool> {
        self.v.as_bool().ok_or_else(|| self.expected("a boolean"))
    }

    /// Shortcut: the string member `key`.
    pub fn key_str(&self, key: &str) -> Result<&'a str> {
        self.key(key)?.str()
    }

    /// Shortcut: the string member `key`, `None` when absent or `null`.
    pub fn opt_key_str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.opt(key)? {
            Some(j) => j.str().map(Some),
            None => Ok(None),
        }
    }

    /// Shortcut: the array member `key`.
    pub fn key_items(&self, key: &str) -> Result<Vec<J<'a>>> {
        self.key(key)?.items()
    }

    /// Shortcut: the array member `key`, empty when absent or `null`.
    pub fn opt_items(&self, key: &str) -> Result<Vec<J<'a>>> {
        match self.opt(key)? {
            Some(j) => j.items(),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_keys_and_indices() {
        let v: Value = serde_json::from_str(r#"{"a":[{"b":1},{"b":"x"}]}"#).unwrap();
        let root = J::root(&v);
        let items = root.key_items("a").unwrap();
        assert_eq!(items[1].path(), "a[1]");
        assert_eq!(items[0].key("b").unwrap().u64().unwrap(), 1);
        let err = items[1].key("b").unwrap().u64().unwrap_err();
        assert_eq!(
            err.to_string(),
            "a[1].b: expected a non-negative integer, found string"
        );
        let err = items[0].key("c").unwrap_err();
        assert_eq!(err.to_string(), "a[0]: missing key `c`");
        let err = root.key_str("a").unwrap_err();
        assert_eq!(err.to_string(), "a: expected a string, found array");
    }

    #[test]
    fn paths_are_written_as_before_at_the_root_and_under_indices() {
        let v: Value = serde_json::from_str(r#"[{"x":[[true]],"":{"y":1}}]"#).unwrap();
        let root = J::root(&v);
        let first = &root.items().unwrap()[0];
        assert_eq!(first.path(), "(root)[0]");
        let inner = &first.key_items("x").unwrap()[0].items().unwrap()[0];
        assert_eq!(inner.path(), "(root)[0].x[0][0]");
        let err = inner.str().unwrap_err();
        assert_eq!(
            err.to_string(),
            "(root)[0].x[0][0]: expected a string, found boolean"
        );
        let y = first.key("").unwrap().key("y").unwrap();
        assert_eq!(y.path(), "(root)[0]..y");
        let solo: Value = serde_json::from_str(r#"{"":{"y":1}}"#).unwrap();
        let empty = J::root(&solo).key("").unwrap();
        assert_eq!(
            empty.key("z").unwrap_err().to_string(),
            "(root): missing key `z`"
        );
        assert_eq!(empty.key("y").unwrap().path(), "y");
    }

    #[test]
    fn opt_treats_null_as_absent() {
        let v: Value = serde_json::from_str(r#"{"a":null,"b":"s"}"#).unwrap();
        let root = J::root(&v);
        assert!(root.opt("a").unwrap().is_none());
        assert!(root.opt("z").unwrap().is_none());
        assert_eq!(root.opt_key_str("b").unwrap(), Some("s"));
        let arr: Value = serde_json::from_str("[1]").unwrap();
        let err = J::root(&arr).key("a").unwrap_err();
        assert_eq!(err.to_string(), "(root): expected an object, found array");
    }
}
