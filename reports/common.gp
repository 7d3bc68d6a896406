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
# Every TSV of the lab is tab-separated: '#' comment lines (one line of
# provenance), then a plain header line naming the columns, then the rows.
# Scripts select columns BY NAME, never by number (using "W":"D_geo_m",
# column("W"), strcol("fit")), so that a column added in C cannot shift a
# figure's data: a misspelt or missing name draws nothing (gnuplot warns "no
# column with header"), never a wrong curve.
# columnheaders: the first non-comment line of each file is its header (it is
# not a data row: every ::0::0 is the first row of data). A "nan" field (a
# quantity that does not exist, e.g. an angle of a tensile state) is an
# invalid point that gnuplot skips.
set datafile separator tab
set datafile columnheaders

# tsv_header(file): the header line, tab-framed; has_col(file, name): whether
# the file has that column; first_col(file, "a b"): the first of the names it
# has ("" if none), for a quantity whose name differs between geometries (a
# slot's rates are per unit width) or between versions of a recorded run.
tsv_header(file) = "\t".system(sprintf("awk '!/^#/ {print; exit}' '%s'", file))."\t"
has_col(file, name) = strstrt(tsv_header(file), "\t".name."\t") > 0
first_col_(h, names, i) = i > words(names) ? "" : (strstrt(h, "\t".word(names, i)."\t") > 0 ? word(names, i) : first_col_(h, names, i + 1))
first_col(file, names) = first_col_(tsv_header(file), names, 1)

# ref_value(file, key, name): the field in column NAME of the row whose first
# field is KEY in a table of references/ (header: the plain first line or,
# as references/ writes it, the last '#' line before the rows); NaN when the
# table has no such row or column. gnuplot reads such a table's first row as
# its header, so these tables are read through tsv_value.awk, by name too.
ref_value(file, key, name) = real(system(sprintf("awk -F'\t' -v key='%s' -v name='%s' -f '%s' '%s'", \
  key, name, here."tsv_value.awk", file)))

# One colour per series, ordered (a sequential ramp reads as "more phi").
series_colors = "#440154 #3b528b #21918c #5ec962 #b8a800 #e8730c #c2185b #6a6a6a"
series_color(i) = word(series_colors, ((i - 1) % words(series_colors)) + 1)

# claim_value: a column of the run's claims.tsv for one claim id, NaN when
# the run made no such claim. Usage:
#   CLAIM_ID = "probe.hardening"; CLAIM_COL = "tolerance"; eval load_claim
# (gnuplot has no lookup into a file by key; stats over a filtered column is one.)
load_claim = "undefine STATS_*; stats in.'/claims.tsv' using (strcol('claim') eq CLAIM_ID ? column(CLAIM_COL) : NaN) nooutput; claim_value = exists('STATS_min') ? STATS_min : NaN"

# row_value: a numeric column of the row of file ROW_FILE whose column
# ROW_KEY_COL holds ROW_KEY (NaN when there is none). Usage:
#   ROW_FILE = in."/fits.tsv"; ROW_KEY_COL = "fit"; ROW_KEY = "C_k_fixed"; ROW_COL = "C"; eval load_row
load_row = "undefine STATS_*; stats ROW_FILE using (strcol(ROW_KEY_COL) eq ROW_KEY ? column(ROW_COL) : NaN) nooutput; row_value = exists('STATS_min') ? STATS_min : NaN"

# log_tics: label a log axis spanning less than a decade or two at 1, 1.2,
# 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8 in every decade (gnuplot's default labels only
# the powers of ten, one label or none on such an axis). Usage:
#   set logscale xy; AXIS = "x"; eval log_tics; AXIS = "y"; eval log_tics
log_tics = "eval sprintf('set %stics ()', AXIS); do for [e = -6:6] { do for [m in '1 1.2 1.5 2 2.5 3 4 5 6 7 8'] { v = real(m) * 10.0**e; eval sprintf('set %stics add (\"%g\" %.10g)', AXIS, v, v) } }"

# Blocks of a paths-like TSV (blank-line-separated blocks, one per phi_deg
# and p_conf_Pa) at one pressure: sets phis, blocks and lens (word lists of
# phi_deg, block index and row count) and n. Usage:
#   f = in."/paths.tsv"; pconf = 5000; eval find_blocks
# column(-2) is a row's block index: its max is the last block (STATS_blocks
# would also count the empty block after the final blank lines). The header
# heads the file, not each block, so a block is picked by in_block(b, ...)
# over the whole file (index b would read the block's first row as a header).
in_block(b, v) = column(-2) == b ? v : NaN
find_blocks = "phis = ''; blocks = ''; lens = ''; " \
  . "stats f using (column(-2)) nooutput; nblocks = int(STATS_max) + 1; " \
  . "do for [b = 0:nblocks - 1] { undefine STATS_*; stats f using (in_block(b, column('phi_deg'))):(in_block(b, column('p_conf_Pa'))) nooutput; " \
  . "if (exists('STATS_min_y')) { if (abs(STATS_min_y - pconf) <= 1e-6 * pconf) { " \
  . "phis = phis.sprintf(' %g', STATS_min_x); blocks = blocks.sprintf(' %d', b); lens = lens.sprintf(' %d', STATS_records) } } }; " \
  . "n = words(phis)"
