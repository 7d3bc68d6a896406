#!/usr/bin/env bash
# query_cases.sh BGLAB_QUERY REFS: bglab_query answers what scripts ask the
# lab: the host (every key, cores >= 1), and today's verdict of a recorded
# value by the claims table (a value at the expected one passes, one far off
# fails, a claim the table lacks is '-', a bad scale exits 2).
set -uo pipefail
q="$1" refs="$2"
fail() { printf 'lab.query: FAIL: %s\n' "$*" >&2; exit 1; }

host="$("$q" host)" || fail "bglab_query host exited $?"
for k in host cpu cores gpu gpu_why; do
  grep -q "^$k"$'\t' <<<"$host" || fail "host: no '$k' line in: $host"
done
cores="$(awk -F'\t' '$1 == "cores" { print $2 }' <<<"$host")"
((cores >= 1)) || fail "host: cores is '$cores'"

# the first numeric abs row of the table
read -r id expected tol < <(awk -F'\t' '!/^#/ && $1 != "claim" && $2 == "abs" && $3 ~ /^-?[0-9.]+$/ { print $1, $3, $4; exit }' "$refs/claims.tsv")
[[ -n "${id:-}" ]] || fail "no numeric abs claim in $refs/claims.tsv"
far="$(awk -v e="$expected" -v t="$tol" 'BEGIN { print e + 10 * t + 1 }')"
out="$(printf '%s\t%s\t-\n%s\t%s\t-\nno.such_claim\t1\t1\n' "$id" "$expected" "$id" "$far" |
       "$q" judge --references "$refs" --scale quick)" || fail "bglab_query judge exited $?"
v1="$(sed -n 1p <<<"$out" | cut -f2)" v2="$(sed -n 2p <<<"$out" | cut -f2)" v3="$(sed -n 3p <<<"$out" | cut -f2)"
[[ "$v1" == pass || "$v1" == refuted ]] || fail "$id at its expected value $expected: verdict '$v1' ($out)"
[[ "$v2" == fail ]] || fail "$id at $far: verdict '$v2', expected fail ($out)"
[[ "$v3" == - ]] || fail "a claim the table lacks: '$v3', expected '-'"
"$q" judge --references "$refs" --scale huge </dev/null 2>/dev/null
(($? == 2)) || fail "a bad --scale must exit 2"
echo "lab.query: host and judge answer as the lab does"
