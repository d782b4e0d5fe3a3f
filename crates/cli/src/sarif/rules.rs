//! The rules a SARIF log can name: each budget `check` holds a program to,
//! and each warning code a report carries, with the descriptions and help
//! that code-scanning UIs show (GitHub requires `fullDescription` and
//! `help` on every rule). docs/sarif.md lists the same rules; a test keeps
//! the two in step.

/// What a code-scanning UI shows about one rule. `help` is Markdown; its
/// plain-text form drops the backquotes.
pub struct RuleDoc {
    /// The stable id (`max_latency`, a warning code).
    pub id: &'static str,
    /// One sentence.
    pub short: &'static str,
    /// What the rule checks, in full.
    pub full: &'static str,
    /// What to do about a result (Markdown).
    pub help: &'static str,
}

const fn rule(
    id: &'static str,
    short: &'static str,
    full: &'static str,
    help: &'static str,
) -> RuleDoc {
    RuleDoc {
        id,
        short,
        full,
        help,
    }
}

const SHORTEN: &str = "The result points at the source site that adds most to the figure; its related locations are the next largest terms and the line that set the budget. `p4cost explain FILE` shows the whole arithmetic of the slowest packet class. Shorten what the largest terms name, or raise the budget in `p4cost.toml` (or `--max-latency`) if the figure is acceptable.";

/// The budgets of `check` (level `error`, but `chain_priority_threshold`
/// a `warning`).
pub const BUDGETS: &[RuleDoc] = &[
    rule(
        "max_latency",
        "The slowest packet class of a pipeline exceeds its latency budget",
        "The predicted latency, in ns, of the slowest packet class of a pipeline (for a MAU-cycle model, the MAU latency every packet sees) is above the `max-latency` budget set in p4cost.toml or by `--max-latency`.",
        SHORTEN,
    ),
    rule(
        "class_latency",
        "The packet class of a header sequence exceeds its latency budget",
        "The predicted latency, in ns, of the packet class that a `[[program.budget.class]]` budget of p4cost.toml selects by its header sequence is above that budget.",
        SHORTEN,
    ),
    rule(
        "ingress_cycles",
        "Ingress MAU cycles exceed their budget",
        "The ingress MAU latency in clock cycles (the compiler's stage placement, or the placement estimated from the source) is above the `ingress-cycles` budget of p4cost.toml.",
        "`p4cost stages FILE` lists each stage, what it holds and why it depends on the one before; a shorter chain of match dependencies takes fewer stages. Raise `ingress-cycles` if the figure is acceptable.",
    ),
    rule(
        "egress_cycles",
        "Egress MAU cycles exceed their budget",
        "The egress MAU latency in clock cycles (the compiler's stage placement, or the placement estimated from the source) is above the `egress-cycles` budget of p4cost.toml.",
        "`p4cost stages FILE` lists each stage, what it holds and why it depends on the one before; a shorter chain of match dependencies takes fewer stages. Raise `egress-cycles` if the figure is acceptable.",
    ),
    rule(
        "ghost_cycles",
        "Ghost MAU cycles exceed their budget",
        "The ghost-thread MAU latency in clock cycles (Tofino 2) is above its budget.",
        "`p4cost stages FILE` lists each stage of the ghost thread, what it holds and why it depends on the one before.",
    ),
    rule(
        "table_count",
        "The pipeline applies more match tables than its budget",
        "The number of match tables a pipeline applies is above the `table-count` budget of p4cost.toml.",
        "Merge or remove tables, or raise `table-count`. `p4cost deps FILE` shows the tables of each control and how they depend on each other.",
    ),
    rule(
        "chip_stages",
        "The program does not fit into its chip's MAU stages",
        "Under a stage placement estimate (`tofino1-mau-estimate`, `tofino2-mau-estimate`), the program's control needs more MAU stages than the chip has: the compiler would reject it. When its dependencies alone need more stages, the chain that overflows is in the message, first table to last; when they fit but the stages filled up, the message names the resource (SRAM or TCAM blocks, map RAMs, logical tables, meter/stateful ALUs), the stages it fills and the tables that take it.",
        "A chain: each table waits for the one before it (a match or action dependency); break it: merge tables, move work to the egress control, or drop a dependency (`p4cost deps FILE` shows why each exists). Full stages: shrink the tables named (`size`, action data wider than 32 bits) or merge small tables (`p4cost resources FILE` lists each table's share). The estimate can be pessimistic by a stage; compile the program for the compiler's verdict.",
    ),
    rule(
        "max_stages",
        "The estimated placement uses more MAU stages than its budget",
        "Under the stage placement estimate, the program uses more MAU stages (the last used stage + 1, of any gress) than the `max-stages` budget of p4cost.toml.",
        "The result names the dependency chain that reaches the last used stage. `p4cost stages FILE` shows each stage and why it depends on the one before; break the chain (merge tables, drop a dependency), or raise `max-stages`.",
    ),
    rule(
        "max_sram_percent",
        "The estimated placement uses more of the pipe's SRAM than its budget",
        "Under the stage placement estimate, the program's tables (match entries, action data, counters, meters, registers) use more percent of the pipe's SRAM blocks than the `max-sram-percent` budget of p4cost.toml.",
        "The result names the tables that take most, each with its percent. `p4cost resources FILE` lists every table's blocks; shrink the largest (`size`, action data wider than 32 bits), or raise `max-sram-percent`.",
    ),
    rule(
        "max_tcam_percent",
        "The estimated placement uses more of the pipe's TCAM than its budget",
        "Under the stage placement estimate, the program's ternary, LPM and range tables use more percent of the pipe's TCAM blocks than the `max-tcam-percent` budget of p4cost.toml.",
        "The result names the tables that take most, each with its percent. `p4cost resources FILE` lists every table's blocks; shrink the largest, match fewer key bits in TCAM, or raise `max-tcam-percent`.",
    ),
    rule(
        "chip_memory",
        "The program's memory exceeds what its pipe's stages hold",
        "Under the stage placement estimate, the program's tables need more SRAM or TCAM blocks than all the pipe's stages hold together: the compiler would reject it wherever it placed them. The tables are in the message, largest first, with their blocks.",
        "Shrink the largest tables (`size`, action data, counters), move exact tables out of TCAM, or split the program over pipes. `p4cost resources FILE` lists every table's blocks; compile the program for the compiler's verdict.",
    ),
    rule(
        "chain_drop_threshold",
        "A packet crosses a chain segment slower than its drop threshold (DL)",
        "In a `[[chain]]` of p4cost.toml, the predicted latency of a packet over one segment (a program, or a fixed delay) is above the segment's drop threshold `DL`: a time-critical packet that late is useless.",
        "The result is at the segment's line in p4cost.toml; its message names the packet's headers and the margin. Make the segment's program faster for those headers (`p4cost explain FILE --path H1,H2`), or raise its `drop-ns`.",
    ),
    rule(
        "chain_priority_threshold",
        "A packet crosses a chain segment slower than its priority threshold (PL): it is prioritised",
        "In a `[[chain]]` of p4cost.toml, the predicted latency of a packet over one segment is above the segment's priority threshold `PL` but within its drop threshold `DL`: the packet is forwarded with priority.",
        "Nothing is lost yet: the packet is prioritised. To keep it in the ordinary queue, make the segment's program faster for its headers (`p4cost explain FILE --path H1,H2`), or raise the segment's `priority-ns`.",
    ),
    rule(
        "chain_latency",
        "A packet crosses a chain slower than its end-to-end budget",
        "The predicted end-to-end latency of a packet over all segments of a `[[chain]]` of p4cost.toml is above the chain's `max-latency`.",
        "The message names the packet's headers and the total. `p4cost check --format json` lists each segment's share (`chains[].packets[].segments[]`); shorten the largest, or raise the chain's `max-latency`.",
    ),
];

const RANGE: &str = "The figure is an extrapolation: the model was not measured on such programs, so its error may be larger than the one its validation reports. Fit a model on your own hardware that covers this range (`p4cost gen`, `p4cost fit`, then `--model-file`), or treat the figure as a rough estimate.";

/// The warning codes of `predict`'s reports (a `warning` when the model
/// extrapolates, else a `note`).
pub const NOTES: &[RuleDoc] = &[
    rule("packet_size_out_of_range", "The packet size is outside the model's training range", "The `--packet-size` (or p4cost.toml `packet-size`) is outside the packet sizes the model was measured on.", RANGE),
    rule("header_size_out_of_range", "A path parses more header bytes than the model was trained on", "The header bytes a parse path extracts are outside the range the model was measured on.", RANGE),
    rule("too_many_states", "A path has more parse states than the model was trained on", "The number of parse states on a path is above the range the model was measured on.", RANGE),
    rule("nonlinear_region", "A path lies where the parser latency is not linear", "The header bytes of a path lie in the region where the measured parser latency is not linear in them; the model's line is less accurate there.", RANGE),
    rule("packet_smaller_than_headers", "The packet is smaller than the headers a path parses", "The packet size is smaller than the header bytes a parse path extracts: such a packet cannot take that path.", "Give a packet size at least as large as the headers (`--packet-size`), or read the path's figure as a bound."),
    rule("table_count_out_of_range", "The program applies more or fewer tables than the model was trained on", "The number of tables the control applies is outside the range the model was measured on.", RANGE),
    rule("key_width_out_of_range", "A table's key is wider or narrower than the model was trained on", "The width of a table's match key is outside the key widths the model was measured on.", RANGE),
    rule("key_width_unknown", "The width of a table's key is unknown", "The width of a key field could not be computed (a type the front end does not resolve): the model's 16/32-bit key class is used.", "Give the key field a type of known width, or read the table's term as an estimate."),
    rule("too_many_keys", "A table has more keys than the model was trained on", "The number of match keys of a table is above the range the model was measured on.", RANGE),
    rule("match_kind_not_modelled", "A table matches with a kind the model was not trained on", "A table matches with a match kind (range, optional, a target's own) the model was not measured on: the coefficients of a measured kind are used.", RANGE),
    rule("keyless_table", "A table has no match key", "A table without a match key was not in the model's training set: the 8-bit key class is used.", RANGE),
    rule("actions_outside_training", "A table's actions do more than the training set's", "A table's actions modify fields, compute or use registers, where the model was trained on actions that only set the egress port.", RANGE),
    rule("entries_out_of_range", "A table's size is outside the model's training range", "The number of entries of a table (its `size`, or `entries` in p4cost.toml) is outside the range the model was measured on.", RANGE),
    rule("key_layout_not_measured", "A table's key is not laid out as the CPU model measured", "The t4p4s equations were measured with exact and ternary keys of 4 fields of 4 B and lpm keys of one 4 B field (IPv4, DIR-24-8); the layout changes the hashing cost (the paper: 12 cycles per store-forwarding failure of the 4 x 4 B layout).", RANGE),
    rule("cores_out_of_range", "The core count is outside the CPU model's measurements", "The `--cores` is outside the core counts the CPU model was measured on (1-8): its core scaling is extrapolated.", RANGE),
    rule("l3_shared_not_modelled", "Exact tables fit the L3 alone but not together", "Each exact table is priced against the whole L3 (the paper measured one table at a time); together the tables exceed it, so some of their lookups likely miss the cache and cost more than priced.", "Read the cycles as a lower estimate, or give a smaller `--l3-mb` share per table to see the DRAM regime."),
    rule("passes_not_measured", "A class takes more pipeline passes than the model's paper measured", "A packet class recirculates or resubmits more often than the paper measured (nfp4000: one recirculation; bmv2-coarse: none): the model divides the same capacity over more passes, an extrapolation.", "Read the class's figures as an estimate, or measure the target with as many passes."),
    rule("packet_size_not_measured", "The packet size is outside the sizes the coarse model measured", "The coarse BMv2 model measured 256 B and 1500 B packets only: outside them the nearest size's packet rate is kept, an extrapolation.", "Give a `--packet-size` between the measured sizes, or read the rate as an estimate."),
    rule("latency_not_modelled", "The model gives throughput, not latency", "The model (nfp4000) gives each class's throughput, not its latency: every class's `latency_ns` is 0, and the report's `figure` names the field that is the class's value (`recirc.throughput.loss_free_bps`).", "Read each class's `recirc.throughput`, or pick a latency model for a latency."),
    rule("register_across_gresses", "A register is used in both ingress and egress", "One register is read or written in the ingress control and in the egress control. BMv2 shares it; on Tofino ingress and egress have separate registers, so a value egress writes (a queue delay) cannot be read in ingress.", "Carry the value to ingress another way: recirculate or mirror the packet with it, or read a queue-depth feed (Tofino 2 ghost threads); or keep the register in one gress."),
    rule("register_too_wide", "A register's cells are wider than 32 bits", "A register array's cell is wider than the 32 bits a Tofino stateful ALU updates, so the program does not port to Tofino as written.", "Split the value over two registers of 32 bits (or a pair), or keep a narrower value (a timestamp in microseconds, a counter that wraps)."),
    rule("timestamp_units_mixed", "A comparison mixes microsecond and nanosecond timestamps", "An `if` compares (directly, or through `+`, `-`, bitwise operators, slices or casts) a timestamp BMv2's v1model counts in microseconds (`ingress_global_timestamp`, `egress_global_timestamp`, `enq_timestamp`) with one TNA counts in nanoseconds (`ingress_mac_tstamp`, `global_tstamp`, `enq_tstamp`); `deq_timedelta` has the program's architecture's unit. The two differ by a factor of 1000, so the comparison is off by that much.", "Convert one side before comparing (multiply the microseconds by 1000, or shift the nanoseconds right by 10 for about a microsecond), or keep one target's timestamps throughout."),
    rule("register_window_too_small", "A ring array of per-packet slots is smaller than rate x window", "A register written at an index read from another register that the same control advances (a ring of per-packet slots, as the service-chaining paper keeps each packet's arrival time until it returns from its VNFs) has fewer cells than the configured packet rate times the time a slot must live (`--rate` and `--window`, or `rate` and `window` in p4cost.toml; without both the rule is silent). A slot is then overwritten before the packet that needs it comes back. With several flows sharing the array the check is on the whole array, so a pass does not prove each flow's part large enough.", "Give the register at least rate x window cells (the paper's example: 2.5 Mpps for 20 ms is 50,000 slots), shorten the window the data plane must remember, or check the `--rate` and `--window` given."),
    rule("int_bytes_exceed_mtu", "Headers a pipeline adds per hop take a packet over the MTU", "The pipeline's ingress or egress control makes valid headers that no parser of the program extracts and that the deparser emits (in-band telemetry: a shim, an INT header, per-hop metadata), so each pass grows the packet by their bytes. A packet of `--packet-size` bytes after `--hops` passes (default 1, the one hop of the service-chaining paper's capture) is larger than `--mtu` (default 1500 B). Every packet is charged all the headers the pipeline adds.", "Leave headroom: send smaller packets, carry fewer metadata words per hop, limit the hops that add metadata (INT's remaining-hop count), or raise the MTU of the links the telemetry crosses. Check `--packet-size`, `--hops` and `--mtu`."),
    rule("entries_unknown", "A table declares no size", "A table declares no `size`: its entries count 0 in the model's control term.", "Give the table a `size`, or its expected entries in p4cost.toml (`entries = { TABLE = N }`)."),
    rule("stage_out_of_range", "Stage records lie outside the chip's stages", "The compiler's context names stages beyond the chip's last stage; the MAU-cycle model sums what it can.", "Check that the context was compiled for the chip the model is for."),
    rule("clock_out_of_range", "The clock is outside the chip's SKUs", "The `--clock-ghz` is outside the clocks of the chip's SKUs: the cycles are converted to ns at a clock no such chip runs at.", "Give the clock of your chip (`--clock-ghz`)."),
    rule("estimated_placement", "The stage placement is estimated from the source", "The MAU figures rest on a stage placement p4cost estimated from the program, not on the compiler's: they can differ from the compiled program's by a few stages.", "For the compiler's figures, compile the program and give its context.json (`--context pipe/context.json`)."),
    rule("fitted_model_extrapolates", "A fitted model gives a term below zero or a figure outside its training", "A model fitted on your measurements (`p4cost fit`) gives a term below zero here (a table, a parse state, the base or a part making the pipeline faster), or a figure outside the latencies it was trained on: the fit is extrapolating.", "Measure programs like this one and fit again (`p4cost gen`, `p4cost fit`), or try another `--kind`; read the figure as a rough estimate meanwhile."),
    rule("target_mismatch", "The model is for another target than the program's", "The model was measured on another target (a Tofino model for a v1model or PSA program, a t4p4s, NFP or BMv2 model for a TNA program: the architectures its file lists): the figure is what the program's parse graph and tables would cost on the model's target.", "Pick a model of the program's target (`p4cost models`), or fit one on your hardware (`p4cost fit`)."),
    rule("target_not_modelled", "The model does not model this target", "The program's target is not one the model covers; its figure is not a prediction for that target.", "Pick a model of the program's target (`p4cost models`)."),
    rule("parse_graph", "A remark about the parse graph", "The parse graph has something the analysis handles in a stated way (a loop unrolled to a bound, a state never reached, ...).", "Read the message; it names the state."),
    rule("arch_differs", "The source and the context are of different architectures", "The P4 source is written for another architecture than the one the context.json was compiled for.", "Give the context compiled from this source."),
    rule("table_names_differ", "The source's tables and the context's disagree", "The ingress table names of the P4 source and of the context.json disagree: the context may not have been compiled from this source.", "Give the context compiled from this source (the message lists the names found in only one of them)."),
    rule("model_for_input", "The input is predicted with another model than the default", "The input has no parse graph, only the compiler's stage placement (a context.json alone): it is predicted with the MAU-cycle model, the latency every packet sees.", "Give the P4 source with `--context` for a figure per parse path and packet class."),
    rule("model_not_linear", "The model is not a linear model", "The model named is not of the linear kind the prediction needs: nothing was predicted with it.", "Pick a linear model (`p4cost models`)."),
    rule("packet_size_ignored", "The model does not depend on the packet size", "The model's figure does not depend on the packet size: `--packet-size` has no effect on it.", "Drop `--packet-size`, or pick a model that uses it."),
    rule("no_ingress_control", "No ingress control was found", "The program has no ingress control p4cost recognises: the control term of the prediction is zero.", "Check the program's package instantiation (`main`)."),
    rule("classes_not_computed", "Packet classes were not computed", "The packet classes of the program were not computed (a limit was reached); the rest of the report stands.", "Raise the limit the message names, or restrict the analysis (`--class`, `--path`)."),
    rule("classes_not_listed", "Packet classes were listed for some paths only", "The packet classes were listed for part of the listed paths (a limit was reached).", "Raise the limit the message names, or list fewer paths (`--max-paths`)."),
    rule("listing_capped", "The listing of paths was cut", "The parse states of the listed paths reached `--max-listed-states`: fewer paths are listed than exist.", "Raise `--max-listed-states`, or ask for fewer paths (`--max-paths`, `--path`)."),
    rule("compiler_tables_skipped", "Compiler-internal tables are left out", "The input (compiler output) holds compiler-internal tables (a `$` in the name, which no P4 program can declare); the model's tables are the program's match tables, so these are left out.", "Nothing to do: the figure is the one the P4 source gives."),
    rule("action_call_tables_skipped", "Compiler-made action-call tables are left out", "The compilers turn each direct action call of an apply block into a keyless one-action table (`tbl_*`); the source has no such table and the model's tables are match tables, so these are left out.", "Nothing to do: the program costs the same from its source and from compiler output."),
    rule("front_end", "A remark of the P4 front end", "The P4 front end met something it reads in a stated way (a construct it skips or approximates).", "Read the message; it names the site."),
    rule("reader_note", "A remark of the input's reader", "The reader of the input (BMv2 JSON, context.json) met something it handles in a stated way.", "Read the message."),
];

/// The rule of `id`, if it is one of ours.
pub fn find(id: &str) -> Option<&'static RuleDoc> {
    BUDGETS.iter().chain(NOTES).find(|r| r.id == id)
}

/// A rule's friendly name: its id in PascalCase (`max_latency` ->
/// `MaxLatency`), as the SARIF validators ask, never equal to the id.
pub fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Markdown as plain text: without backquotes.
pub fn plain(markdown: &str) -> String {
    markdown.replace('`', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_pascal_case_and_ids_unique() {
        assert_eq!(pascal("max_latency"), "MaxLatency");
        assert_eq!(pascal("chain_drop_threshold"), "ChainDropThreshold");
        let mut ids: Vec<&str> = BUDGETS.iter().chain(NOTES).map(|r| r.id).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "an id listed twice");
        for r in BUDGETS.iter().chain(NOTES) {
            assert_ne!(pascal(r.id), r.id);
            assert!(!r.full.is_empty() && !r.help.is_empty(), "{}", r.id);
        }
    }

    #[test]
    fn docs_sarif_md_describes_every_rule_and_no_other() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sarif.md");
        let doc = std::fs::read_to_string(path).expect("docs/sarif.md");
        let headings: Vec<&str> = doc.lines().filter_map(|l| l.strip_prefix("### ")).collect();
        let ids: Vec<&str> = BUDGETS.iter().chain(NOTES).map(|r| r.id).collect();
        assert_eq!(headings, ids);
        for r in BUDGETS.iter().chain(NOTES) {
            let section = doc
                .split(&format!("### {}\n", r.id))
                .nth(1)
                .and_then(|rest| rest.split("\n### ").next())
                .unwrap_or_default();
            assert!(section.contains(r.full), "{}: full description", r.id);
            assert!(section.contains(r.help), "{}: help", r.id);
            assert!(section.contains(&format!("`{}`", pascal(r.id))), "{}", r.id);
        }
    }

    #[test]
    fn every_warning_code_has_a_rule_and_every_rule_a_code() {
        let mut rules: Vec<&str> = NOTES.iter().map(|r| r.id).collect();
        rules.sort_unstable();
        let mut codes = p4cost_engine::warnings::KNOWN_CODES.to_vec();
        codes.sort_unstable();
        assert_eq!(rules, codes);
    }

    #[test]
    fn every_extrapolation_code_has_a_rule() {
        for code in p4cost_engine::report::EXTRAPOLATION_CODES {
            assert!(find(code).is_some(), "{code}");
        }
    }
}
