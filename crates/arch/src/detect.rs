//! Which architecture an included file name stands for.

/// Which architecture a file name stands for, for architecture detection:
/// `"tna.p4"` gives `Some("tna")`, `"t2na.p4"` gives `Some("t2na")`,
/// `"v1model.p4"` gives `Some("v1model")`, `"psa.p4"` gives `Some("psa")`
/// and `"pna.p4"` gives `Some("pna")`. The Tofino helper files map to the
/// architecture they belong to (`tofino1_*.p4` and `tofino.p4` to `"tna"`,
/// `tofino2_*.p4` and `tofino2.p4` to `"t2na"`). Target flavours map to
/// the portable architecture they implement (`"bmv2/psa.p4"` and
/// `"dpdk/psa.p4"` to `"psa"`, `"dpdk/pna.p4"` to `"pna"`). The eBPF
/// family gives `"ebpf"` (`ebpf_model.p4`), `"ubpf"` (`ubpf_model.p4`) and
/// `"xdp"` (`xdp_model.p4`, although it also pulls in `ebpf_model.p4`).
/// `core.p4` and unknown names give `None`. Names are matched exactly, as
/// written in `#include`.
pub fn arch_of(name: &str) -> Option<&'static str> {
    match name {
        "tna.p4" | "tofino.p4" | "tofino1_specs.p4" | "tofino1_base.p4" | "tofino1_arch.p4" => {
            Some("tna")
        }
        "t2na.p4" | "tofino2.p4" | "tofino2_specs.p4" | "tofino2_base.p4" | "tofino2_arch.p4" => {
            Some("t2na")
        }
        "v1model.p4" => Some("v1model"),
        "psa.p4" | "bmv2/psa.p4" | "dpdk/psa.p4" => Some("psa"),
        "pna.p4" | "dpdk/pna.p4" => Some("pna"),
        "ebpf_model.p4" => Some("ebpf"),
        "ubpf_model.p4" => Some("ubpf"),
        "xdp_model.p4" => Some("xdp"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FILES;

    #[test]
    fn entry_points_map_to_their_architecture() {
        assert_eq!(arch_of("tna.p4"), Some("tna"));
        assert_eq!(arch_of("t2na.p4"), Some("t2na"));
        assert_eq!(arch_of("v1model.p4"), Some("v1model"));
        assert_eq!(arch_of("psa.p4"), Some("psa"));
        assert_eq!(arch_of("pna.p4"), Some("pna"));
    }

    #[test]
    fn helpers_map_to_their_chip() {
        assert_eq!(arch_of("tofino1_specs.p4"), Some("tna"));
        assert_eq!(arch_of("tofino1_arch.p4"), Some("tna"));
        assert_eq!(arch_of("tofino2_arch.p4"), Some("t2na"));
        assert_eq!(arch_of("tofino2.p4"), Some("t2na"));
    }

    #[test]
    fn target_flavours_map_to_the_portable_architecture() {
        assert_eq!(arch_of("bmv2/psa.p4"), Some("psa"));
        assert_eq!(arch_of("dpdk/psa.p4"), Some("psa"));
        assert_eq!(arch_of("dpdk/pna.p4"), Some("pna"));
        assert_eq!(arch_of("ebpf_model.p4"), Some("ebpf"));
        assert_eq!(arch_of("ubpf_model.p4"), Some("ubpf"));
        assert_eq!(arch_of("xdp_model.p4"), Some("xdp"));
    }

    #[test]
    fn core_and_unknown_names_have_no_architecture() {
        assert_eq!(arch_of("core.p4"), None);
        assert_eq!(arch_of("my_headers.p4"), None);
        assert_eq!(arch_of("x/tna.p4"), None);
        assert_eq!(arch_of("dpdk/v1model.p4"), None);
        assert_eq!(arch_of("bmv2/pna.p4.bak"), None);
        assert_eq!(arch_of("ebpf_model"), None);
    }

    #[test]
    fn every_bundled_file_but_core_has_an_architecture() {
        for (name, _) in FILES {
            assert_eq!(arch_of(name).is_none(), *name == "core.p4", "{name}");
        }
    }
}
