#!/usr/bin/env bash
# smoke_test.sh DIR: the report pipeline end to end on the constitutive probe
# (ctest report.smoke). Runs scripts/report.py --only probe --scale quick
# --out DIR, then checks what a reader gets: report.md and report.html
# non-empty, every claim row with a verdict and a compare rule, every figure
# the registry (experiments/registry.tsv) lists for the probe as a real PNG,
# the figures embedded in the HTML, the claims table's SHA-256 in the header,
# and the recorded runs' Markdown tables rendered as HTML tables.
# BAGNOLD_BUILD_DIR must name the build (ctest sets it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
(($# == 1)) || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
out="$1"
run=probe

fail() {
  printf 'report.smoke: FAIL: %s\n' "$*" >&2
  exit 1
}

rm -rf -- "$out"
set +e
python3 "$root/scripts/report.py" --only "$run" --scale quick --out "$out"
rc=$?
set -e
# 1 is a legitimate report verdict (a claim off its expect column; the probe's
# own ctest judges that); anything else means the pipeline itself broke
((rc == 0 || rc == 1)) || fail "scripts/report.py exited $rc"
((rc == 0)) || echo "report.smoke: note: report.py exited 1 (its messages above say why)" >&2

for f in report.md report.html claims.tsv; do
  [[ -s "$out/$f" ]] || fail "$out/$f is missing or empty"
done

# every claim row (after the '#' comment and the header) has a verdict and a
# compare rule; columns by name
bad="$(awk -F'\t' '/^#/ || NF == 0 { next }
                   $1 == "run" { for (i = 1; i <= NF; ++i) col[$i] = i; next }
                   { n++; v = $col["verdict"]; c = $col["compare"]
                     if (v != "pass" && v != "fail") printf "%s %s: verdict \"%s\"\n", $1, $2, v
                     if (c !~ /^(abs|rel|max|min)$/) printf "%s %s: compare \"%s\"\n", $1, $2, c }
                   END { if (!("verdict" in col) || !("compare" in col)) print "no verdict or compare column"
                         if (n == 0) print "no claim rows" }' "$out/claims.tsv")"
[[ -z "$bad" ]] || fail "claims.tsv: $bad"

# the figures the registry lists for the run
entry="$(python3 "$root/scripts/report.py" --list | awk -F'|' -v r="$run" '$1 == r')"
[[ -n "$entry" ]] || fail "scripts/report.py --list has no entry '$run'"
figs="${entry##*|}"
[[ -n "$figs" ]] || fail "the registry lists no figures for '$run'"
png_sig=" 89 50 4e 47 0d 0a 1a 0a"
for fig in $figs; do
  png="$out/figures/$fig.png"
  [[ -s "$png" ]] || fail "figure $png is missing or empty"
  sig="$(head -c 8 "$png" | od -An -tx1 | tr -s ' ' | sed 's/ *$//')"
  [[ "$sig" == "$png_sig" ]] || fail "$png does not start with the PNG signature (got '$sig')"
done

grep -q 'data:image/png;base64,' "$out/report.html" || fail "report.html embeds no PNG (data:image/png;base64)"
n_img="$(grep -o 'data:image/png;base64,' "$out/report.html" | wc -l)"
n_figs="$(wc -w <<<"$figs")"
((n_img >= n_figs)) || fail "report.html embeds $n_img PNG(s), the registry lists $n_figs figures"

# the header names the claims table that judged the runs, with its SHA-256
sha="$(sha256sum "$root/references/claims.tsv" | cut -d' ' -f1)"
grep -q "$sha" "$out/report.html" || fail "report.html does not carry the claims table's SHA-256 ($sha)"
grep -q "$sha" "$out/report.md" || fail "report.md does not carry the claims table's SHA-256 ($sha)"
grep -q 'id="glossary"' "$out/report.html" || fail "report.html has no glossary"

# recorded runs whose README has a Markdown table show it as a table, never as raw '| ... |' text
if grep -lq '^|---' "$root"/reports/results/*/*/README.md 2>/dev/null; then
  grep -q '<div class="md">' "$out/report.html" || fail "report.html renders no README"
  awk '/<div class="md">/ { md = 1 } md && /^<table>/ { t++ } md && /^<p>\|/ { raw++ } /^<\/div>/ { md = 0 }
       END { exit !(t > 0 && raw == 0) }' "$out/report.html" ||
    fail "report.html shows recorded-run Markdown tables as raw text (or none as <table>)"
fi

echo "report.smoke: ok ($n_figs figures, $(awk -F'\t' '!/^#/ && $1 != "run" && NF' "$out/claims.tsv" | wc -l) claims, report in $out)"
