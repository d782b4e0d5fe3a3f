#!/usr/bin/env bash
# Copies seed inputs for every fuzz target into fuzz/corpus/<target>/ from
# the repository's own samples and fixtures (nothing is committed: the
# corpora are build products, see .gitignore). Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{pp,front,bmv2,context} "$root/tests/fixtures/regressions"
# Source targets: our P4 samples and every regression input kept so far.
for f in $(find "$root/p4-samples" "$root/tests/fixtures" -name '*.p4'); do
    cp "$f" "$corpus/pp/"
    cp "$f" "$corpus/front/"
done
# BMv2: the fixtures under 300 KB (bigger ones slow every mutation down).
find "$root/tests/fixtures/bmv2" "$root/tests/fixtures/regressions" -name '*.json' -size -300k \
    -exec grep -l '"header_types"' {} + 2>/dev/null | xargs -r cp -t "$corpus/bmv2/"
# context.json: the smallest real one, plus every context regression input.
cp "$root/tests/fixtures/tofino/open-p4studio__tna_action_selector__context.json" "$corpus/context/"
find "$root/tests/fixtures/regressions" -name '*context*' -exec cp -t "$corpus/context/" {} + 2>/dev/null || true
echo "seeded $(ls "$corpus/pp" | wc -l) pp, $(ls "$corpus/front" | wc -l) front, \
$(ls "$corpus/bmv2" | wc -l) bmv2, $(ls "$corpus/context" | wc -l) context inputs in $corpus"
