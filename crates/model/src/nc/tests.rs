use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn embedded_devices_parse_and_cite_the_paper() {
    let all = all_devices().expect("devices parse");
    assert_eq!(all.len(), DEVICES.len());
    for d in &all {
        assert_eq!(format!("{}.json", d.name), {
            let (f, _) = DEVICES.iter().find(|(_, t)| t.contains(&d.name)).unwrap();
            f.to_string()
        });
        assert!(d.source.citation.contains("Network Calculus"), "{}", d.name);
        assert_eq!(
            d.source.spec,
            "docs/models.md#network-calculus-building-blocks"
        );
    }
    let e = device_by_name("zodiac").unwrap_err();
    assert!(e.contains("--device") && e.contains("zodiac-fx"), "{e}");
}

/// The worked example (paper figures: f0 = 51.058 us worst case, five-tuple
/// about 3 us, set-tp-src about 9 us, R = 50 Mbit/s; b = 10 x 64 B,
/// r = 10 Mbit/s): 165.458 us and 718.8 B.
#[test]
fn zodiac_five_tuple_set_tp_src_worked_example() {
    let d = device_by_name("zodiac-fx").unwrap();
    let l = d.level(Level::Max);
    let t = l.baseline_ns
        + l.match_delta(MatchGroup::FiveTuple)
        + l.action_delta(ActionGroup::L3L4Rewrite);
    assert!(close(t, 63_058.0, 1e-9), "{t}");
    let flow = TokenBucket {
        burst_bits: 5120.0,
        rate_bps: 10e6,
    };
    let b = bounds(
        flow,
        RateLatency {
            rate_bps: d.rate_bps,
            latency_ns: t,
        },
    )
    .unwrap();
    assert!(close(b.delay_bound_ns, 165_458.0, 1e-6), "{b:?}");
    assert!(close(b.backlog_bound_bytes, 718.8, 0.05), "{b:?}");
}

/// NetFPGA SUME: T <= 1.867 + 0.05 us, R = 6.6 Gbit/s, b = 10 x 68 B,
/// r = 1 Gbit/s: 2.741 us (and 7357 bit, 919.6 B).
#[test]
fn netfpga_sume_worked_example() {
    let d = device_by_name("netfpga-sume").unwrap();
    let l = d.level(Level::Max);
    let t = l.baseline_ns
        + l.match_delta(MatchGroup::FiveTuple)
        + l.action_delta(ActionGroup::L3L4Rewrite);
    assert!(close(t, 1917.0, 1e-9), "{t}");
    let b = bounds(
        TokenBucket {
            burst_bits: 5440.0,
            rate_bps: 1e9,
        },
        RateLatency {
            rate_bps: d.rate_bps,
            latency_ns: t,
        },
    )
    .unwrap();
    assert!(close(b.delay_bound_ns, 2741.0, 0.5), "{b:?}");
    assert!(close(b.backlog_bound_bytes, 919.6, 0.05), "{b:?}");
}

#[test]
fn a_flow_faster_than_the_server_has_no_bound() {
    let e = bounds(
        TokenBucket {
            burst_bits: 1.0,
            rate_bps: 60e6,
        },
        RateLatency {
            rate_bps: 50e6,
            latency_ns: 1.0,
        },
    )
    .unwrap_err();
    assert_eq!((e.arrival_bps, e.service_bps), (60e6, 50e6));
}

#[test]
fn concatenation_takes_the_least_rate_and_sums_latencies() {
    let a = RateLatency {
        rate_bps: 50e6,
        latency_ns: 10.0,
    };
    let b = RateLatency {
        rate_bps: 6.6e9,
        latency_ns: 2.0,
    };
    assert_eq!(
        a.then(b),
        RateLatency {
            rate_bps: 50e6,
            latency_ns: 12.0
        }
    );
}

#[test]
fn tables_and_headers_fall_into_the_papers_groups() {
    let d = device_by_name("zodiac-fx").unwrap();
    assert_eq!(
        d.match_group(&["standard_metadata.ingress_port"]),
        MatchGroup::Baseline
    );
    assert_eq!(d.match_group(&["hdr.tcp.dstPort"]), MatchGroup::SingleField);
    let five = ["a", "b", "c", "d", "e"];
    assert_eq!(d.match_group(&five), MatchGroup::FiveTuple);
    let nine = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    assert_eq!(d.match_group(&nine), MatchGroup::ManyFields);
    assert_eq!(
        d.header_group("hdr.vlan_tag", "vlan_tag_t"),
        Some(ActionGroup::Vlan)
    );
    assert_eq!(
        d.header_group("hdr.ethernet", "ethernet_t"),
        Some(ActionGroup::L2Rewrite)
    );
    assert_eq!(
        d.header_group("hdr.ipv4", "ipv4_t"),
        Some(ActionGroup::L3L4Rewrite)
    );
    assert_eq!(
        d.header_group("hdr.tcp", "tcp_t"),
        Some(ActionGroup::L3L4Rewrite)
    );
    assert_eq!(d.header_group("hdr.vxlan", "vxlan_t"), None);
}

#[test]
fn a_bad_device_file_is_refused() {
    let (_, text) = DEVICES[0];
    let bad = text.replace("\"rate_bps\": 50000000", "\"rate_bps\": 0");
    let e = parse_device("x.json", &bad).unwrap_err().to_string();
    assert!(e.contains("rate_bps"), "{e}");
}
