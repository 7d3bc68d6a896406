# tsv_value.awk: one field of a TSV table, by row key and column name, for
# the figure scripts (common.gp's ref_value). Usage:
#   awk -F'\t' -v key=KEY -v name=COLUMN -f reports/tsv_value.awk TABLE.tsv
# The header is the plain first line or, in a table whose header is written
# '# name...' (references/), the last '#' line before the first row. Prints
# the field of the first row whose first field is KEY, or NaN.
/^#/ { if (!col) last = $0; next }
!col {
  if (!tried) {
    tried = 1
    for (i = 1; i <= NF; ++i) if ($i == name) col = i
    if (col) next
    sub(/^# ?/, "", last)
    n = split(last, h, "\t")
    for (i = 1; i <= n; ++i) if (h[i] == name) col = i
  }
  if (!col) exit
}
$1 == key { out = $col; exit }
END { print (out == "" ? "NaN" : out) }
