//! The header a sub-parser's extract stands for (issue 24).
//!
//! When p4c inlines a sub-parser (`sub.apply(packet, hdr.inf)`), it extracts
//! into a renamed local of the sub-parser (`inf_0`) and copies the local
//! into the argument afterwards (`assign_header(prot_inf, inf_0)`, for a
//! union each member: `assign_header(addr_dst.ipv4, addr_0.ipv4)`), in the
//! same state or in the one the extracting state always goes on to. The
//! source extracts into the argument. So an extract of a header that is
//! copied, before it is extracted again, into another is named after that
//! other header: the one the packet's bytes end up in, as the source names
//! it. Extracts of headers never copied keep the JSON's name.

use std::collections::{HashMap, HashSet};

use crate::doc::Value;

/// At most this many parser operations are looked at in all, per parser,
/// to follow copies; past it, extracts keep the JSON's names (the answer
/// stays the same for every input of one shape: no time or size limit).
const MAX_WORK: usize = 1_000_000;

/// Per (state index, operation index) of an `extract` of a plain header,
/// the header the extracted local is copied into next.
pub(crate) type CopyOut = HashMap<(usize, usize), String>;

/// The copy-out targets of the extracts of the parse states `states` (the
/// JSON `parse_states` values, in order), `ids` their indexes by name.
pub(crate) fn copy_out_targets(states: &[&Value], ids: &HashMap<&str, usize>) -> CopyOut {
    let sources: HashSet<&str> = states
        .iter()
        .flat_map(|s| ops(s))
        .filter_map(|op| assignment(op).map(|(_, src)| src))
        .collect();
    let mut out = CopyOut::new();
    if sources.is_empty() {
        return out;
    }
    let mut work = 0usize;
    for (si, s) in states.iter().enumerate() {
        for (oi, op) in ops(s).iter().enumerate() {
            let Some(local) = extracted(op) else { continue };
            if !sources.contains(local) && !sources.contains(union_of(local)) {
                continue;
            }
            if let Some(d) = follow(states, ids, local, si, oi + 1, &mut work) {
                out.insert((si, oi), d);
            }
        }
    }
    out
}

/// Where `local`, extracted in state `si` before its operation `from`, is
/// copied to next: the operations after it, then those of the states it
/// always goes on to (one successor each), until `local` is extracted
/// again, the way forks or ends, or a state comes round again.
fn follow(
    states: &[&Value],
    ids: &HashMap<&str, usize>,
    local: &str,
    mut si: usize,
    mut from: usize,
    work: &mut usize,
) -> Option<String> {
    let mut seen: HashSet<usize> = HashSet::new();
    loop {
        let list = ops(states.get(si)?);
        for op in list.iter().skip(from) {
            *work += 1;
            if *work > MAX_WORK {
                return None;
            }
            if extracted(op) == Some(local) {
                return None;
            }
            if let Some((dst, src)) = assignment(op) {
                if src == local {
                    return Some(dst.to_string());
                }
                // A union copied whole: `local` is one of its members.
                if let Some(member) = local.strip_prefix(src).and_then(|m| m.strip_prefix('.')) {
                    return Some(format!("{dst}.{member}"));
                }
            }
        }
        if !seen.insert(si) {
            return None;
        }
        si = only_successor(states.get(si)?, ids)?;
        from = 0;
    }
}

/// A state's `parser_ops`, empty when there are none.
fn ops<'a, 'b>(state: &'a Value<'b>) -> &'a [Value<'b>] {
    state
        .get("parser_ops")
        .and_then(Value::as_array)
        .unwrap_or(&[])
}

/// The header an `extract` of a plain header (not a stack's element or
/// `next`) writes.
fn extracted<'a>(op: &'a Value<'_>) -> Option<&'a str> {
    if op.get("op").and_then(Value::as_str) != Some("extract") {
        return None;
    }
    let p = op.get("parameters")?.as_array()?.first()?;
    if p.get("type").and_then(Value::as_str) != Some("regular") {
        return None;
    }
    p.get("value")?.as_str().filter(|n| !n.ends_with(']'))
}

/// `(destination, source)` of an `assign_header` or `assign_union`
/// primitive.
fn assignment<'a>(op: &'a Value<'_>) -> Option<(&'a str, &'a str)> {
    if op.get("op").and_then(Value::as_str) != Some("primitive") {
        return None;
    }
    let call = op.get("parameters")?.as_array()?.first()?;
    let name = call.get("op").and_then(Value::as_str)?;
    if name != "assign_header" && name != "assign_union" {
        return None;
    }
    let args = call.get("parameters")?.as_array()?;
    let arg = |i: usize| args.get(i)?.get("value")?.as_str();
    Some((arg(0)?, arg(1)?))
}

/// `u` for a union member `u.m`; the name itself otherwise.
fn union_of(header: &str) -> &str {
    header.rsplit_once('.').map_or(header, |(u, _)| u)
}

/// The one state every transition of `state` leads to (`None` when they
/// lead to several, or to the end).
fn only_successor(state: &Value, ids: &HashMap<&str, usize>) -> Option<usize> {
    let mut next: Option<usize> = None;
    for t in state.get("transitions")?.as_array()? {
        let to = *ids.get(t.get("next_state")?.as_str()?)?;
        if next.is_some_and(|n| n != to) {
            return None;
        }
        next = Some(to);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::Value as Json;

    fn targets(states: &Json) -> CopyOut {
        let doc = Value::from_serde(states);
        let list: Vec<&Value> = doc.as_array().expect("states").iter().collect();
        let ids: HashMap<&str, usize> = list
            .iter()
            .enumerate()
            .map(|(i, s)| (s.get("name").and_then(Value::as_str).expect("name"), i))
            .collect();
        copy_out_targets(&list, &ids)
    }

    fn extract(h: &str) -> Json {
        serde_json::json!({"op": "extract", "parameters": [{"type": "regular", "value": h}]})
    }

    fn assign(op: &str, dst: &str, src: &str) -> Json {
        serde_json::json!({"op": "primitive", "parameters": [{"op": op, "parameters": [
            {"type": "header", "value": dst}, {"type": "header", "value": src}]}]})
    }

    fn state(name: &str, ops: Vec<Json>, next: &[Option<&str>]) -> Json {
        let transitions: Vec<Json> = next
            .iter()
            .map(|n| serde_json::json!({"type": "default", "next_state": n}))
            .collect();
        serde_json::json!({"name": name, "parser_ops": ops, "transitions": transitions})
    }

    #[test]
    fn a_local_copied_in_its_state_is_named_after_the_copy() {
        let s = serde_json::json!([state(
            "start",
            vec![
                extract("inf_0"),
                assign("assign_header", "prot_inf_1", "inf_0")
            ],
            &[None]
        )]);
        assert_eq!(
            targets(&s).get(&(0, 0)).map(String::as_str),
            Some("prot_inf_1")
        );
    }

    #[test]
    fn a_union_member_copied_in_the_next_state_each_time_it_is_extracted() {
        let s = serde_json::json!([
            state("a", vec![extract("addr_0.ipv4")], &[Some("b")]),
            state(
                "b",
                vec![assign("assign_header", "addr_dst.ipv4", "addr_0.ipv4")],
                &[Some("c")]
            ),
            state("c", vec![extract("addr_0.ipv4")], &[Some("d")]),
            state(
                "d",
                vec![assign("assign_union", "addr_src", "addr_0")],
                &[None]
            ),
        ]);
        let t = targets(&s);
        assert_eq!(t.get(&(0, 0)).map(String::as_str), Some("addr_dst.ipv4"));
        assert_eq!(t.get(&(2, 0)).map(String::as_str), Some("addr_src.ipv4"));
    }

    #[test]
    fn no_copy_before_a_fork_or_a_new_extract_keeps_the_name() {
        let s = serde_json::json!([
            state("a", vec![extract("l")], &[Some("b"), Some("c")]),
            state("b", vec![assign("assign_header", "x", "l")], &[None]),
            state(
                "c",
                vec![extract("l"), assign("assign_header", "y", "l")],
                &[Some("c")]
            ),
            state("d", vec![extract("e_0")], &[Some("d")]),
        ]);
        let t = targets(&s);
        assert_eq!(t.get(&(0, 0)), None, "the way forks before the copy");
        assert_eq!(t.get(&(2, 0)).map(String::as_str), Some("y"));
        assert_eq!(t.get(&(3, 0)), None, "never copied; a loop ends the search");
    }
}
