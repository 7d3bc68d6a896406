"""mdrender.py: the small Markdown the lab writes, as an HTML fragment. One
renderer for scripts/report.py (run descriptions, recorded-run READMEs, the
glossary) and scripts/baselines/compare.py (compare.html), so a table reads
as a table in both. Standard library only.

Blocks: paragraphs (consecutive lines join), "- " lists (a line indented two
or more spaces continues the item), headings # .. ####, pipe tables (a
"| a | b |" row, then a "|---|---:|" separator, then rows), ``` fenced code.
Inline: `code` and **bold**; everything else is escaped.
"""
import html
import re

_SEP_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_CODE = re.compile(r"`([^`]*)`")
_BOLD = re.compile(r"\*\*([^*]*)\*\*")


def inline(text):
    """Escape text and render `code` and **bold** in it. Code spans are set
    aside first, so a ** inside backticks stays literal and **`x`** works."""
    codes = []

    def stash(m):
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    t = _BOLD.sub(r"<strong>\1</strong>", html.escape(_CODE.sub(stash, text)))
    return re.sub("\x00([0-9]+)\x00", lambda m: f"<code>{html.escape(codes[int(m.group(1))])}</code>", t)


def table_cells(row):
    """The cells of a pipe-table row; a \\| inside a cell is a literal bar."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells = re.split(r"(?<!\\)\|", row)
    return [c.strip().replace("\\|", "|") for c in cells]


def is_separator(line):
    s = line.strip()
    if not s.startswith("|") or "-" not in s:
        return False
    return all(_SEP_CELL.match(c) for c in table_cells(s))


def _align(sep_cell):
    c = sep_cell.strip()
    if c.endswith(":") and c.startswith(":"):
        return "center"
    if c.endswith(":"):
        return "right"
    return ""


def _table(rows, align):
    head, sep, body = rows[0], rows[1], rows[2:]
    aligns = [_align(c) for c in table_cells(sep)] if align else []

    def cell(tag, text, i):
        a = aligns[i] if i < len(aligns) else ""
        attr = f' style="text-align:{a}"' if a else ""
        return f"<{tag}{attr}>{inline(text)}</{tag}>"

    out = ["<table><thead><tr>" + "".join(cell("th", c, i) for i, c in enumerate(table_cells(head))) +
           "</tr></thead><tbody>"]
    for r in body:
        out.append("<tr>" + "".join(cell("td", c, i) for i, c in enumerate(table_cells(r))) + "</tr>")
    out.append("</tbody></table>")
    return out


def to_html(source, heading_offset=0, align=False):
    """source: a string or a list of lines. heading_offset: added to every
    heading level (a README inside a report section starts below it), capped
    at h6. align: honour the separator's :--- / ---: as text-align (compare.py
    keeps its tables unaligned)."""
    lines = source.splitlines() if isinstance(source, str) else [l.rstrip("\n") for l in source]
    out, para, items = [], [], []

    def flush_para():
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()

    def flush_list():
        if items:
            out.append("<ul>")
            out.extend(f"<li>{inline(' '.join(it))}</li>" for it in items)
            out.append("</ul>")
            items.clear()

    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        s = line.strip()
        if s.startswith("```"):
            flush_para()
            flush_list()
            j = i + 1
            while j < n and not lines[j].strip().startswith("```"):
                j += 1
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:j])) + "</code></pre>")
            i = j + 1
            continue
        if s.startswith("|") and i + 1 < n and is_separator(lines[i + 1]):
            flush_para()
            flush_list()
            j = i + 2
            while j < n and lines[j].strip().startswith("|"):
                j += 1
            out.extend(_table([l.strip() for l in lines[i:j]], align))
            i = j
            continue
        m = _HEADING.match(line)
        if m:
            flush_para()
            flush_list()
            level = min(6, len(m.group(1)) + heading_offset)
            out.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
        elif not s:
            flush_para()
            flush_list()
        elif line.startswith("- "):
            flush_para()
            items.append([line[2:].strip()])
        elif items and line.startswith("  "):
            items[-1].append(s)
        else:
            flush_list()
            para.append(line)  # kept as written: compare.html stays byte for byte
        i += 1
    flush_para()
    flush_list()
    return "\n".join(out) + "\n"


def shift_headings(text, offset):
    """The same Markdown with every heading (outside ``` blocks) offset levels
    deeper, for a file included under a report heading."""
    if offset <= 0:
        return text
    out, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced and _HEADING.match(line):
            line = "#" * offset + line
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def md_cell(text):
    """A value for a Markdown table cell: bars escaped, no line breaks."""
    return str(text).replace("|", "\\|").replace("\n", " ")
