//! The embedded model files.

use crate::{ModelError, ModelSpec};

/// Every model file under `models/`, as `(file name, text)`, embedded at
/// build time.
pub const EMBEDDED: &[(&str, &str)] = &[
    (
        "tofino1-10g.json",
        include_str!("../../../models/tofino1-10g.json"),
    ),
    (
        "tofino1-100g.json",
        include_str!("../../../models/tofino1-100g.json"),
    ),
    (
        "tofino1-10g-paper-lr.json",
        include_str!("../../../models/tofino1-10g-paper-lr.json"),
    ),
    (
        "tofino1-100g-paper-lr.json",
        include_str!("../../../models/tofino1-100g-paper-lr.json"),
    ),
    (
        "tofino1-mau-cycles.json",
        include_str!("../../../models/tofino1-mau-cycles.json"),
    ),
    (
        "tofino1-mau-estimate.json",
        include_str!("../../../models/tofino1-mau-estimate.json"),
    ),
    (
        "tofino2-mau-estimate.json",
        include_str!("../../../models/tofino2-mau-estimate.json"),
    ),
    ("t4p4s.json", include_str!("../../../models/t4p4s.json")),
];

/// Parses one model file.
pub fn parse_model(file: &str, text: &str) -> Result<ModelSpec, ModelError> {
    let spec: ModelSpec = serde_json::from_str(text).map_err(|e| ModelError::BadFile {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let tree: serde_json::Value = serde_json::from_str(text).map_err(|e| ModelError::BadFile {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    crate::values::check_tree(&tree).map_err(|message| ModelError::BadFile {
        file: file.to_string(),
        message,
    })?;
    if spec.schema != 1 {
        return Err(ModelError::BadFile {
            file: file.to_string(),
            message: format!("unsupported schema {}", spec.schema),
        });
    }
    spec.check().map_err(|message| ModelError::BadFile {
        file: file.to_string(),
        message,
    })?;
    Ok(spec)
}

/// All embedded models, in catalogue order.
pub fn all_models() -> Result<Vec<ModelSpec>, ModelError> {
    EMBEDDED.iter().map(|(f, t)| parse_model(f, t)).collect()
}

/// The pass models' files, as `(path under models/, text)`.
const PASS_FILES: &[(&str, &str)] = &[
    ("nfp/nfp4000.json", crate::nfp::NFP4000.1),
    ("bmv2/bmv2-coarse.json", crate::bmv2_coarse::BMV2_COARSE.1),
];

/// Each of [`PASS_FILES`] parsed as a model, in that order.
const PASS_PARSERS: [fn() -> Result<ModelSpec, ModelError>; 2] = [
    || Ok(crate::nfp::nfp4000()?.to_spec()),
    || Ok(crate::bmv2_coarse::bmv2_coarse()?.to_spec()),
];

/// The embedded models of the pass kinds, kept in their own files
/// (`models/nfp/nfp4000.json`, `models/bmv2/bmv2-coarse.json`), as models.
pub fn pass_models() -> Result<Vec<ModelSpec>, ModelError> {
    PASS_PARSERS.iter().map(|parse| parse()).collect()
}

/// Every model `predict --model` takes: [`all_models`], then
/// [`pass_models`].
pub fn every_model() -> Result<Vec<ModelSpec>, ModelError> {
    Ok(every_model_kept()?.into_iter().cloned().collect())
}

/// [`every_model`], each file read once per process (an editor asks for
/// its model at every keystroke; the files never change).
fn every_model_kept() -> Result<Vec<&'static ModelSpec>, ModelError> {
    (0..FILES).map(kept_file).collect()
}

/// The file name (under `models/`) of the embedded model `name`.
pub fn model_file(name: &str) -> Option<&'static str> {
    let mut files = EMBEDDED.iter().chain(PASS_FILES).enumerate();
    let (_, (file, _)) = files.find(|(i, _)| kept_file(*i).is_ok_and(|m| m.name == name))?;
    Some(file)
}

/// Files of [`EMBEDDED`] and [`PASS_FILES`], in that order.
const FILES: usize = EMBEDDED.len() + PASS_FILES.len();

/// The model in file `i` of [`EMBEDDED`] then [`PASS_FILES`], parsed once
/// per process: the one cache behind [`model_in_its_file`] and
/// [`every_model_kept`], so no file is parsed twice.
fn kept_file(i: usize) -> Result<&'static ModelSpec, ModelError> {
    static KEPT: [std::sync::OnceLock<ModelSpec>; FILES] =
        [const { std::sync::OnceLock::new() }; FILES];
    if let Some(m) = KEPT[i].get() {
        return Ok(m);
    }
    let parsed = match i.checked_sub(EMBEDDED.len()) {
        None => parse_model(EMBEDDED[i].0, EMBEDDED[i].1),
        Some(pass) => PASS_PARSERS[pass](),
    }?;
    Ok(KEPT[i].get_or_init(|| parsed))
}

/// The model in the file named for `name` (`<name>.json`: every embedded
/// model's file is, a test says so); `None` when no file is. Parses one
/// file where [`every_model_kept`] parses all ten (2 M instructions, a
/// third of `predict` of a 20-line program).
fn model_in_its_file(name: &str) -> Option<Result<&'static ModelSpec, ModelError>> {
    let i = EMBEDDED
        .iter()
        .chain(PASS_FILES)
        .position(|(file, _)| file_stem(file) == Some(name))?;
    Some(kept_file(i))
}

/// `file`'s name without its directory and `.json`.
fn file_stem(file: &str) -> Option<&str> {
    file.rsplit('/').next()?.strip_suffix(".json")
}

/// The embedded model with this name.
pub fn model_by_name(name: &str) -> Result<ModelSpec, ModelError> {
    if let Some(m) = model_in_its_file(name) {
        let m = m?;
        if m.name == name {
            return Ok(m.clone());
        }
    }
    let all = every_model_kept()?;
    if let Some(m) = all.iter().find(|m| m.name == name) {
        return Ok((*m).clone());
    }
    let known = all
        .iter()
        .map(|m| m.name.clone())
        .collect::<Vec<_>>()
        .join(", ");
    let hint = closest(name, all.iter().map(|m| m.name.as_str()))
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default();
    Err(ModelError::Unknown {
        name: name.to_string(),
        hint,
        known,
    })
}

/// The known name closest to `name`: equal but for case, or at most 3
/// single-character edits away (and closer than a third of its length).
pub fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = if k.to_lowercase() == lower {
            0
        } else {
            edit_distance(&lower, &k.to_lowercase())
        };
        if d <= 3 && d * 3 <= k.len() && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// Levenshtein distance, one row at a time (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_model_name_gets_a_suggestion() {
        let e = model_by_name("tofino1-10G").unwrap_err().to_string();
        assert!(e.contains("did you mean `tofino1-10g`?"), "{e}");
        let e = model_by_name("tofino1-100").unwrap_err().to_string();
        assert!(
            e.contains("did you mean `tofino1-10g`?") || e.contains("`tofino1-100g`"),
            "{e}"
        );
        let e = model_by_name("bmv2").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// The GitHub-style anchors of docs/models.md's headings.
    fn doc_anchors() -> Vec<String> {
        include_str!("../../../docs/models.md")
            .lines()
            .filter_map(|l| l.strip_prefix('#'))
            .map(|h| {
                h.trim_start_matches('#')
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_embedded_model_parses_and_cites_its_source() {
        let all = all_models().expect("embedded models parse");
        assert_eq!(all.len(), EMBEDDED.len());
        for m in &all {
            // The spec points inside the repository, at a heading of
            // docs/models.md that exists.
            let anchor = m
                .source
                .spec
                .strip_prefix("docs/models.md#")
                .unwrap_or_else(|| panic!("{}: spec {}", m.name, m.source.spec));
            assert!(
                doc_anchors().iter().any(|a| a == anchor),
                "{}: #{anchor}",
                m.name
            );
            for text in [&m.source.spec, &m.source.location, &m.source.citation] {
                assert!(!text.contains("shared/"), "{}: {text}", m.name);
            }
            assert!(!m.source.citation.is_empty());
            assert!(EMBEDDED
                .iter()
                .any(|(f, _)| *f == format!("{}.json", m.name)));
        }
        let mut names: Vec<_> = all.iter().map(|m| &m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "model names are unique");
    }

    /// [`model_by_name`] reads only the file named for the model.
    #[test]
    fn every_model_is_in_the_file_named_for_it() {
        let every = every_model().expect("embedded models parse");
        assert_eq!(every.len(), FILES);
        for m in &every {
            let found = model_in_its_file(&m.name)
                .expect("its file")
                .expect("parses");
            assert_eq!(found, m);
            assert_eq!(&model_by_name(&m.name).expect("by name"), m);
        }
    }

    #[test]
    fn every_file_in_models_dir_is_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("models dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = EMBEDDED.iter().map(|(f, _)| f.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn kinds_have_their_sections() {
        let all = all_models().expect("embedded models parse");
        let mau = all
            .iter()
            .find(|m| m.name == "tofino1-mau-cycles")
            .expect("mau model");
        assert!(mau.mau().is_some() && mau.linear().is_none());
        assert_eq!(mau.port_gbps, None);
        for m in all
            .iter()
            .filter(|m| m.kind == crate::ModelKind::TofinoIngressLinear)
        {
            assert!(m.linear().is_some() && m.mau().is_none(), "{}", m.name);
        }
    }

    #[test]
    fn a_linear_file_without_its_terms_is_rejected() {
        let text = r#"{"schema": 1, "name": "x", "title": "t", "kind": "tofino_ingress_linear",
            "target": "tofino1", "port_gbps": 10,
            "source": {"citation": "c", "where": "w", "spec": "docs/models.md#x"},
            "predicts": "p"}"#;
        let e = parse_model("x.json", text).unwrap_err().to_string();
        assert!(e.contains("needs base, parser, training"), "{e}");
        let mau = text
            .replace("tofino_ingress_linear", "tofino_mau_cycles")
            .replace("\"port_gbps\": 10,", "");
        let e = parse_model("x.json", &mau).unwrap_err().to_string();
        assert!(e.contains("needs mau_cycles"), "{e}");
    }

    #[test]
    fn existing_linear_files_round_trip_unchanged() {
        for (file, text) in EMBEDDED.iter().filter(|(f, _)| !f.contains("mau")) {
            let spec = parse_model(file, text).expect("parses");
            let original: serde_json::Value = serde_json::from_str(text).expect("json");
            let mut again = serde_json::to_value(&spec).expect("serialises");
            // Defaults the file leaves out (`notes: []`, `nonlinear: null`)
            // are the only additions allowed.
            if let (Some(a), Some(o)) = (again.as_object_mut(), original.as_object()) {
                a.retain(|k, v| {
                    o.contains_key(k)
                        || !(v.is_null() || v.as_array().is_some_and(|x| x.is_empty()))
                });
            }
            assert_eq!(original, again, "{file}");
        }
    }

    /// Two published linear models as the fits of one file of two ports.
    fn two_ports() -> serde_json::Value {
        let port = |f: &str, name: &str| {
            let (_, text) = EMBEDDED.iter().find(|(n, _)| *n == f).expect("model");
            let mut v: serde_json::Value = serde_json::from_str(text).expect("json");
            v["name"] = name.into();
            v
        };
        serde_json::json!({
            "schema": 1, "name": "mine", "title": "t", "kind": "tofino_ingress_linear",
            "target": "tofino1", "source": {"citation": "c", "where": "w", "spec": "docs/models.md#x"},
            "predicts": "p",
            "ports": [port("tofino1-10g.json", "mine"), port("tofino1-100g.json", "mine")]
        })
    }

    #[test]
    fn a_file_of_two_ports_gives_each_port_its_fit() {
        let m = parse_model("m.json", &two_ports().to_string()).expect("loads");
        assert_eq!(m.port_list(), vec![10, 100]);
        let at = |p: Option<u32>| m.for_port(p).expect("port").port_gbps;
        assert_eq!(at(Some(100)), Some(100));
        assert_eq!(at(Some(10)), Some(10));
        assert_eq!(at(None), Some(10), "the first port without one");
        let e = m.for_port(Some(25)).unwrap_err();
        assert!(
            e.contains("no fit for a 25G port (it holds 10G, 100G)"),
            "{e}"
        );
        // A single-port file is itself whatever the port.
        let one = model_by_name("tofino1-100g").expect("model");
        assert_eq!(one.for_port(Some(10)).expect("itself"), one);
    }

    #[test]
    fn a_file_of_ports_is_checked_entry_by_entry() {
        let bad = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
            let mut v = two_ports();
            edit(&mut v);
            let e = parse_model("m.json", &v.to_string())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{want}: {e}");
        };
        bad(&|v| v["port_gbps"] = 10.into(), "no port_gbps, terms");
        bad(
            &|v| v["ports"][1]["port_gbps"] = 10.into(),
            "distinct and ascending",
        );
        bad(
            &|v| v["ports"][0]["name"] = "other".into(),
            "ports[0]: entry other",
        );
        bad(
            &|v| v["ports"][1]["base"] = serde_json::Value::Null,
            "ports[1]: kind tofino_ingress_linear needs base",
        );
        bad(
            &|v| v["ports"][0]["ports"] = two_ports()["ports"].clone(),
            "no nested",
        );
    }

    #[test]
    fn unknown_model_lists_known_names() {
        let e = model_by_name("nope").unwrap_err().to_string();
        assert!(e.contains("tofino1-10g"), "{e}");
        assert!(e.contains("nfp4000") && e.contains("bmv2-coarse"), "{e}");
    }

    #[test]
    fn the_pass_models_are_models_of_their_kinds() {
        let nfp = model_by_name("nfp4000").expect("nfp4000");
        assert_eq!(nfp.kind, crate::ModelKind::NfpRecirc);
        assert!(nfp.nfp().is_some() && nfp.bmv2_coarse().is_none());
        assert_eq!(nfp.check(), Ok(()));
        let b = model_by_name("bmv2-coarse").expect("bmv2-coarse");
        assert_eq!(b.kind, crate::ModelKind::Bmv2Coarse);
        assert!(b.bmv2_coarse().is_some() && b.nfp().is_none());
        assert_eq!(b.check(), Ok(()));
        assert_eq!(b.source.spec, "docs/models.md#bmv2-simple_switch-coarse");
        assert_eq!(model_file("nfp4000"), Some("nfp/nfp4000.json"));
        assert_eq!(model_file("bmv2-coarse"), Some("bmv2/bmv2-coarse.json"));
        assert_eq!(model_file("t4p4s"), Some("t4p4s.json"));
        // A pass model holding another kind's section is refused.
        let mut wrong = b.clone();
        wrong.nfp = nfp.nfp.clone();
        let e = wrong.check().unwrap_err();
        assert!(e.contains("takes only its own section"), "{e}");
        // The section's own rules hold in a model file too.
        let mut bad = nfp.clone();
        if let Some(n) = bad.nfp.as_mut() {
            n.measured.saturated_bps = 2.0 * n.measured.onset_bps;
        }
        let e = bad.check().unwrap_err();
        assert!(e.contains("$.nfp: measured"), "{e}");
        let mut cpu = model_by_name("t4p4s").expect("t4p4s");
        cpu.nfp = nfp.nfp;
        let e = cpu.check().unwrap_err();
        assert!(e.contains("takes no nfp"), "{e}");
    }
}
