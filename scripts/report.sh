#!/usr/bin/env bash
# report.sh: run every probe and experiment of the registry below, draw their
# figures (reports/*.gp, from the runs' TSV only) and assemble one report:
# OUT/report.md, OUT/report.html (self-contained: figures embedded) and
# OUT/claims.tsv (every claim of every run). `scripts/lab report` calls this
# with BAGNOLD_BUILD_DIR set; it can also be run by hand.
#
# Exit code: 0 when every claim's verdict equals its expect column (a
# documented miss is a fail the table expects), 1 otherwise, or when a run
# crashed, made no claims or a figure could not be drawn; 2 on bad usage.
#
# Markdown backticks inside single-quoted printf formats are meant literally:
# shellcheck disable=SC2016
set -euo pipefail
# bash >= 5.2 reads '&' in ${var//pat/rep} as the match; the escaping below
# means a literal '&'.
shopt -u patsub_replacement 2>/dev/null || true

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"

# --- the registry -------------------------------------------------------------
# One entry per run: "name|binary|figures".
#   name     the run's id: OUT/runs/NAME, --only NAME, and its description
#            reports/NAME.md (a few plain paragraphs; `code` and **bold** work)
#   binary   the executable in BUILD/bin; an entry whose binary is not built is
#            skipped with a notice
#   figures  space-separated reports/FIG.gp scripts, each drawn with
#            in=OUT/runs/NAME out=OUT/figures/FIG (so FIG names are unique
#            across runs: prefix them with the run's name)
# Adding an experiment is one line here (plus its reports/NAME.md and .gp files).
RUNS=(
  "probe|probe_constitutive|probe_pq probe_phi_strain probe_hardening"
  "density|exp_density|density_hist density_height"
  "repose|exp_repose|repose_convergence repose_profiles repose_floor_mu"
  "runout|exp_runout|runout_law runout_profiles runout_convergence"
  "silo|exp_silo|silo_rate silo_beverloo silo_exit"
)

log() { printf 'report: %s\n' "$*" >&2; }
die() {
  local code="$1"
  shift
  printf 'report: error: %s\n' "$*" >&2
  exit "$code"
}

usage() {
  cat <<EOF
usage: scripts/report.sh [--scale quick|paper] [--out DIR] [--only NAME ...] [--backend B] [--list]

Runs the probes and experiments, draws their figures and writes
OUT/report.md, OUT/report.html and OUT/claims.tsv.

  --scale quick|paper  default: paper when a GPU is usable (nvidia-smi -L works and the
                       build has the CUDA backend), else quick
  --out DIR            default: \$BAGNOLD_BUILD_DIR/report
  --only NAME          run only this entry (repeatable); one of: $(registry_names)
  --backend B          passed to every run (cpu, cuda or auto); default: the runs' own
  --list               print the registry (name|binary|figures, one per line) and exit
  -h, --help           this text

environment:
  BAGNOLD_BUILD_DIR    build directory holding bin/ (default: <repo>/build)
  BAGNOLD_REFERENCES   claims table directory (default: <repo>/references)
EOF
}

registry_names() {
  local e names=()
  for e in "${RUNS[@]}"; do names+=("${e%%|*}"); done
  printf '%s' "${names[*]}"
}

# a value for a gnuplot string literal: a ' inside single quotes is written ''
gq() { printf '%s' "${1//\'/\'\'}"; }

abspath() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

# --- arguments ------------------------------------------------------------------

scale=""
out=""
backend=""
only=()
need_value() { (($# >= 2)) || die 2 "$1 needs a value (see --help)"; }
while (($#)); do
  case "$1" in
    --scale) need_value "$@"; scale="$2"; shift 2 ;;
    --scale=*) scale="${1#*=}"; shift ;;
    --out) need_value "$@"; out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --only) need_value "$@"; only+=("$2"); shift 2 ;;
    --only=*) only+=("${1#*=}"); shift ;;
    --backend) need_value "$@"; backend="$2"; shift 2 ;;
    --backend=*) backend="${1#*=}"; shift ;;
    --list) printf '%s\n' "${RUNS[@]}"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) die 2 "unknown argument '$1' (see --help)" ;;
  esac
done

build="$(abspath "${BAGNOLD_BUILD_DIR:-$root/build}")"
refs="$(abspath "${BAGNOLD_REFERENCES:-$root/references}")"
out="$(abspath "${out:-$build/report}")"

case "$backend" in
  "" | cpu | cuda | auto) ;;
  *) die 2 "--backend: '$backend' is not one of cpu, cuda, auto" ;;
esac

# The build has the CUDA backend when its cache names a CUDA compiler and the
# option is not OFF (CMakeLists.txt enables it exactly then).
build_has_cuda() {
  local cache="$build/CMakeCache.txt" nvcc mode
  [[ -f "$cache" ]] || return 1
  nvcc="$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Za-z]*=//p' "$cache" | head -n 1)"
  mode="$(sed -n 's/^BAGNOLD_CUDA:[A-Za-z]*=//p' "$cache" | head -n 1)"
  [[ -n "$nvcc" && "$nvcc" != *NOTFOUND* && "$mode" != OFF ]]
}

gpu_list=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu_list="$(nvidia-smi -L 2>/dev/null | sed 's/ (UUID:.*//')"
fi

if [[ -n "$scale" ]]; then
  case "$scale" in
    quick | paper) scale_why="given with --scale" ;;
    *) die 2 "--scale: '$scale' is not one of quick, paper" ;;
  esac
elif [[ -n "$gpu_list" ]] && build_has_cuda; then
  scale=paper
  scale_why="nvidia-smi -L lists a GPU and $build has the CUDA backend"
elif [[ -n "$gpu_list" ]]; then
  scale=quick
  scale_why="a GPU is visible but $build has no CUDA backend"
else
  scale=quick
  scale_why="no usable GPU: nvidia-smi -L fails or is not installed"
fi
log "scale $scale: $scale_why"

# --only: every name must be in the registry.
selected=()
if ((${#only[@]})); then
  for name in "${only[@]}"; do
    found=0
    for e in "${RUNS[@]}"; do if [[ "${e%%|*}" == "$name" ]]; then found=1; fi; done
    ((found)) || die 2 "--only: unknown run '$name' (valid: $(registry_names))"
  done
  for e in "${RUNS[@]}"; do
    for name in "${only[@]}"; do
      if [[ "${e%%|*}" == "$name" ]]; then
        selected+=("$e")
        break
      fi
    done
  done
else
  selected=("${RUNS[@]}")
fi

command -v gnuplot >/dev/null || die 1 "gnuplot not found (scripts/lab setup installs gnuplot-nox)"
[[ -f "$refs/claims.tsv" ]] || die 1 "no claims table at $refs/claims.tsv"
mkdir -p -- "$out/runs" "$out/figures"

# --- run ------------------------------------------------------------------------

declare -A state note rc_of fig_ok fig_why
ran=()
problems=0
exec 3>&1 # the runs' stdout goes here while their stderr is teed to the log

i=0
for entry in "${selected[@]}"; do
  i=$((i + 1))
  IFS='|' read -r name binary figs <<<"$entry"
  exe="$build/bin/$binary"
  if [[ ! -x "$exe" ]]; then
    log "[$i/${#selected[@]}] $name: skipped, $exe does not exist (not built)"
    state[$name]=skipped
    note[$name]="$binary is not built in $build/bin"
    continue
  fi
  ran+=("$name")
  rundir="$out/runs/$name"
  rm -rf -- "$rundir" # so that a stale claims.tsv is never taken for this run's
  mkdir -p -- "$rundir"
  args=(--scale "$scale" --out "$rundir")
  if [[ -n "$backend" ]]; then args+=(--backend "$backend"); fi
  # experiments that run their simulations side by side get one job per core,
  # at most 6 (their files are the same whatever the count: ctest
  # *.jobs_identical); on 2 cores that takes quick runout from 68 s to 41 s
  if "$exe" --help 2>/dev/null | grep -q -- '--jobs'; then
    jobs=$(nproc 2>/dev/null || echo 1)
    ((jobs > 6)) && jobs=6
    args+=(--jobs "$jobs")
  fi
  log "[$i/${#selected[@]}] $name: $binary ${args[*]}"
  set +e
  "$exe" "${args[@]}" 2>&1 1>&3 | tee "$rundir/log.txt" >&2
  rc=${PIPESTATUS[0]}
  set -e
  rc_of[$name]=$rc
  # exit 1 is a failed claim, a result; any other non-zero code is a crash
  if ((rc != 0 && rc != 1)); then
    state[$name]=crash
    note[$name]="crashed with exit code $rc"
  elif [[ ! -s "$rundir/claims.tsv" ]]; then
    state[$name]=crash
    note[$name]="exit code $rc but no claims.tsv written"
  else
    state[$name]=finished
    note[$name]="exit code $rc"
    if ((rc == 1)); then note[$name]+=": a claim failed"; fi
  fi
  if [[ "${state[$name]}" == crash ]]; then
    log "$name: ${note[$name]} (log: $rundir/log.txt); its figures are not drawn"
    problems=$((problems + 1))
    continue
  fi

  for fig in $figs; do
    gp="$root/reports/$fig.gp"
    key="$name:$fig"
    rm -f -- "$out/figures/$fig.png" "$out/figures/$fig.svg"
    if [[ ! -f "$gp" ]]; then
      log "$name: figure $fig: no script $gp"
      fig_ok[$key]=0
      fig_why[$key]="there is no script reports/$fig.gp"
    elif gnuplot -e "in='$(gq "$rundir")'; out='$(gq "$out/figures/$fig")'" "$gp" \
      >>"$rundir/figures.log" 2>&1 && [[ -s "$out/figures/$fig.png" ]]; then
      fig_ok[$key]=1
      log "$name: figure $fig.png"
    else
      fig_ok[$key]=0
      fig_why[$key]="gnuplot failed: see runs/$name/figures.log"
      log "$name: figure $fig failed (gnuplot output in $rundir/figures.log):"
      tail -n 5 "$rundir/figures.log" >&2 || true
    fi
    ((fig_ok[$key])) || problems=$((problems + 1))
  done
done
exec 3>&-

# --- assemble: claims ------------------------------------------------------------

claims_all="$out/claims.tsv"
{
  printf '# every claim of every run in this report (scale %s); columns as in each run'"'"'s claims.tsv, run first\n' "$scale"
  printf 'run\tclaim\tmeasured\texpected\ttolerance\tunit\tverdict\tsource\texpect\n'
  for name in "${ran[@]}"; do
    f="$out/runs/$name/claims.tsv"
    [[ -s "$f" ]] || continue
    awk -F'\t' -v run="$name" '/^#/ || $1 == "claim" || NF == 0 { next } { print run "\t" $0 }' "$f"
  done
} >"$claims_all"

# counts over OUT/claims.tsv (or one run's rows): N P F K UF UP
count_claims() {
  awk -F'\t' -v run="${1:-}" '
    /^#/ || $1 == "run" || NF == 0 { next }
    run != "" && $1 != run { next }
    { n++
      if ($7 == "pass") p++; else if ($7 == "fail") f++
      if ($7 == "fail" && $9 == "fail") k++
      else if ($7 != $9 && $9 == "pass") uf++
      else if ($7 != $9) up++ }
    END { printf "%d %d %d %d %d %d\n", n, p, f, k, uf, up }' "$claims_all"
}
read -r N P F K UF UP < <(count_claims)
U=$((UF + UP))
summary="$N claims: $P pass, $F fail ($K documented misses, $U unexpected)"
if ((UP)); then summary+="; $UP of the unexpected are passes of claims the table expects to fail (update references/claims.tsv)"; fi
n_crash=0
n_skip=0
for e in "${selected[@]}"; do
  case "${state[${e%%|*}]}" in crash) n_crash=$((n_crash + 1)) ;; skipped) n_skip=$((n_skip + 1)) ;; esac
done
if ((n_crash)); then summary+="; $n_crash run(s) crashed"; fi
if ((n_skip)); then summary+="; $n_skip run(s) skipped (not built)"; fi

# a finished run's exit code must say fail exactly when one of its claims failed
for name in "${ran[@]}"; do
  [[ "${state[$name]}" == finished ]] || continue
  read -r n p f _ < <(count_claims "$name")
  if ((n == 0)); then
    note[$name]+="; it made no claims"
    problems=$((problems + 1))
  elif (((f > 0) != (rc_of[$name] != 0))); then
    note[$name]+="; the exit code does not match its $f failed claim(s)"
    problems=$((problems + 1))
  fi
done

# --- assemble: helpers -------------------------------------------------------------

# value of KEY in a manifest.json written by bg_lab (one "key": value per line);
# strings unquoted, empty when absent
mget() {
  [[ -f "$1" ]] || return 0
  sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*//p" "$1" | head -n 1 |
    sed 's/,[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/\\"/"/g; s/\\\\/\\/g'
}

h() { # HTML-escape
  local s="$1"
  s="${s//&/&amp;}"
  s="${s//</&lt;}"
  s="${s//>/&gt;}"
  s="${s//\"/&quot;}"
  s="${s//\'/&#39;}"
  printf '%s' "$s"
}

# the figure's caption: the first comment paragraph of its script, without
# the "NAME.gp:" prefix
caption_of() {
  local gp="$root/reports/$1.gp"
  [[ -f "$gp" ]] || { printf '%s' "$1"; return; }
  awk -v fig="$1" '
    /^#/ { line = $0; sub(/^# ?/, "", line); if (line == "") exit; text = text (text == "" ? "" : " ") line; next }
    { exit }
    END { sub("^" fig "\\.gp: *", "", text); print toupper(substr(text, 1, 1)) substr(text, 2) }' "$gp"
}

# one run's claims as a table: claims_table md|html CLAIMS_TSV
claims_table() {
  awk -F'\t' -v mode="$1" '
    function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
    function md(s) { gsub(/\|/, "\\|", s); return s }
    FNR == 1 { file++ }
    file == 1 { if ($0 !~ /^#/ && NF >= 5) { n = split($4, cl, ","); for (i = 1; i <= n; ++i) { kill[cl[i]] = kill[cl[i]] (kill[cl[i]] == "" ? "" : ", ") $1 " (" $3 ")"; kdesc[cl[i]] = kdesc[cl[i]] (kdesc[cl[i]] == "" ? "" : " | ") $1 ": " $5 } }; next }
    file == 2 { if ($0 !~ /^#/ && NF >= 9) { cmp[$1] = $2; desc[$1] = $10 }; next }
    /^#/ || $1 == "claim" || NF < 8 { next }
    {
      k = ($1 in kill) ? kill[$1] : "none"
      c = cmp[$1]
      if (c == "max") crit = "measured ≤ " $4
      else if (c == "min") crit = "measured ≥ " $4
      else if (c == "abs") crit = "|measured − expected| ≤ " $4
      else if (c == "rel") crit = "|measured − expected| ≤ " $4 " × |expected|"
      else crit = "tolerance " $4
      miss = ($6 == "fail" && $8 == "fail"); unexp = ($6 != $8)
      if (mode == "md") {
        if (!hdr++) { print "| claim | measured | expected | criterion | unit | verdict | expect | source | killed by (mutant) |"; print "|---|---:|---:|---|---|---|---|---|---|" }
        v = $6
        if (miss) v = "fail (documented miss)"
        else if (unexp) v = "**" toupper($6) ": unexpected**"
        printf "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, md(crit), $5, v, $8, $7, md(k)
      } else {
        if (!hdr++) print "<table class=\"claims\"><thead><tr><th>claim</th><th>measured</th><th>expected</th><th>criterion</th><th>unit</th><th>verdict</th><th>expect</th><th>source</th><th>killed by (mutant)</th></tr></thead><tbody>"
        cls = ($6 == "pass") ? "pass" : "fail"
        tag = miss ? " <span class=\"tag miss\">documented miss</span>" : (unexp ? " <span class=\"tag unexpected\">unexpected</span>" : "")
        printf "<tr class=\"%s%s\"><td><code title=\"%s\">%s</code></td><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td><td>%s</td><td><span class=\"verdict %s\">%s</span>%s</td><td>%s</td><td>%s</td><td title=\"%s\">%s</td></tr>\n", \
          cls, unexp ? " unexp" : "", esc(desc[$1]), esc($1), esc($2), esc($3), esc(crit), esc($5), cls, esc($6), tag, esc($8), esc($7), esc(kdesc[$1]), esc(k)
      }
    }
    END { if (mode == "html" && hdr) print "</tbody></table>" }' "$refs/mutants.tsv" "$refs/claims.tsv" "$2"
}

# explanations: documented misses and unexpected verdicts, with the claim's
# description from references/claims.tsv. notes md|html CLAIMS_TSV
claim_notes() {
  awk -F'\t' -v mode="$1" '
    function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
    FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF >= 9) { desc[$1] = $10; cmp[$1] = $2 }; next }
    /^#/ || $1 == "claim" || NF < 8 { next }
    $8 == "fail" || $6 != $8 {
      d = ($1 in desc) ? desc[$1] : "(not in references/claims.tsv)"
      if (d !~ /[.!?]$/) d = d "."
      c = cmp[$1]
      crit = (c == "max") ? "≤ " $4 : (c == "min") ? "≥ " $4 : (c == "abs") ? "within ± " $4 " of " $3 : (c == "rel") ? "within ± " $4 " × |" $3 "| of " $3 : "tolerance " $4
      if ($6 == "fail" && $8 == "fail") head = "documented miss"
      else head = "unexpected " $6 " (the table expects " $8 ")"
      meas = "measured " $2 " " $5 "; the claim holds it to " crit " " $5
      if (mode == "md") printf "- **%s** (%s): %s. %s\n", $1, head, meas, d
      else printf "<li><code>%s</code> <span class=\"tag %s\">%s</span> %s. <span class=\"muted\">references/claims.tsv:</span> %s</li>\n", esc($1), ($6 == $8) ? "miss" : "unexpected", esc(head), esc(meas), esc(d)
    }' "$refs/claims.tsv" "$2"
}

# a run description (reports/NAME.md: paragraphs, "- " lists, `code`, **bold**) as HTML
md_to_html() {
  awk '
    function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
    function span(s, mark, tag,   o, n) {
      o = ""; n = length(mark)
      while ((i = index(s, mark)) > 0) {
        rest = substr(s, i + n); j = index(rest, mark)
        if (j == 0) break
        o = o substr(s, 1, i - 1) "<" tag ">" substr(rest, 1, j - 1) "</" tag ">"
        s = substr(rest, j + n)
      }
      return o s
    }
    function inline(s) { return span(span(esc(s), "`", "code"), "**", "strong") }
    function flush() { if (para != "") print "<p>" inline(para) "</p>"; para = ""; if (inlist) print "</ul>"; inlist = 0 }
    /^[[:space:]]*$/ { flush(); next }
    /^- / { if (para != "") { print "<p>" inline(para) "</p>"; para = "" }
            if (!inlist) print "<ul>"; inlist = 1; print "<li>" inline(substr($0, 3)) "</li>"; next }
    { para = para (para == "" ? "" : " ") $0 }
    END { flush() }' "$1"
}

fmt_rate() { # particle-steps/s, readable
  awk -v r="$1" 'BEGIN { if (r == "" || r + 0 == 0) print "n/a (no particle steps)"; else if (r >= 1e6) printf "%.3g M/s\n", r / 1e6; else printf "%.3g /s\n", r }'
}

# --- assemble: report header ---------------------------------------------------

manifests=()
for name in "${ran[@]}"; do
  if [[ -f "$out/runs/$name/manifest.json" ]]; then manifests+=("$out/runs/$name/manifest.json"); fi
done
uniq_key() { # KEY: the distinct values over the manifests, comma-separated
  local m v
  for m in "${manifests[@]}"; do
    v="$(mget "$m" "$1")"
    if [[ -n "$v" ]]; then printf '%s\n' "$v"; fi
  done | awk '!seen[$0]++' | paste -sd, - | sed 's/,/, /g'
}
commit=""
if ((${#manifests[@]})); then commit="$(uniq_key commit)"; fi
commit="${commit:-unknown (no run wrote a manifest)}"
if ((${#manifests[@]})); then
  machine="$(uniq_key host) — $(uniq_key cpu), $(uniq_key cores) cores"
else
  machine="$(uname -n) — $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1), $(nproc) cores"
fi
gpus="${gpu_list:-none: nvidia-smi -L not usable}"
date_now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
title="bagnold report"

md="$out/report.md"
html="$out/report.html"

{
  printf '# %s\n\n' "$title"
  printf -- '- date: %s\n- commit: %s\n- machine: %s\n- GPU: %s\n- scale: %s (%s)\n' \
    "$date_now" "$commit" "$machine" "$(printf '%s' "$gpus" | paste -sd';' -)" "$scale" "$scale_why"
  if [[ -n "$backend" ]]; then printf -- '- backend requested: %s\n' "$backend"; fi
  printf '\n**%s**\n\n' "$summary"
  printf '| run | status | claims | pass | fail | unexpected |\n|---|---|---:|---:|---:|---:|\n'
  for e in "${selected[@]}"; do
    name="${e%%|*}"
    read -r n p f _ uf up < <(count_claims "$name")
    printf '| %s | %s (%s) | %d | %d | %d | %d |\n' "$name" "${state[$name]}" "${note[$name]}" "$n" "$p" "$f" $((uf + up))
  done
  printf '\n'
} >"$md"

cat >"$html" <<EOF
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$(h "$title") — $(h "$date_now")</title>
<style>
  body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1d1d1f; background: #fafafa;
         margin: 0; line-height: 1.5; }
  main { max-width: 1060px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
  h1 { font-size: 1.7em; margin: 0.2em 0 0.4em; }
  h2 { font-size: 1.35em; margin-top: 2em; padding-bottom: 0.2em; border-bottom: 2px solid #e4e4e4; }
  h3 { font-size: 1.05em; margin-top: 1.6em; color: #333; }
  code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #f1f1f1; padding: 0 3px; border-radius: 3px; }
  dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
  dl.meta dt { color: #666; }
  dl.meta dd { margin: 0; }
  .summary { font-size: 1.1em; font-weight: bold; margin: 1.2em 0; padding: 10px 14px; border-radius: 6px; }
  .summary.ok { background: #e7f5ea; border-left: 5px solid #2e7d32; }
  .summary.bad { background: #fdecec; border-left: 5px solid #c62828; }
  .summary.skip { background: #f3f3f3; border-left: 5px solid #9e9e9e; font-weight: normal; }
  table { border-collapse: collapse; width: 100%; font-size: 0.88em; margin: 0.6em 0; }
  th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
  th { background: #f4f4f4; }
  td.num { text-align: right; font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
  .verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; }
  .verdict.pass { color: #1b5e20; background: #d8f0dc; }
  .verdict.fail { color: #b71c1c; background: #fbdada; }
  tr.unexp td { background: #fff4e5; }
  .tag { font-size: 0.8em; padding: 1px 6px; border-radius: 10px; white-space: nowrap; }
  .tag.miss { background: #eceff1; color: #455a64; border: 1px solid #b0bec5; }
  .tag.unexpected { background: #c62828; color: #fff; }
  .state.finished { color: #1b5e20; } .state.crash { color: #b71c1c; font-weight: bold; } .state.skipped { color: #777; }
  figure { margin: 1.2em 0; text-align: center; }
  figure img { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
  figcaption { font-size: 0.88em; color: #555; margin-top: 4px; text-align: left; }
  ul.notes li { margin-bottom: 0.5em; }
  pre.log { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 0.8em; }
  .muted { color: #777; }
</style>
</head>
<body>
<main>
<h1>$(h "$title")</h1>
<dl class="meta">
<dt>date</dt><dd>$(h "$date_now")</dd>
<dt>commit</dt><dd><code>$(h "$commit")</code></dd>
<dt>machine</dt><dd>$(h "$machine")</dd>
<dt>GPU</dt><dd>$(h "$(printf '%s' "$gpus" | paste -sd';' -)")</dd>
<dt>scale</dt><dd><strong>$(h "$scale")</strong> <span class="muted">($(h "$scale_why"))</span></dd>
$(if [[ -n "$backend" ]]; then printf '<dt>backend requested</dt><dd>%s</dd>' "$(h "$backend")"; fi)
</dl>
<p class="summary $(if ((U == 0 && problems == 0 && N > 0)); then echo ok; else echo bad; fi)">$(h "$summary")</p>
<table><thead><tr><th>run</th><th>status</th><th>claims</th><th>pass</th><th>fail</th><th>unexpected</th></tr></thead><tbody>
EOF
for e in "${selected[@]}"; do
  name="${e%%|*}"
  read -r n p f _ uf up < <(count_claims "$name")
  printf '<tr><td><a href="#run-%s">%s</a></td><td><span class="state %s">%s</span> <span class="muted">(%s)</span></td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td></tr>\n' \
    "$(h "$name")" "$(h "$name")" "${state[$name]}" "${state[$name]}" "$(h "${note[$name]}")" "$n" "$p" "$f" $((uf + up)) >>"$html"
done
printf '</tbody></table>\n' >>"$html"

# --- assemble: one section per run ------------------------------------------------

for e in "${selected[@]}"; do
  IFS='|' read -r name binary figs <<<"$e"
  rundir="$out/runs/$name"
  man="$rundir/manifest.json"
  desc="$root/reports/$name.md"

  printf '## %s (`%s`)\n\n' "$name" "$binary" >>"$md"
  printf '<h2 id="run-%s">%s <code>%s</code></h2>\n' "$(h "$name")" "$(h "$name")" "$(h "$binary")" >>"$html"

  if [[ -f "$desc" ]]; then
    { cat "$desc"; printf '\n'; } >>"$md"
    md_to_html "$desc" >>"$html"
  else
    printf '_No description: write reports/%s.md._\n\n' "$name" >>"$md"
    printf '<p class="muted">No description: write reports/%s.md.</p>\n' "$(h "$name")" >>"$html"
  fi

  if [[ "${state[$name]}" != finished ]]; then
    if [[ "${state[$name]}" == skipped ]]; then
      printf '**Not run: %s.**\n\n' "${note[$name]}" >>"$md"
      printf '<p class="summary skip">Not run: %s.</p>\n' "$(h "${note[$name]}")" >>"$html"
    else
      printf '**Run crashed: %s.**\n\n' "${note[$name]}" >>"$md"
      printf '<p class="summary bad">Run crashed: %s.</p>\n' "$(h "${note[$name]}")" >>"$html"
    fi
    if [[ -s "$rundir/log.txt" ]]; then
      { printf 'Last lines of `runs/%s/log.txt`:\n\n```\n' "$name"; tail -n 15 "$rundir/log.txt"; printf '```\n\n'; } >>"$md"
      { printf '<p>Last lines of <code>runs/%s/log.txt</code>:</p><pre class="log">' "$(h "$name")"
        h "$(tail -n 15 "$rundir/log.txt")"; printf '</pre>\n'; } >>"$html"
    fi
  fi

  # figures
  if [[ "${state[$name]}" == finished ]]; then
    printf '<h3>Figures</h3>\n' >>"$html"
    printf '### Figures\n\n' >>"$md"
    for fig in $figs; do
      cap="$(caption_of "$fig")"
      png="$out/figures/$fig.png"
      if [[ "${fig_ok[$name:$fig]:-0}" == 1 ]]; then
        printf '![%s](figures/%s.png)\n\n*%s* (`figures/%s.png`, `.svg`)\n\n' "$fig" "$fig" "$cap" "$fig" >>"$md"
        { printf '<figure><img alt="%s" src="data:image/png;base64,' "$(h "$fig")"
          base64 -w0 "$png"
          printf '"><figcaption><strong>%s.</strong> %s <span class="muted">(figures/%s.svg)</span></figcaption></figure>\n' \
            "$(h "$fig")" "$(h "$cap")" "$(h "$fig")"; } >>"$html"
      else
        printf '**Figure %s could not be drawn**: %s.\n\n' "$fig" "${fig_why[$name:$fig]}" >>"$md"
        printf '<p class="summary bad">Figure %s could not be drawn: %s.</p>\n' "$(h "$fig")" "$(h "${fig_why[$name:$fig]}")" >>"$html"
      fi
    done
  fi

  # claims
  if [[ -s "$rundir/claims.tsv" ]]; then
    printf '### Claims\n\n' >>"$md"
    { claims_table md "$rundir/claims.tsv"; printf '\n'; } >>"$md"
    printf '<h3>Claims</h3>\n' >>"$html"
    claims_table html "$rundir/claims.tsv" >>"$html"
    notes_md="$(claim_notes md "$rundir/claims.tsv")"
    if [[ -n "$notes_md" ]]; then
      printf 'Misses and surprises, explained by references/claims.tsv:\n\n%s\n\n' "$notes_md" >>"$md"
      { printf '<p>Misses and surprises, explained by <code>references/claims.tsv</code>:</p><ul class="notes">\n'
        claim_notes html "$rundir/claims.tsv"; printf '</ul>\n'; } >>"$html"
    fi
  fi

  # manifest essentials
  if [[ -f "$man" ]]; then
    wall="$(mget "$man" wall_s)"
    rate="$(fmt_rate "$(mget "$man" particle_steps_per_s)")"
    be="$(mget "$man" backend)"
    be_req="$(mget "$man" backend_requested)"
    dev="$(mget "$man" device)"
    be_text="${be:-$be_req}"
    if [[ -z "$be" ]]; then
      be_text="requested $be_req"
    elif [[ "$be" != "$be_req" ]]; then
      be_text="$be (requested $be_req)"
    fi
    rows=("wall time|${wall:-?} s" "particle-steps/s|$rate" "backend|$be_text" "device|${dev:-not recorded}"
      "scale|$(mget "$man" scale)" "threads / seed|$(mget "$man" threads) / $(mget "$man" seed)"
      "command|$(mget "$man" command)" "commit|$(mget "$man" commit)" "finished|$(mget "$man" date)")
    printf '### Run\n\n' >>"$md"
    printf '<h3>Run</h3>\n<dl class="meta">\n' >>"$html"
    for r in "${rows[@]}"; do
      printf -- '- %s: %s\n' "${r%%|*}" "${r#*|}" >>"$md"
      printf '<dt>%s</dt><dd>%s</dd>\n' "$(h "${r%%|*}")" "$(h "${r#*|}")" >>"$html"
    done
    printf '\nFiles: `runs/%s/` (TSV, manifest.json, log.txt).\n\n' "$name" >>"$md"
    printf '</dl>\n<p class="muted">Files: runs/%s/ (TSV, manifest.json, log.txt).</p>\n' "$(h "$name")" >>"$html"
  fi
done

# --- assemble: recorded runs ---------------------------------------------------------
# Runs made elsewhere or at a scale this machine cannot repeat (paper scale on
# a lent GPU, a long CPU run) are committed as they came out, TSV and
# manifest, under reports/results/SET/NAME/ (NAME a registry entry). They are
# shown after this report's own runs, figures redrawn from their TSV by the
# same scripts, claims as they were judged then; they are never re-judged and
# never counted in this report's summary.
results="$root/reports/results"
recorded=()
if [[ -d "$results" ]]; then
  while IFS= read -r d; do recorded+=("$d"); done < <(find "$results" -mindepth 2 -maxdepth 2 -type d | sort)
fi
if ((${#recorded[@]})); then
  printf '## Recorded runs\n\n' >>"$md"
  printf '<h2 id="recorded">Recorded runs</h2>\n' >>"$html"
  intro='Runs committed under reports/results/SET/NAME/ as they came out (at a scale or on hardware this report did not use). Their claims are shown as judged when they ran; figures are redrawn from their TSV.'
  printf '%s\n\n' "$intro" >>"$md"
  printf '<p>%s</p>\n' "$(h "$intro")" >>"$html"
  for d in "${recorded[@]}"; do
    name="$(basename "$d")"
    set_name="$(basename "$(dirname "$d")")"
    figs=""
    man="$d/manifest.json"
    # NAME or NAME-variant (a second run of the same experiment, e.g.
    # silo-wide) takes NAME's figures; folders with no manifest are notes only
    for e in "${RUNS[@]}"; do
      IFS='|' read -r n _ f <<<"$e"
      if [[ -f "$man" && ("$n" == "$name" || "$n" == "${name%%-*}") ]]; then figs="$f"; fi
    done
    # a GPU benchmark folder (bench_gpu's TSV) gets its throughput curve
    [[ -s "$d/bench_gpu.tsv" ]] && figs="bench_gpu_counts"
    if [[ "$set_name" != "${prev_set:-}" ]]; then
      prev_set="$set_name"
      printf '### %s\n\n' "$set_name" >>"$md"
      printf '<h3 id="recorded-%s">%s</h3>\n' "$(h "$set_name")" "$(h "$set_name")" >>"$html"
      if [[ -f "$results/$set_name/README.md" ]]; then
        { cat "$results/$set_name/README.md"; printf '\n'; } >>"$md"
        md_to_html "$results/$set_name/README.md" >>"$html"
      fi
    fi
    printf '#### %s / %s\n\n' "$set_name" "$name" >>"$md"
    printf '<h4 id="recorded-%s-%s">%s / %s</h4>\n' "$(h "$set_name")" "$(h "$name")" "$(h "$set_name")" "$(h "$name")" >>"$html"
    if [[ -f "$d/README.md" ]]; then
      { cat "$d/README.md"; printf '\n'; } >>"$md"
      md_to_html "$d/README.md" >>"$html"
    fi
    if [[ -f "$man" ]]; then
      rb="$(mget "$man" backend)"; [[ -n "$rb" ]] || rb="$(mget "$man" backend_requested) (requested)"
      rd="$(mget "$man" device)"; [[ -n "$rd" ]] || rd="not recorded (see the README above)"
      line="scale $(mget "$man" scale), backend $rb, device $rd, host $(mget "$man" host), commit $(mget "$man" commit), wall $(mget "$man" wall_s) s, $(fmt_rate "$(mget "$man" particle_steps_per_s)"), finished $(mget "$man" date); command: $(mget "$man" command)"
      printf '%s\n\n' "$line" >>"$md"
      printf '<p class="muted">%s</p>\n' "$(h "$line")" >>"$html"
    fi
    for fig in $figs; do
      key="$set_name-$fig"
      [[ "$name" == "${name%%-*}" ]] || key="$set_name-$name-$fig"
      if gnuplot -e "in='$(gq "$d")'; out='$(gq "$out/figures/$key")'" "$root/reports/$fig.gp" \
        >>"$out/figures/recorded.log" 2>&1 && [[ -s "$out/figures/$key.png" ]]; then
        cap="$(caption_of "$fig")"
        printf '![%s](figures/%s.png)\n\n*%s* (`figures/%s.png`)\n\n' "$key" "$key" "$cap" "$key" >>"$md"
        { printf '<figure><img alt="%s" src="data:image/png;base64,' "$(h "$key")"
          base64 -w0 "$out/figures/$key.png"
          printf '"><figcaption><strong>%s.</strong> %s</figcaption></figure>\n' "$(h "$key")" "$(h "$cap")"; } >>"$html"
      else
        printf '**Figure %s could not be drawn from the recorded TSV** (figures/recorded.log).\n\n' "$fig" >>"$md"
        printf '<p class="summary bad">Figure %s could not be drawn from the recorded TSV (figures/recorded.log).</p>\n' "$(h "$fig")" >>"$html"
      fi
    done
    if [[ -s "$d/claims.tsv" ]]; then
      { claims_table md "$d/claims.tsv"; printf '\n'; } >>"$md"
      claims_table html "$d/claims.tsv" >>"$html"
    fi
  done
fi

# --- the latest head-to-head benchmark (scripts/lab bench compare), if any ----------
# Not re-run here (it takes minutes and needs Taichi and Warp): its last output is shown as it is.
cmp="$build/bench/compare"
if [[ -s "$cmp/compare.md" && -s "$cmp/compare.html" ]]; then
  when="$(date -u -r "$cmp/compare.md" +%Y-%m-%dT%H:%M:%SZ)"
  { printf '## Head-to-head: bagnold, Taichi, Warp\n\n'
    printf '_The latest `scripts/lab bench compare` output (%s, from `%s`); the report does not re-run it._\n\n' "$when" "$cmp"
    cat "$cmp/compare.md"; printf '\n'; } >>"$md"
  { printf '<h2 id="bench-compare">Head-to-head: bagnold, Taichi, Warp</h2>\n'
    printf '<p class="muted">The latest <code>scripts/lab bench compare</code> output (%s, from %s); the report does not re-run it.</p>\n' "$(h "$when")" "$(h "$cmp")"
    cat "$cmp/compare.html"; } >>"$html"
  if [[ -s "$cmp/compare.png" ]]; then
    cp -- "$cmp/compare.png" "$out/figures/bench_compare.png"
    printf '![bench_compare](figures/bench_compare.png)\n\n' >>"$md"
    { printf '<figure><img alt="bench_compare" src="data:image/png;base64,'; base64 -w0 "$cmp/compare.png"
      printf '"><figcaption>Median particle-steps/s per solver, bars min..max over the interleaved repetitions.</figcaption></figure>\n'; } >>"$html"
  fi
fi

printf '<p class="muted">Written by scripts/report.sh; every claim of every run is in claims.tsv next to this page.</p>\n</main>\n</body>\n</html>\n' >>"$html"

# --- verdict ------------------------------------------------------------------------

log "$summary"
log "report at $html"
log "          $md"
log "claims: $claims_all"
if ((${#ran[@]} == 0)); then
  log "nothing ran: no entry of the registry has its binary built in $build/bin"
  exit 1
fi
if ((U > 0 || problems > 0)); then
  if ((U > 0)); then log "$U claim verdict(s) differ from the table's expect column"; fi
  if ((problems > 0)); then log "$problems problem(s) with runs or figures (see above)"; fi
  exit 1
fi
exit 0
