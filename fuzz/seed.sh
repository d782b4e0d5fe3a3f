#!/usr/bin/env bash
# Copies seed inputs for every fuzz target into fuzz/corpus/<target>/ from
# the repository's own samples and fixtures (nothing is committed: the
# corpora are build products, see .gitignore). Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$root/fuzz/corpus"
targets=(pp front bmv2 context analysis diff config csv model lsp)
for t in "${targets[@]}"; do mkdir -p "$corpus/$t"; done
mkdir -p "$root/tests/fixtures/regressions"
# Source targets: our P4 samples and every regression input kept so far.
mapfile -t p4 < <(find "$root/p4-samples" "$root/tests/fixtures" -name '*.p4' | sort)
for f in "${p4[@]}"; do
    cp "$f" "$corpus/pp/"
    cp "$f" "$corpus/front/"
done
# BMv2: the fixtures under 300 KB (bigger ones slow every mutation down).
mapfile -t bmv2 < <(find "$root/tests/fixtures/bmv2" "$root/tests/fixtures/regressions" \
    -name '*.json' -size -300k -exec grep -l '"header_types"' {} + 2>/dev/null | sort)
cp -t "$corpus/bmv2/" "${bmv2[@]}"
# context.json: the smallest real one, plus every context regression input.
cp "$root/tests/fixtures/tofino/open-p4studio__tna_action_selector__context.json" "$corpus/context/"
find "$root/tests/fixtures/regressions" -name '*context*' -exec cp -t "$corpus/context/" {} + 2>/dev/null || true

# analysis: a flag byte (fuzz_targets/shared/mod.rs: --top, --sort,
# --max-classes, --class, model) before each P4 sample and small BMv2 JSON.
flags=(00 01 03 05 09 0d 21 41 c1 2d)
i=0
for f in "${p4[@]}" "${bmv2[@]:0:8}"; do
    b=${flags[$((i % ${#flags[@]}))]}
    { printf "\\x$b"; cat "$f"; } > "$corpus/analysis/$(basename "$f").$b"
    i=$((i + 1))
done
# diff: a flag byte, OLD, a NUL, NEW: each sample against the next one of
# its directory, and against itself.
prev=""
for f in "${p4[@]}"; do
    if [ -n "$prev" ] && [ "$(dirname "$prev")" = "$(dirname "$f")" ]; then
        { printf '\x00'; cat "$prev"; printf '\x00'; cat "$f"; } \
            > "$corpus/diff/$(basename "$prev")-$(basename "$f")"
    fi
    { printf '\x20'; cat "$f"; } > "$corpus/diff/$(basename "$f")"
    prev="$f"
done
# config: the example project's p4cost.toml.
cp "$root/p4-samples/project/p4cost.toml" "$corpus/config/"
# csv: measurements as `gen` writes them and `fit` reads them.
cat > "$corpus/csv/manifest.csv" <<'CSV'
program,sweep,port_gbps,packet_size,n_states,header_bytes,n_tables,state_bytes,tables,entries_file,latency_ns
programs/parser_s1_h2.p4,parser,100,64,1,14,0,14,,,152.5
programs/parser_s2_h2.p4,parser,100,512,2,34,1,14+20,exact:32+16:1000;lpm:32:500,entries/t.txt,201.25
programs/parser_s3_h2.p4,parser,10,1500,3,42,0,14+20+8,,,
CSV
printf 'program,port_gbps,packet_size,state_bytes,tables,latency_ns\r\np.p4,10,100,2+2,,150\r\n' \
    > "$corpus/csv/crlf.csv"
# model: a --port byte before each model file.
for f in "$root"/models/*.json; do
    { printf '\x01'; cat "$f"; } > "$corpus/model/$(basename "$f")"
done
# lsp: a client session (initialize, didOpen of a sample, hints, hover,
# lenses, didChange, shutdown, exit) per small sample.
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
for f in "$root/p4-samples/tofino/tc2_datacenter.p4" "$root/p4-samples/v1model/empty_egress.p4" \
    "$root/p4-samples/pna/nic.p4"; do
    uri="file:///nonexistent-p4cost-fuzz/$(basename "$f")"
    text=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$f")
    pos='"position":{"line":20,"character":4}'
    range='"range":{"start":{"line":0,"character":0},"end":{"line":400,"character":0}}'
    doc="\"textDocument\":{\"uri\":\"$uri\"}"
    LC_ALL=C
    {
        frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
        frame '{"jsonrpc":"2.0","method":"initialized","params":{}}'
        frame "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"languageId\":\"p4\",\"version\":1,\"text\":$text}}}"
        frame "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/inlayHint\",\"params\":{$doc,$range}}"
        frame "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":{$doc,$pos}}"
        frame "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/codeLens\",\"params\":{$doc}}"
        frame "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"version\":2},\"contentChanges\":[{\"text\":\"control C() { apply {} }\"}]}}"
        frame "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"textDocument/hover\",\"params\":{$doc,$pos}}"
        frame '{"jsonrpc":"2.0","id":6,"method":"shutdown"}'
        frame '{"jsonrpc":"2.0","method":"exit"}'
    } > "$corpus/lsp/session-$(basename "$f")"
    unset LC_ALL
done
for t in "${targets[@]}"; do printf '%s %s, ' "$(ls "$corpus/$t" | wc -l)" "$t"; done
echo "inputs in $corpus"
