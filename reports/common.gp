# common.gp: what every figure script shares; each reports/*.gp loads it
# from its own directory (found through ARG0) before anything else. It checks
# the two parameters every figure takes,
#   gnuplot -e "in='DIR'; out='PREFIX'" reports/FIGURE.gp
# (DIR holds the run's TSV files; the figure goes to PREFIX.png and
# PREFIX.svg), picks the PNG terminal (pngcairo, or gd's png where cairo is
# missing) and sets the house style. Figures read TSV only.

if (!exists("in") || !exists("out")) {
  print "usage: gnuplot -e \"in='RUN_DIR'; out='PREFIX'\" reports/FIGURE.gp"
  exit status 2
}

# PNG: cairo where available (anti-aliased, unicode); gd's png otherwise
# (or as chosen with -e "png_terminal='png'"). gd draws every dash type solid,
# so the figures' dashed/dotted distinctions need pngcairo (gnuplot-nox has it).
if (!exists("png_terminal")) { png_terminal = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png" }
fig_w = exists("fig_w") ? fig_w : 1000
fig_h = exists("fig_h") ? fig_h : 700

# term_cmd(fmt): the terminal for format fmt ("png" or "svg"). A figure draws
# itself once per format:
#   do for [fmt in "png svg"] { eval term_cmd(fmt); set output out.".".fmt; plot ...; unset output }
term_cmd(fmt) = fmt eq "png" \
  ? sprintf("set terminal %s size %d,%d enhanced font 'DejaVu Sans,12'", png_terminal, fig_w, fig_h) \
  : sprintf("set terminal svg size %d,%d dynamic enhanced font 'DejaVu Sans,12' background '#ffffff'", fig_w, fig_h)

# House style: light grid behind the data, key boxed with an opaque
# background so that it never hides a curve it does not cover.
set grid back lc rgb "#d4d4d4" lw 1 dt 1
set border lw 1.2
set key opaque box lc rgb "#bbbbbb" samplen 2.5 spacing 1.15
set tics out nomirror
# Every TSV of the lab is tab-separated with '#' comment and header lines; a
# "nan" field (a quantity that does not exist, e.g. an angle of a tensile
# state) is an invalid point that gnuplot skips.
set datafile separator tab

# One colour per series, ordered (a sequential ramp reads as "more phi").
series_colors = "#440154 #3b528b #21918c #5ec962 #b8a800 #e8730c #c2185b #6a6a6a"
series_color(i) = word(series_colors, ((i - 1) % words(series_colors)) + 1)

# claim_value: a column of the run's claims.tsv for one claim id, NaN when
# the run made no such claim. Usage:
#   CLAIM_ID = "probe.hardening"; CLAIM_COL = 4; eval load_claim
# (gnuplot has no lookup into a file by key; stats over a filtered column is one.)
load_claim = "undefine STATS_*; stats in.'/claims.tsv' using (strcol(1) eq CLAIM_ID ? column(CLAIM_COL) : NaN) nooutput; claim_value = exists('STATS_min') ? STATS_min : NaN"

# Blocks of a paths-like TSV (blank-line-separated blocks whose column 2 is
# the confining pressure) at one pressure: sets phis, blocks and lens (word
# lists of column 1, block index and row count) and n. Usage:
#   f = in."/paths.tsv"; pconf = 5000; eval find_blocks
# column(-2) is a row's block index: its max is the last block (STATS_blocks
# would also count the empty block after the final blank lines).
find_blocks = "phis = ''; blocks = ''; lens = ''; " \
  . "stats f using (column(-2)) nooutput; nblocks = int(STATS_max) + 1; " \
  . "do for [b = 0:nblocks - 1] { undefine STATS_*; stats f index b using 1:2 nooutput; " \
  . "if (exists('STATS_min_y')) { if (abs(STATS_min_y - pconf) <= 1e-6 * pconf) { " \
  . "phis = phis.sprintf(' %g', STATS_min_x); blocks = blocks.sprintf(' %d', b); lens = lens.sprintf(' %d', STATS_records) } } }; " \
  . "n = words(phis)"
