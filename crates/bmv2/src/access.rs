//! A path-tracking view of a `serde_json::Value`: every accessor knows the
//! JSON path it stands at, so type and shape errors can say where they are.

use serde_json::Value;

use crate::error::{Bmv2Error, Result};

/// A JSON value together with the path that leads to it from the root.
#[derive(Debug, Clone)]
pub(crate) struct J<'a> {
    /// The value.
    pub v: &'a Value,
    /// Its path (`pipelines[0].tables[3]`); empty at the root.
    pub path: String,
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

impl<'a> J<'a> {
    /// The root of a document.
    pub fn root(v: &'a Value) -> J<'a> {
        J {
            v,
            path: String::new(),
        }
    }

    fn child_key(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// An error saying this value should have been `expected`.
    pub fn expected(&self, expected: &str) -> Bmv2Error {
        Bmv2Error::WrongType {
            path: shown(&self.path),
            expected: expected.to_string(),
            found: kind(self.v),
        }
    }

    /// An error about this value's content.
    pub fn invalid(&self, message: impl Into<String>) -> Bmv2Error {
        Bmv2Error::Invalid {
            path: shown(&self.path),
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
        match obj.get(key) {
            Some(v) => Ok(J {
                v,
                path: self.child_key(key),
            }),
            None => Err(Bmv2Error::Missing {
                path: shown(&self.path),
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
        Ok(match obj.get(key) {
            Some(v) if !v.is_null() => Some(J {
                v,
                path: self.child_key(key),
            }),
            _ => None,
        })
    }

    /// The elements of this array.
    pub fn items(&self) -> Result<Vec<J<'a>>> {
        let arr = self.v.as_array().ok_or_else(|| self.expected("an array"))?;
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, v)| J {
                v,
                path: format!("{}[{}]", shown(&self.path), i),
            })
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
            .map(|(k, v)| {
                (
                    k.as_str(),
                    J {
                        v,
                        path: self.child_key(k),
                    },
                )
            })
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
        assert_eq!(items[1].path, "a[1]");
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
