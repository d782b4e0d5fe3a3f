//! `header_types`, `headers`, `header_stacks`, `header_union_types`,
//! `header_unions` and `header_union_stacks`: the IR's header types and
//! instances, plus the name lookups the rest of the reader needs.

use std::collections::{HashMap, HashSet};

use p4cost_ir::{
    Field, HeaderId, HeaderInstance, HeaderKind, HeaderType, HeaderTypeId, Origin, Program, Span,
};

use crate::access::J;
use crate::error::Result;

/// The most elements a header stack (or header union stack) may have.
/// Every element is a separate parse-graph node when a loop extracts into
/// the stack, so this bounds what one stack can expand to; real programs
/// use stacks of a few dozen elements at most (MPLS labels, SRv6
/// segments, TCP options).
pub const MAX_STACK_SIZE: usize = 4096;

/// Name lookups over the header declarations of one file.
#[derive(Debug, Default)]
pub(crate) struct Headers {
    /// Header type name -> id.
    type_ids: HashMap<String, HeaderTypeId>,
    /// Field names and widths per header type (index = type id).
    fields: Vec<Vec<(String, u32)>>,
    /// `(type, field name)` -> width, for lookups in constant time.
    field_width: HashMap<(HeaderTypeId, String), u32>,
    /// Every JSON header instance (stack elements included) -> its type.
    header_type_of: HashMap<String, HeaderTypeId>,
    /// Header stack name -> element type.
    stack_type: HashMap<String, HeaderTypeId>,
    /// Union type name -> members `(member name, header type)`.
    union_members: HashMap<String, Vec<(String, HeaderTypeId)>>,
    /// `(union type, member name)` -> member header type.
    union_member_type: HashMap<(String, String), HeaderTypeId>,
    /// Union instance or union stack name -> union type name.
    union_type_of: HashMap<String, String>,
    /// IR header instance name -> its id in `Program::headers`.
    instance_ids: HashMap<String, HeaderId>,
}

impl Headers {
    /// The type of a JSON header instance (a stack element such as `h[0]`
    /// included).
    pub fn type_of_header(&self, header: &str) -> Option<HeaderTypeId> {
        self.header_type_of.get(header).copied()
    }

    /// The element type of a header stack.
    pub fn type_of_stack(&self, stack: &str) -> Option<HeaderTypeId> {
        self.stack_type.get(stack).copied()
    }

    /// The header type of member `member` of a union instance or union
    /// stack.
    pub fn type_of_union_member(&self, union: &str, member: &str) -> Option<HeaderTypeId> {
        let ty = self.union_type_of.get(union)?;
        self.union_member_type
            .get(&(ty.clone(), member.to_string()))
            .copied()
    }

    /// The name of member number `index` of a union instance or stack.
    pub fn union_member_name(&self, union: &str, index: u64) -> Option<&str> {
        let ty = self.union_type_of.get(union)?;
        let members = self.union_members.get(ty)?;
        let i = usize::try_from(index).ok()?;
        members.get(i).map(|(m, _)| m.as_str())
    }

    /// Width of `field` in a header type; `$valid$` is one bit.
    pub fn field_width_in(&self, ty: HeaderTypeId, field: &str) -> Option<u32> {
        if field == "$valid$" {
            return Some(1);
        }
        self.field_width.get(&(ty, field.to_string())).copied()
    }

    /// The IR header instance named `name` (a stack or union stack for its
    /// elements), as [`Program::header_by_name`] finds it, in constant time.
    pub fn instance_id(&self, name: &str) -> Option<HeaderId> {
        self.instance_ids.get(name).copied()
    }

    /// The field names of a header type, in order.
    pub fn field_names(&self, ty: HeaderTypeId) -> impl Iterator<Item = &str> {
        self.fields
            .get(ty.index())
            .into_iter()
            .flatten()
            .map(|(n, _)| n.as_str())
    }

    /// Name of field number `offset` of a header type.
    pub fn field_name_at(&self, ty: HeaderTypeId, offset: u64) -> Option<&str> {
        let i = usize::try_from(offset).ok()?;
        self.fields.get(ty.index())?.get(i).map(|(n, _)| n.as_str())
    }

    /// Width of `header.field` for a JSON header instance.
    pub fn field_width(&self, header: &str, field: &str) -> Option<u32> {
        self.field_width_in(self.type_of_header(header)?, field)
    }
}

/// A header type name the architecture (or p4c itself) declares rather
/// than the user's program.
fn arch_type_name(name: &str) -> bool {
    name == "standard_metadata"
        || name.starts_with("scalars")
        || name.starts_with("psa_")
        || name.starts_with("pna_")
}

struct RawHeader {
    name: String,
    json_id: Option<u64>,
    ty: HeaderTypeId,
    metadata: bool,
}

/// Reads every header declaration into `prog` and returns the lookups.
pub(crate) fn read(root: &J, prog: &mut Program, json_span: Span) -> Result<Headers> {
    let mut h = Headers::default();
    let type_items = root.key_items("header_types")?;
    read_type_ids(&mut h, &type_items)?;
    let raw = read_raw_headers(root, &mut h)?;
    read_header_types(&type_items, &raw, &mut h, prog, json_span)?;
    read_union_types(root, &mut h, prog, json_span)?;
    // Elements of stacks are represented by the stack instance.
    let mut in_stack: HashSet<u64> = HashSet::new();
    let stacks = read_stacks(root, &mut h, &mut in_stack, json_span)?;
    // Unions, and union stacks whose elements (and their members) are
    // represented by the union stack instance.
    let unions = root.opt_items("header_unions")?;
    let union_headers = read_union_header_ids(&unions)?;
    let mut union_in_stack: HashSet<u64> = HashSet::new();
    let union_stacks = read_union_stacks(
        root,
        &mut h,
        &union_headers,
        &mut in_stack,
        &mut union_in_stack,
        json_span,
    )?;
    let mut instances = plain_instances(&raw, &in_stack, json_span);
    instances.extend(stacks);
    push_unions(&unions, &mut h, &union_in_stack, &mut instances, json_span)?;
    instances.extend(union_stacks);
    index_instances(&mut h, &instances);
    prog.headers = instances;
    Ok(h)
}

/// Pass 1: the header type names, so instances can refer to them.
fn read_type_ids(h: &mut Headers, type_items: &[J]) -> Result<()> {
    for (i, t) in type_items.iter().enumerate() {
        let name = t.key_str("name")?;
        if h.type_ids
            .insert(name.to_string(), HeaderTypeId(i as u32))
            .is_some()
        {
            return Err(t
                .key("name")?
                .invalid(format!("duplicate header type `{name}`")));
        }
    }
    Ok(())
}

/// The header type named at `ty_j`, which must be declared.
fn known_type(h: &Headers, ty_j: &J) -> Result<HeaderTypeId> {
    let ty_name = ty_j.str()?;
    h.type_ids
        .get(ty_name)
        .copied()
        .ok_or_else(|| ty_j.invalid(format!("unknown header type `{ty_name}`")))
}

/// The `headers` instances, each with its type recorded in `h`.
fn read_raw_headers(root: &J, h: &mut Headers) -> Result<Vec<RawHeader>> {
    let mut raw = Vec::new();
    for item in root.key_items("headers")? {
        let name = item.key_str("name")?;
        let ty = known_type(h, &item.key("header_type")?)?;
        let metadata = match item.opt("metadata")? {
            Some(m) => m.bool()?,
            None => false,
        };
        let json_id = match item.opt("id")? {
            Some(j) => Some(j.u64()?),
            None => None,
        };
        h.header_type_of.insert(name.to_string(), ty);
        raw.push(RawHeader {
            name: name.to_string(),
            json_id,
            ty,
            metadata,
        });
    }
    Ok(raw)
}

/// Per type: whether some instance uses it and every such instance is
/// metadata.
fn metadata_only_types(raw: &[RawHeader], types: usize) -> Vec<bool> {
    let mut usage: Vec<(bool, bool)> = vec![(false, true); types];
    for r in raw {
        if let Some(u) = usage.get_mut(r.ty.index()) {
            u.0 = true;
            u.1 &= r.metadata;
        }
    }
    usage.into_iter().map(|(used, meta)| used && meta).collect()
}

/// The header types, now that we know which are used as metadata.
fn read_header_types(
    type_items: &[J],
    raw: &[RawHeader],
    h: &mut Headers,
    prog: &mut Program,
    json_span: Span,
) -> Result<()> {
    let scalars_ty = raw.iter().find(|r| r.name == "scalars").map(|r| r.ty);
    let metadata_only = metadata_only_types(raw, type_items.len());
    for (i, t) in type_items.iter().enumerate() {
        let name = t.key_str("name")?;
        let id = HeaderTypeId(i as u32);
        let fields = read_fields(t, json_span)?;
        for f in &fields {
            h.field_width
                .entry((id, f.name.clone()))
                .or_insert(f.width_bits);
        }
        h.fields.push(
            fields
                .iter()
                .map(|f| (f.name.clone(), f.width_bits))
                .collect(),
        );
        let origin = if arch_type_name(name) || Some(id) == scalars_ty {
            Origin::Architecture
        } else {
            Origin::Program
        };
        prog.header_types.push(HeaderType {
            name: name.to_string(),
            kind: if metadata_only.get(i).copied().unwrap_or(false) {
                HeaderKind::Struct
            } else {
                HeaderKind::Header
            },
            fields,
            origin,
            span: json_span,
        });
    }
    Ok(())
}

/// The fields of header type `t` (`$valid$` left out), its one
/// variable-length field sized from `max_length`.
fn read_fields(t: &J, json_span: Span) -> Result<Vec<Field>> {
    let max_length = match t.opt("max_length")? {
        Some(m) => Some(m.u64()?),
        None => None,
    };
    let mut fields = Vec::new();
    let mut varbit_at = None;
    let mut fixed: u64 = 0;
    for f in t.key_items("fields")? {
        let parts = f.items()?;
        let (Some(fname), Some(width)) = (parts.first(), parts.get(1)) else {
            return Err(f.invalid("a field needs a name and a width"));
        };
        let fname = fname.str()?;
        if fname == "$valid$" {
            continue;
        }
        let (w, varbit) = match width.v.as_str() {
            Some("*") => {
                if varbit_at.is_some() {
                    return Err(width.invalid("more than one variable-length field"));
                }
                varbit_at = Some(fields.len());
                (0, true)
            }
            Some(other) => return Err(width.invalid(format!("field width `{other}` is not `*`"))),
            None => {
                let w = width.u32()?;
                fixed += u64::from(w);
                (w, false)
            }
        };
        fields.push(Field {
            name: fname.to_string(),
            width_bits: w,
            varbit,
            span: json_span,
        });
    }
    if let Some(at) = varbit_at {
        // `max_length` is the whole header's maximum size in bytes.
        let max_bits = max_length.unwrap_or(0).saturating_mul(8);
        let var = u32::try_from(max_bits.saturating_sub(fixed)).unwrap_or(u32::MAX);
        if let Some(f) = fields.get_mut(at) {
            f.width_bits = var;
        }
    }
    Ok(fields)
}

/// Union types: kind Union, members become instances of their own.
fn read_union_types(root: &J, h: &mut Headers, prog: &mut Program, json_span: Span) -> Result<()> {
    for ut in root.opt_items("header_union_types")? {
        let name = ut.key_str("name")?;
        let mut members = Vec::new();
        for m in ut.key_items("headers")? {
            let parts = m.items()?;
            let (Some(mname), Some(mty)) = (parts.first(), parts.get(1)) else {
                return Err(m.invalid("a union member needs a name and a header type"));
            };
            let ty = known_type(h, mty)?;
            let mname = mname.str()?;
            h.union_member_type
                .entry((name.to_string(), mname.to_string()))
                .or_insert(ty);
            members.push((mname.to_string(), ty));
        }
        let id = HeaderTypeId(prog.header_types.len() as u32);
        h.type_ids.entry(name.to_string()).or_insert(id);
        h.fields.push(Vec::new());
        prog.header_types.push(HeaderType {
            name: name.to_string(),
            kind: HeaderKind::Union,
            fields: Vec::new(),
            origin: Origin::Program,
            span: json_span,
        });
        h.union_members.insert(name.to_string(), members);
    }
    Ok(())
}

/// The id of the header union type `name` (named at `j`), which must be
/// declared.
fn union_type_id(h: &Headers, j: &J, name: &str) -> Result<HeaderTypeId> {
    match (h.union_members.get(name), h.type_ids.get(name)) {
        (Some(_), Some(id)) => Ok(*id),
        _ => Err(j.invalid(format!("unknown header union type `{name}`"))),
    }
}

/// The `header_stacks` instances; their element ids go into `in_stack`.
fn read_stacks(
    root: &J,
    h: &mut Headers,
    in_stack: &mut HashSet<u64>,
    json_span: Span,
) -> Result<Vec<HeaderInstance>> {
    let mut stacks = Vec::new();
    for s in root.opt_items("header_stacks")? {
        let name = s.key_str("name")?;
        let ty = known_type(h, &s.key("header_type")?)?;
        let ids_j = s.key("header_ids")?;
        let ids = ids_j.items()?;
        check_stack_size(&ids_j, ids.len())?;
        for id in &ids {
            in_stack.insert(id.u64()?);
        }
        h.stack_type.insert(name.to_string(), ty);
        stacks.push(HeaderInstance {
            name: name.to_string(),
            ty,
            stack_size: Some(ids.len() as u32),
            metadata: false,
            span: json_span,
        });
    }
    Ok(stacks)
}

/// Union instance id -> the ids of its member header instances.
fn read_union_header_ids(unions: &[J]) -> Result<HashMap<u64, Vec<u64>>> {
    let mut union_headers: HashMap<u64, Vec<u64>> = HashMap::new();
    for u in unions {
        let id = u.key("id")?.u64()?;
        let mut ids = Vec::new();
        for hid in u.key_items("header_ids")? {
            ids.push(hid.u64()?);
        }
        union_headers.insert(id, ids);
    }
    Ok(union_headers)
}

/// The `header_union_stacks` instances; their union ids go into
/// `union_in_stack` and those unions' member headers into `in_stack`.
fn read_union_stacks(
    root: &J,
    h: &mut Headers,
    union_headers: &HashMap<u64, Vec<u64>>,
    in_stack: &mut HashSet<u64>,
    union_in_stack: &mut HashSet<u64>,
    json_span: Span,
) -> Result<Vec<HeaderInstance>> {
    let mut union_stacks = Vec::new();
    for us in root.opt_items("header_union_stacks")? {
        let name = us.key_str("name")?;
        let ut_j = us.key("union_type")?;
        let ut = ut_j.str()?;
        let ty = union_type_id(h, &ut_j, ut)?;
        let ids_j = us.key("header_union_ids")?;
        let ids = ids_j.items()?;
        check_stack_size(&ids_j, ids.len())?;
        for id in &ids {
            let uid = id.u64()?;
            union_in_stack.insert(uid);
            if let Some(hs) = union_headers.get(&uid) {
                in_stack.extend(hs.iter().copied());
            }
        }
        h.union_type_of.insert(name.to_string(), ut.to_string());
        union_stacks.push(HeaderInstance {
            name: name.to_string(),
            ty,
            stack_size: Some(ids.len() as u32),
            metadata: false,
            span: json_span,
        });
    }
    Ok(union_stacks)
}

/// The IR instances of the `headers` that are not stack elements.
fn plain_instances(
    raw: &[RawHeader],
    in_stack: &HashSet<u64>,
    json_span: Span,
) -> Vec<HeaderInstance> {
    let mut instances = Vec::new();
    for r in raw {
        if r.json_id.is_some_and(|id| in_stack.contains(&id)) {
            continue;
        }
        instances.push(HeaderInstance {
            name: r.name.clone(),
            ty: r.ty,
            stack_size: None,
            metadata: r.metadata,
            span: json_span,
        });
    }
    instances
}

/// Records every union's type in `h` and pushes the unions that are not
/// union stack elements onto `instances`.
fn push_unions(
    unions: &[J],
    h: &mut Headers,
    union_in_stack: &HashSet<u64>,
    instances: &mut Vec<HeaderInstance>,
    json_span: Span,
) -> Result<()> {
    for u in unions {
        let name = u.key_str("name")?;
        let ut_j = u.key("union_type")?;
        let ut = ut_j.str()?;
        let ty = union_type_id(h, &ut_j, ut)?;
        h.union_type_of.insert(name.to_string(), ut.to_string());
        if union_in_stack.contains(&u.key("id")?.u64()?) {
            continue;
        }
        instances.push(HeaderInstance {
            name: name.to_string(),
            ty,
            stack_size: None,
            metadata: false,
            span: json_span,
        });
    }
    Ok(())
}

/// Indexes the instances by name; the first instance of a name wins, as in
/// `Program::header_by_name`.
fn index_instances(h: &mut Headers, instances: &[HeaderInstance]) {
    for (i, inst) in instances.iter().enumerate() {
        h.instance_ids
            .entry(inst.name.clone())
            .or_insert(HeaderId(i as u32));
    }
}

/// Refuses a stack of more than [`MAX_STACK_SIZE`] elements.
fn check_stack_size(ids: &J, len: usize) -> Result<()> {
    if len > MAX_STACK_SIZE {
        return Err(ids.invalid(format!(
            "a header stack of {len} elements is more than the {MAX_STACK_SIZE} p4cost reads \
             (every element is a parse-graph node when a loop fills the stack)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{FileId, InputKind};

    fn run(text: &str) -> (Program, Result<Headers>) {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let v = crate::doc::Value::from_serde(&v);
        let mut prog = Program::new("t", InputKind::Bmv2Json);
        let r = read(&J::root(&v), &mut prog, Span::file_start(FileId(0)));
        (prog, r)
    }

    #[test]
    fn types_instances_stacks_and_varbit() {
        let (prog, h) = run(r#"{
          "header_types": [
            {"name": "scalars_0", "id": 0, "fields": [["x", 3, false]]},
            {"name": "eth_t", "id": 1, "fields": [["dst", 48, false], ["type", 16]]},
            {"name": "opt_t", "id": 2, "fields": [["len", 8, false], ["data", "*"]], "max_length": 6}
          ],
          "headers": [
            {"name": "scalars", "id": 0, "header_type": "scalars_0", "metadata": true},
            {"name": "eth", "id": 1, "header_type": "eth_t", "metadata": false},
            {"name": "o[0]", "id": 2, "header_type": "opt_t", "metadata": false},
            {"name": "o[1]", "id": 3, "header_type": "opt_t", "metadata": false}
          ],
          "header_stacks": [{"name": "o", "id": 0, "header_type": "opt_t", "header_ids": [2, 3]}]
        }"#);
        let h = h.unwrap();
        assert_eq!(prog.header_types.len(), 3);
        assert_eq!(prog.header_types[0].kind, HeaderKind::Struct);
        assert_eq!(prog.header_types[0].origin, Origin::Architecture);
        assert_eq!(prog.header_types[1].origin, Origin::Program);
        assert_eq!(prog.header_types[1].fixed_bits(), 64);
        let opt = &prog.header_types[2];
        assert!(opt.fields[1].varbit);
        assert_eq!(opt.fields[1].width_bits, 40); // 6 bytes * 8 - 8 fixed
        assert_eq!(opt.fixed_bits(), 8);
        let names: Vec<&str> = prog.headers.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, vec!["scalars", "eth", "o"]);
        assert_eq!(prog.headers[2].stack_size, Some(2));
        assert_eq!(h.field_width("eth", "type"), Some(16));
        assert_eq!(h.field_width("o[1]", "len"), Some(8));
        assert_eq!(h.field_width("eth", "$valid$"), Some(1));
        assert_eq!(h.type_of_stack("o"), Some(HeaderTypeId(2)));
    }

    #[test]
    fn unknown_type_is_reported_with_its_path() {
        let (_, h) =
            run(r#"{"header_types": [], "headers": [{"name": "a", "header_type": "nope"}]}"#);
        assert_eq!(
            h.unwrap_err().to_string(),
            "headers[0].header_type: unknown header type `nope`"
        );
    }
    fn stack_doc(n: usize) -> String {
        let ids: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        format!(
            r#"{{"header_types": [{{"name": "t", "fields": [["x", 8, false]]}}], "headers": [],
               "header_stacks": [{{"name": "s", "header_type": "t", "header_ids": [{}]}}]}}"#,
            ids.join(",")
        )
    }

    #[test]
    fn stacks_are_bounded_with_a_json_path_error() {
        let (prog, h) = run(&stack_doc(MAX_STACK_SIZE));
        assert!(h.is_ok());
        assert_eq!(prog.headers[0].stack_size, Some(MAX_STACK_SIZE as u32));
        let (_, h) = run(&stack_doc(100_000));
        assert_eq!(
            h.unwrap_err().to_string(),
            "header_stacks[0].header_ids: a header stack of 100000 elements is more than the \
             4096 p4cost reads (every element is a parse-graph node when a loop fills the stack)"
        );
    }

    #[test]
    fn union_members_and_instances_are_found_by_name() {
        let (prog, h) = run(r#"{
          "header_types": [
            {"name": "a_t", "fields": [["x", 8, false]]},
            {"name": "b_t", "fields": [["y", 16, false]]}
          ],
          "headers": [
            {"name": "u_a", "id": 0, "header_type": "a_t", "metadata": false},
            {"name": "u_b", "id": 1, "header_type": "b_t", "metadata": false}
          ],
          "header_union_types": [{"name": "u_t", "headers": [["a", "a_t"], ["b", "b_t"]]}],
          "header_unions": [{"name": "u", "id": 0, "union_type": "u_t", "header_ids": [0, 1]}]
        }"#);
        let h = h.unwrap();
        assert_eq!(h.type_of_union_member("u", "b"), Some(HeaderTypeId(1)));
        assert_eq!(h.type_of_union_member("u", "c"), None);
        assert_eq!(h.union_member_name("u", 1), Some("b"));
        assert_eq!(h.field_width_in(HeaderTypeId(1), "y"), Some(16));
        assert_eq!(h.field_width_in(HeaderTypeId(1), "x"), None);
        for (i, inst) in prog.headers.iter().enumerate() {
            assert_eq!(h.instance_id(&inst.name), Some(HeaderId(i as u32)));
        }
        assert_eq!(h.instance_id("u"), prog.header_by_name("u"));
    }
}
