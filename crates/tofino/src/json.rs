//! Typed access to `serde_json::Value` trees that remembers where it is,
//! so that every complaint names a JSON path.

use serde_json::{Map, Value};

use crate::error::Fault;

/// One step of a JSON path.
#[derive(Debug, Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

/// A JSON path kept as a chain of borrowed steps on the stack; it is only
/// rendered to text when an error needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loc<'a> {
    parent: Option<&'a Loc<'a>>,
    seg: Seg<'a>,
}

impl<'a> Loc<'a> {
    /// The document root.
    pub(crate) const ROOT: Loc<'static> = Loc {
        parent: None,
        seg: Seg::Root,
    };

    /// The member `key` of this value.
    pub(crate) fn key(&'a self, key: &'a str) -> Loc<'a> {
        Loc {
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    /// Element `index` of this array.
    pub(crate) fn index(&'a self, index: usize) -> Loc<'a> {
        Loc {
            parent: Some(self),
            seg: Seg::Index(index),
        }
    }

    /// The path as text: `tables[3].match_attributes.stage_tables[0]`.
    pub(crate) fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(loc) = cur {
            segs.push(loc.seg);
            cur = loc.parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root => {}
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        if out.is_empty() {
            out.push_str("<root>");
        }
        out
    }
}

/// A short description of what a value is, for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("integer {n}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

fn type_fault(v: &Value, loc: &Loc, expected: &'static str) -> Fault {
    Fault::Type {
        path: loc.render(),
        expected,
        found: describe(v),
    }
}

/// The value as an object.
pub(crate) fn object<'v>(v: &'v Value, loc: &Loc) -> Result<&'v Map<String, Value>, Fault> {
    v.as_object().ok_or_else(|| type_fault(v, loc, "object"))
}

/// The value as an array.
pub(crate) fn array<'v>(v: &'v Value, loc: &Loc) -> Result<&'v [Value], Fault> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| type_fault(v, loc, "array"))
}

/// The value as a string.
pub(crate) fn string<'v>(v: &'v Value, loc: &Loc) -> Result<&'v str, Fault> {
    v.as_str().ok_or_else(|| type_fault(v, loc, "string"))
}

/// The value as a boolean.
pub(crate) fn boolean(v: &Value, loc: &Loc) -> Result<bool, Fault> {
    v.as_bool().ok_or_else(|| type_fault(v, loc, "boolean"))
}

/// The value as a signed 32-bit integer.
pub(crate) fn int32(v: &Value, loc: &Loc) -> Result<i32, Fault> {
    let n = v.as_i64().ok_or_else(|| type_fault(v, loc, "integer"))?;
    i32::try_from(n).map_err(|_| type_fault(v, loc, "integer in 32-bit range"))
}

/// The value as a non-negative 32-bit integer.
pub(crate) fn uint32(v: &Value, loc: &Loc) -> Result<u32, Fault> {
    let n = v
        .as_u64()
        .ok_or_else(|| type_fault(v, loc, "non-negative integer"))?;
    u32::try_from(n).map_err(|_| type_fault(v, loc, "non-negative integer below 2^32"))
}

/// The value as a non-negative integer.
pub(crate) fn uint64(v: &Value, loc: &Loc) -> Result<u64, Fault> {
    v.as_u64()
        .ok_or_else(|| type_fault(v, loc, "non-negative integer"))
}

/// A required member.
pub(crate) fn field<'v>(
    m: &'v Map<String, Value>,
    key: &str,
    loc: &Loc,
) -> Result<&'v Value, Fault> {
    m.get(key).ok_or_else(|| Fault::Missing {
        path: loc.key(key).render(),
    })
}

/// An optional member: `None` when absent or `null`.
pub(crate) fn opt<'v>(m: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    m.get(key).filter(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_nested_paths() {
        let root = Loc::ROOT;
        let t = root.key("tables");
        let t12 = t.index(12);
        let ma = t12.key("match_attributes");
        let st = ma.key("stage_tables");
        let st0 = st.index(0);
        let sn = st0.key("stage_number");
        assert_eq!(
            sn.render(),
            "tables[12].match_attributes.stage_tables[0].stage_number"
        );
        assert_eq!(root.render(), "<root>");
    }

    #[test]
    fn type_errors_say_expected_and_found() {
        let root = Loc::ROOT;
        let loc = root.key("x");
        let err = int32(&json!("7"), &loc).unwrap_err();
        assert_eq!(
            err,
            Fault::Type {
                path: "x".into(),
                expected: "integer",
                found: "string".into()
            }
        );
        assert!(uint32(&json!(-1), &loc).is_err());
        assert!(int32(&json!(1u64 << 40), &loc).is_err());
        assert_eq!(int32(&json!(-1), &loc), Ok(-1));
    }

    #[test]
    fn missing_member_names_its_path() {
        let v = json!({"a": 1});
        let m = v.as_object().unwrap();
        let root = Loc::ROOT;
        let err = field(m, "b", &root).unwrap_err();
        assert_eq!(err, Fault::Missing { path: "b".into() });
        assert!(opt(m, "b").is_none());
    }
}
