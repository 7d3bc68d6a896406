#!/usr/bin/env python3
"""tsv_readable.py: every lab TSV under the given folders opens as a table in
the tools a reader uses. The rule (references/README.md): '#' comment lines,
then one plain header line, then rows with as many tab-separated fields as
the header. pandas.read_csv(sep='\\t', comment='#') cuts a line at any '#',
so a '#' inside a header or a row would silently drop fields: that is an
error here too. When pandas is importable, each file is also read by pandas
and its columns and row count must be the ones this reader found.

usage: tsv_readable.py DIR_OR_FILE...    exit 0: all readable, 1: a file is
not, 2: bad usage or nothing to check
"""
import os
import sys


def check(path):
    """A list of problems with one TSV (empty when it is a readable table)."""
    problems, header, rows, last_comment = [], None, 0, ""
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                if header is not None:
                    problems.append(f"{path}:{no}: a comment line after the header")
                last_comment = line
                continue
            if not line.strip():
                continue
            if "#" in line:
                problems.append(f"{path}:{no}: '#' inside a {'row' if header else 'header'} "
                                "(pandas' comment='#' would cut the line there)")
            fields = line.split("\t")
            if header is None:
                header = fields
                if any(not h.strip() for h in header):
                    problems.append(f"{path}:{no}: an empty column name in the header")
                if len(set(header)) != len(header):
                    problems.append(f"{path}:{no}: a column name appears twice")
                numeric = 0
                for h in header:
                    try:
                        float(h)
                        numeric += 1
                    except ValueError:
                        pass
                if numeric and len(last_comment.split("\t")) == len(header):
                    problems.append(f"{path}:{no}: the header is written as a '#' comment on line {no - 1}: "
                                    "pandas and gnuplot would take this row of values for the column names")
                elif numeric == len(header):
                    problems.append(f"{path}:{no}: the header is numbers: the table has no header line")
                continue
            rows += 1
            if len(fields) != len(header):
                problems.append(f"{path}:{no}: {len(fields)} fields, the header has {len(header)}")
    if header is None:
        problems.append(f"{path}: no header line")
    return problems, header, rows


def main(argv):
    if not argv or any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    files = []
    for a in argv:
        if os.path.isdir(a):
            for d, _, names in os.walk(a):
                files += [os.path.join(d, n) for n in names if n.endswith(".tsv")]
        elif os.path.isfile(a):
            files.append(a)
        else:
            print(f"tsv_readable: {a}: no such file or folder", file=sys.stderr)
            return 2
    if not files:
        print("tsv_readable: no .tsv file to check", file=sys.stderr)
        return 2
    try:
        import pandas
    except ImportError:
        pandas = None
    bad = 0
    for path in sorted(files):
        problems, header, rows = check(path)
        if not problems and pandas is not None:
            df = pandas.read_csv(path, sep="\t", comment="#")
            if list(df.columns) != header or len(df) != rows:
                problems.append(f"{path}: pandas reads columns {list(df.columns)[:4]}... and {len(df)} rows, "
                                f"this reader {header[:4]}... and {rows}")
        for p in problems:
            print(p)
        bad += bool(problems)
    print(f"{len(files)} TSV files, {bad} unreadable"
          f"{'' if pandas else ' (pandas not installed: checked by the rule alone)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
