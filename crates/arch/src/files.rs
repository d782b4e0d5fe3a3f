//! The embedded include files and lookup by name.

/// All bundled include files: (file name as written in `#include`, text),
/// embedded at build time from `crates/arch/p4include/`. Target-specific
/// flavours keep their directory in the name (`"bmv2/psa.p4"`,
/// `"dpdk/pna.p4"`), as programs write them.
pub const FILES: &[(&str, &str)] = &[
    ("core.p4", include_str!("../p4include/core.p4")),
    ("v1model.p4", include_str!("../p4include/v1model.p4")),
    ("psa.p4", include_str!("../p4include/psa.p4")),
    ("pna.p4", include_str!("../p4include/pna.p4")),
    ("bmv2/psa.p4", include_str!("../p4include/bmv2/psa.p4")),
    ("dpdk/psa.p4", include_str!("../p4include/dpdk/psa.p4")),
    ("dpdk/pna.p4", include_str!("../p4include/dpdk/pna.p4")),
    ("ebpf_model.p4", include_str!("../p4include/ebpf_model.p4")),
    ("xdp_model.p4", include_str!("../p4include/xdp_model.p4")),
    ("ubpf_model.p4", include_str!("../p4include/ubpf_model.p4")),
    ("tna.p4", include_str!("../p4include/tna.p4")),
    ("t2na.p4", include_str!("../p4include/t2na.p4")),
    ("tofino.p4", include_str!("../p4include/tofino.p4")),
    ("tofino2.p4", include_str!("../p4include/tofino2.p4")),
    (
        "tofino1_specs.p4",
        include_str!("../p4include/tofino1_specs.p4"),
    ),
    (
        "tofino1_base.p4",
        include_str!("../p4include/tofino1_base.p4"),
    ),
    (
        "tofino1_arch.p4",
        include_str!("../p4include/tofino1_arch.p4"),
    ),
    (
        "tofino2_specs.p4",
        include_str!("../p4include/tofino2_specs.p4"),
    ),
    (
        "tofino2_base.p4",
        include_str!("../p4include/tofino2_base.p4"),
    ),
    (
        "tofino2_arch.p4",
        include_str!("../p4include/tofino2_arch.p4"),
    ),
];

/// Look up a bundled include by the exact name written in
/// `#include <name>` (for example `"tna.p4"` or `"dpdk/psa.p4"`). Paths
/// are not matched by suffix: `"foo/tna.p4"` is not found, and neither is
/// `"psa.p4"` found as `"bmv2/psa.p4"` or the reverse.
pub fn lookup(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_every_bundled_file() {
        for (name, text) in FILES {
            assert_eq!(lookup(name), Some(*text), "{name}");
        }
    }

    #[test]
    fn lookup_is_exact() {
        assert!(lookup("tna.p4").is_some());
        assert_eq!(lookup("TNA.p4"), None);
        assert_eq!(lookup("include/tna.p4"), None);
        assert_eq!(lookup("tna"), None);
        assert_eq!(lookup(""), None);
    }

    #[test]
    fn target_flavours_are_found_only_by_their_full_name() {
        assert!(lookup("bmv2/psa.p4").is_some());
        assert!(lookup("dpdk/pna.p4").is_some());
        assert_ne!(lookup("dpdk/psa.p4"), lookup("psa.p4"));
        assert_ne!(lookup("dpdk/pna.p4"), lookup("pna.p4"));
        assert_eq!(lookup("psa.p4/bmv2"), None);
        assert_eq!(lookup("/bmv2/psa.p4"), None);
        assert_eq!(lookup("bmv2\\psa.p4"), None);
        assert_eq!(lookup("dpdk/tna.p4"), None);
        assert_eq!(lookup("dpdk/v1model.p4"), None);
    }

    #[test]
    fn names_are_unique() {
        for (i, (a, _)) in FILES.iter().enumerate() {
            for (b, _) in FILES.iter().skip(i + 1) {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn expected_files_are_present() {
        for name in [
            "core.p4",
            "v1model.p4",
            "psa.p4",
            "pna.p4",
            "tna.p4",
            "t2na.p4",
            "tofino1_specs.p4",
            "tofino1_base.p4",
            "tofino1_arch.p4",
            "tofino2_specs.p4",
            "tofino2_base.p4",
            "tofino2_arch.p4",
            "bmv2/psa.p4",
            "dpdk/psa.p4",
            "dpdk/pna.p4",
            "ebpf_model.p4",
            "ubpf_model.p4",
            "xdp_model.p4",
        ] {
            assert!(lookup(name).is_some(), "{name} missing");
        }
    }

    /// `base` when `text`'s only line outside comments is `#include <base>`.
    fn only_include(text: &str) -> Option<&str> {
        let code: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("/*") && !l.starts_with('*'))
            .collect();
        match code.as_slice() {
            [line] => line.strip_prefix("#include <")?.strip_suffix('>'),
            _ => None,
        }
    }

    /// Programs test the guards of the compilers' own include files (p4c's
    /// `p4include/`, bf-p4c's Tofino headers): ours must be named the same.
    #[test]
    fn guards_carry_the_compilers_names() {
        for (name, guard) in [
            ("core.p4", "_CORE_P4_"),
            ("v1model.p4", "_V1_MODEL_P4_"),
            ("psa.p4", "__PSA_P4__"),
            ("bmv2/psa.p4", "__PSA_P4__"),
            ("dpdk/psa.p4", "__PSA_P4__"),
            ("pna.p4", "__PNA_P4__"),
            ("dpdk/pna.p4", "__PNA_P4__"),
            ("ebpf_model.p4", "_EBPF_MODEL_P4_"),
            ("ubpf_model.p4", "_UBPF_MODEL_P4_"),
            ("xdp_model.p4", "_XDP_MODEL_P4"),
            ("tna.p4", "_TOFINO1_NATIVE_ARCHITECTURE_"),
            ("t2na.p4", "_TOFINO2_NATIVE_ARCHITECTURE_"),
            ("tofino.p4", "_TOFINO_P4_"),
            ("tofino2.p4", "_TOFINO2_P4_"),
        ] {
            let mut text = lookup(name).unwrap_or_default();
            // A flavour that is only `#include <base>` is guarded by the base.
            if let Some(base) = only_include(text) {
                text = lookup(base).unwrap_or_default();
            }
            let ifndef = format!("#ifndef {guard}\n#define {guard}\n");
            assert!(text.contains(&ifndef), "{name} is not guarded by {guard}");
        }
        // the older bf-p4c names of the Tofino entry points are defined too
        for (name, old) in [
            ("tna.p4", "_TOFINO_NATIVE_ARCHITECTURE_P4_"),
            ("t2na.p4", "_TOFINO2_NATIVE_ARCHITECTURE_P4_"),
        ] {
            let text = lookup(name).unwrap_or_default();
            assert!(text.contains(&format!("#define {old}\n")), "{name}: {old}");
        }
        for (name, text) in FILES {
            assert!(
                !text.contains("_P4COST_") || text.contains("_P4COST_QID"),
                "{name}"
            );
        }
    }
}
