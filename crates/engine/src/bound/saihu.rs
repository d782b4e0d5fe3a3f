//! `bound --format saihu`: the network description Saihu reads (EPFL's
//! common interface to xTFA, DiscoDNC and Panco): `network`, `flows` and
//! `servers`, as in its published examples. Each pipeline is a server with
//! its worst class's rate-latency curve; the flow crosses it.

use serde_json::{json, Value};

use super::BoundReport;

/// The Saihu network of `r`: times in microseconds, data in bytes, rates
/// in Mbit/s.
pub fn network(r: &BoundReport) -> Value {
    let servers: Vec<Value> = r
        .pipelines
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "name": server_name(i, p.pipeline.as_deref()),
                "service_curve": {
                    "latencies": [p.worst.service.latency_ns / 1e3],
                    "rates": [p.worst.service.rate_bps / 1e6],
                },
                "capacity": r.line_rate_bps / 1e6,
            })
        })
        .collect();
    let flows: Vec<Value> = r
        .pipelines
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "name": format!("f{i}"),
                "path": [server_name(i, p.pipeline.as_deref())],
                "arrival_curve": {
                    "bursts": [r.arrival.burst_bits / 8.0],
                    "rates": [r.arrival.rate_bps / 1e6],
                },
                "max_packet_length": r.packet_size_bytes,
            })
        })
        .collect();
    json!({
        "network": {
            "name": r.program,
            "packetizer": false,
            "multiplexing": "FIFO",
            "analysis_option": ["IS"],
            "time_unit": "us",
            "data_unit": "B",
            "rate_unit": "Mbps",
        },
        "flows": flows,
        "servers": servers,
    })
}

/// `s<i>` and the pipeline's name, when it has one.
fn server_name(i: usize, pipeline: Option<&str>) -> String {
    match pipeline {
        Some(p) => format!("s{i}-{p}"),
        None => format!("s{i}"),
    }
}
