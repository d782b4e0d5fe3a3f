//! The JSON document the reader walks: a tree that borrows its strings
//! from the text where they hold no escape, and keeps an object's members
//! as a short list in the text's order (BMv2 objects have a handful of
//! keys; a list search beats hashing every key as `serde_json::Value`
//! with `preserve_order` does, and nothing is copied but escaped strings).
//!
//! Parsed by serde_json itself, so a syntax error is serde_json's error
//! (same message, line and column) and nesting is bounded by its
//! recursion limit (128), which also bounds the recursion of the tree's
//! drop.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Number;

/// A JSON value borrowed from the text it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it (u64, i64 or f64).
    Number(Number),
    /// A string, borrowed from the text unless it held an escape.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object.
    Object(Object<'a>),
}

/// An object's members in the text's order, each key once (a repeated
/// key keeps its first place and its last value, as serde_json's
/// `preserve_order` map does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Object<'a> {
    /// The member `key` with the key as stored.
    pub fn get_key_value(&self, key: &str) -> Option<(&str, &Value<'a>)> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(k, v)| (k.as_ref(), v))
    }

    /// The value of member `key`.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.get_key_value(key).map(|(_, v)| v)
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// Builds an object from members in text order, merging repeated keys.
    fn from_members(mut members: Vec<(Cow<'a, str>, Value<'a>)>) -> Object<'a> {
        if has_repeats(&members) {
            members = merged(members);
        }
        Object { members }
    }
}

/// True when two members share a key.
fn has_repeats(members: &[(Cow<'_, str>, Value<'_>)]) -> bool {
    if members.len() <= 16 {
        return members
            .iter()
            .enumerate()
            .any(|(i, (k, _))| members[..i].iter().any(|(j, _)| j == k));
    }
    let mut keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// The members with each repeated key at its first place, holding its
/// last value.
fn merged<'a>(members: Vec<(Cow<'a, str>, Value<'a>)>) -> Vec<(Cow<'a, str>, Value<'a>)> {
    let mut at: std::collections::HashMap<Cow<'a, str>, usize> = Default::default();
    let mut out: Vec<(Cow<'a, str>, Value<'a>)> = Vec::with_capacity(members.len());
    for (k, v) in members {
        match at.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// A scalar `serde_json::Value` (`null` for an array or object, which
/// [`Value::from_serde`] builds itself).
fn scalar(v: &serde_json::Value) -> Value<'_> {
    match v {
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(n.clone()),
        serde_json::Value::String(s) => Value::String(Cow::Borrowed(s)),
        _ => Value::Null,
    }
}

impl<'a> Value<'a> {
    /// Parses JSON text; errors are serde_json's.
    pub fn parse(text: &'a str) -> serde_json::Result<Value<'a>> {
        serde_json::from_str(text)
    }

    /// The same document over a `serde_json::Value`, borrowing its strings.
    /// Walks with an explicit stack: a value built in memory may nest
    /// deeper than a parsed one.
    pub fn from_serde(root: &'a serde_json::Value) -> Value<'a> {
        enum Task<'a> {
            Visit(&'a serde_json::Value),
            Array(usize),
            Object(&'a serde_json::Map<String, serde_json::Value>),
        }
        let mut tasks = vec![Task::Visit(root)];
        let mut done: Vec<Value<'a>> = Vec::new();
        while let Some(task) = tasks.pop() {
            let v = match task {
                Task::Visit(serde_json::Value::Array(a)) => {
                    tasks.push(Task::Array(a.len()));
                    tasks.extend(a.iter().rev().map(Task::Visit));
                    continue;
                }
                Task::Visit(serde_json::Value::Object(m)) => {
                    tasks.push(Task::Object(m));
                    tasks.extend(m.values().rev().map(Task::Visit));
                    continue;
                }
                Task::Visit(v) => scalar(v),
                Task::Array(n) => Value::Array(done.split_off(done.len() - n)),
                Task::Object(m) => {
                    let values = done.split_off(done.len() - m.len());
                    let members = m.keys().map(|k| Cow::Borrowed(k.as_str())).zip(values);
                    Value::Object(Object {
                        members: members.collect(),
                    })
                }
            };
            done.push(v);
        }
        done.pop().unwrap_or(Value::Null)
    }

    /// The member `key` of an object; `None` for other values.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.as_object()?.get(key)
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The text, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as u64, if it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// True for an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }
}

/// Compact JSON, as `serde_json::Value` writes it.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(t) => s.serialize_str(t),
            Value::Array(a) => a.serialize(s),
            Value::Object(o) => {
                let mut m = s.serialize_map(Some(o.members.len()))?;
                for (k, v) in &o.members {
                    m.serialize_entry(k.as_ref(), v)?;
                }
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value<'de>, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value<'de>, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value<'de>, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value<'de>, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value<'de>, E> {
        Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(s)))
    }
    fn visit_none<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element()? {
            items.push(x);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some(Key(k)) = map.next_key()? {
            members.push((k, map.next_value()?));
        }
        Ok(Value::Object(Object::from_members(members)))
    }
}

/// An object key, borrowed from the text when it holds no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document against serde_json's own tree: the same values (the
    /// member order of serde_json's map depends on its `preserve_order`
    /// feature, so the trees are compared through serde_json's
    /// order-blind equality, both ways).
    fn same_as_serde(text: &str) {
        let ours = Value::parse(text).expect("parses");
        let theirs: serde_json::Value = serde_json::from_str(text).expect("parses");
        let ours_text: serde_json::Value = serde_json::from_str(&ours.to_string()).unwrap();
        assert_eq!(ours_text, theirs, "{text}");
        let back: serde_json::Value =
            serde_json::from_str(&Value::from_serde(&theirs).to_string()).unwrap();
        assert_eq!(back, theirs, "{text}");
    }

    #[test]
    fn members_keep_the_text_order() {
        let v = Value::parse(r#"{"b":1,"a":{"z":2,"y":3}}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"b":1,"a":{"z":2,"y":3}}"#);
        let keys: Vec<_> = v.as_object().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a"]);
    }

    #[test]
    fn deep_values_built_in_memory_convert_without_recursion() {
        let mut v = serde_json::json!(1);
        for _ in 0..100_000 {
            v = serde_json::Value::Array(vec![v]);
        }
        let d = Value::from_serde(&v);
        let mut depth = 0;
        let mut at = &d;
        while let Some([inner]) = at.as_array() {
            (depth, at) = (depth + 1, inner);
        }
        assert_eq!((depth, at.as_u64()), (100_000, Some(1)));
        // Both trees drop recursively: leak them.
        std::mem::forget(d);
        std::mem::forget(v);
    }

    #[test]
    fn values_order_and_text_match_serde_json() {
        same_as_serde(r#"{"b":1,"a":[true,null,-2,1.5e3,18446744073709551615],"c":{"x":"y"}}"#);
        same_as_serde(r#"["esc\"aped\n", "\u00e9", "plain", {}, [], 0]"#);
        same_as_serde(r#"{"k":1,"j":2,"k":3}"#);
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let v = Value::parse(r#"{"name":"plain","e":"a\tb"}"#).unwrap();
        let o = v.as_object().unwrap();
        assert!(matches!(
            o.get("name"),
            Some(Value::String(Cow::Borrowed("plain")))
        ));
        assert!(matches!(o.get("e"), Some(Value::String(Cow::Owned(s))) if s == "a\tb"));
    }

    #[test]
    fn repeated_keys_keep_first_place_and_last_value() {
        let v = Value::parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(v.get("a").and_then(Value::as_u64), Some(3));
        // Past 16 members the check sorts the keys instead.
        let many: Vec<String> = (0..20).map(|i| format!("\"k{i}\":{i}")).collect();
        let text = format!("{{{},\"k3\":99}}", many.join(","));
        let v = Value::parse(&text).unwrap();
        assert_eq!(v.as_object().unwrap().iter().count(), 20);
        assert_eq!(v.get("k3").and_then(Value::as_u64), Some(99));
        same_as_serde(&text);
    }

    #[test]
    fn syntax_errors_are_serde_jsons() {
        for text in [
            "{\"a\":",
            "[1,]",
            "{\"a\":1} x",
            "",
            "[[[[[[[[[[[[[[[[[[[[[[[[",
        ] {
            let ours = Value::parse(text).unwrap_err().to_string();
            let theirs = serde_json::from_str::<serde_json::Value>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        let msg = Value::parse(&deep).unwrap_err().to_string();
        assert!(msg.contains("recursion limit"), "{msg}");
    }
}
