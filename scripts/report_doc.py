"""report_doc.py: the report's page, one document written twice (Markdown
and self-contained HTML): the style sheet, the Doc that holds both, figure
captions, the header with its summary and table of runs, the glossary, and
each run's section (figures, pictures, claims with their notes, manifest)."""
import base64
import html
import os
import re

import mdrender  # scripts/mdrender.py: the lab's Markdown as HTML
from report_tables import ROOT, count, criterion, manifest_rows, rel, rule_of

TITLE = "bagnold report"


def h(s):
    return html.escape(str(s), quote=True)


def caption_of(fig):
    """The figure's caption: the first comment paragraph of its script, without
    the 'NAME.gp:' prefix."""
    gp = os.path.join(ROOT, "reports", fig + ".gp")
    if not os.path.isfile(gp):
        return fig
    text = []
    with open(gp, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            line = re.sub(r"^# ?", "", line.rstrip("\n"))
            if not line.strip():
                break
            text.append(line)
    t = re.sub(r"^" + re.escape(fig) + r"\.gp: *", "", " ".join(text))
    return t[:1].upper() + t[1:]


def png_data(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode("ascii")


# --- the report: one document written twice (Markdown and HTML) --------------------

CSS = """
  body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1d1d1f; background: #fafafa;
         margin: 0; line-height: 1.5; }
  main { max-width: 1100px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
  h1 { font-size: 1.7em; margin: 0.2em 0 0.4em; }
  h2 { font-size: 1.35em; margin-top: 2em; padding-bottom: 0.2em; border-bottom: 2px solid #e4e4e4; }
  h3 { font-size: 1.1em; margin-top: 1.6em; color: #333; }
  h4 { font-size: 1em; margin-top: 1.4em; color: #333; }
  h5, h6 { font-size: 0.95em; color: #444; }
  code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #f1f1f1; padding: 0 3px; border-radius: 3px; }
  pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 0.8em; }
  pre code { background: none; padding: 0; }
  dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
  dl.meta dt { color: #666; }
  dl.meta dd { margin: 0; word-break: break-word; }
  .summary { font-size: 1.1em; font-weight: bold; margin: 1.2em 0; padding: 10px 14px; border-radius: 6px; }
  .summary.ok { background: #e7f5ea; border-left: 5px solid #2e7d32; }
  .summary.bad { background: #fdecec; border-left: 5px solid #c62828; }
  .summary.skip, .summary.recorded { background: #f3f3f3; border-left: 5px solid #9e9e9e; font-weight: normal; font-size: 1em; }
  .warn { background: #fff8e1; border-left: 5px solid #f9a825; padding: 6px 14px; margin: 0.8em 0; border-radius: 6px; }
  .warn ul { margin: 0.2em 0; padding-left: 1.2em; }
  table { border-collapse: collapse; width: 100%; font-size: 0.86em; margin: 0.6em 0; }
  th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
  th { background: #f4f4f4; }
  th.group { text-align: center; background: #eceff1; }
  td.num { text-align: right; font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
  .verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; }
  .verdict.pass { color: #1b5e20; background: #d8f0dc; }
  .verdict.fail { color: #b71c1c; background: #fbdada; }
  .verdict.then { color: #37474f; background: #eceff1; font-weight: normal; }
  tr.unexp td { background: #fff4e5; }
  tr.changed td { background: #fffde7; }
  tr.gone td { color: #777; }
  .tag { font-size: 0.8em; padding: 1px 6px; border-radius: 10px; white-space: nowrap; }
  .tag.miss { background: #eceff1; color: #455a64; border: 1px solid #b0bec5; }
  .tag.unexpected { background: #c62828; color: #fff; }
  .tag.now-unexpected { background: #fff; color: #bf360c; border: 1px solid #ef6c00; }
  .tag.changed { background: #fff59d; color: #5d4037; border: 1px solid #fbc02d; }
  .tag.gone { background: #f5f5f5; color: #616161; border: 1px dashed #9e9e9e; }
  .state.finished { color: #1b5e20; } .state.crash { color: #b71c1c; font-weight: bold; } .state.skipped { color: #777; }
  figure { margin: 1.2em 0; text-align: center; }
  figure img { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
  figcaption { font-size: 0.88em; color: #555; margin-top: 4px; text-align: left; }
  ul.notes li { margin-bottom: 0.5em; }
  .glossary { font-size: 0.92em; background: #fbfbfb; border: 1px solid #eee; padding: 4px 16px; border-radius: 6px; }
  .glossary li { margin-bottom: 0.25em; }
  .muted { color: #777; }
  .md table { width: auto; min-width: 50%; }
"""


class Doc:
    """The report written as Markdown and as HTML side by side."""

    def __init__(self):
        self.md, self.html = [], []

    def add(self, md=None, html_=None):
        if md is not None:
            self.md.append(md)
        if html_ is not None:
            self.html.append(html_)

    def markdown(self, text, offset=0):
        """A Markdown file or text, in both (HTML through mdrender)."""
        self.md.append(mdrender.shift_headings(text, offset).rstrip("\n") + "\n\n")
        self.html.append('<div class="md">\n' + mdrender.to_html(text, heading_offset=offset, align=True) + "</div>\n")

    def figure(self, key, png, caption, md_note=""):
        self.md.append(f"![{key}](figures/{key}.png)\n\n*{caption}* (`figures/{key}.png`{md_note})\n\n")
        self.html.append(f'<figure><img alt="{h(key)}" src="data:image/png;base64,{png_data(png)}">'
                         f"<figcaption><strong>{h(key)}.</strong> {h(caption)}</figcaption></figure>\n")


def glossary_md(refs):
    seed_dir = os.path.join(refs, "seed")
    seed_files = sorted(f for f in os.listdir(seed_dir)) if os.path.isdir(seed_dir) else []
    seed_where = ", ".join(f"`{rel(os.path.join(seed_dir, f))}`" for f in seed_files) or "`references/seed/`"
    return f"""- **claim**: one checked statement, a row of `references/claims.tsv` with an id `run.quantity`: a measured value held against an expected value by a compare rule and a tolerance.
- **measured, expected, tolerance**: the run's number; the reference value it is compared with (a number of the table, or for a row whose expected reads `fed` the input the run was fed, read back from the library); the allowed deviation, one per scale (`tol_quick`, `tol_paper`).
- **compare rule**: `abs` passes when |measured − expected| ≤ tolerance; `rel` when |measured − expected| ≤ tolerance × |expected|; `max` when measured ≤ tolerance (expected is the ideal value, shown only); `min` when measured ≥ tolerance. The criterion column writes the rule out.
- **verdict**: pass or fail, the rule applied to the measured value (a NaN fails); at quick scale **refuted** where the rule passes but the recorded paper run of the same claim (reports/results/h200 or h100, re-judged by today's row) fails it, so a quick pass is never shown where the paper data contradicts it; a record judges only its entry's standard run, not one fed other inputs.
- **`expect`**: the verdict the table expects: `pass`, `fail`, or `quick=…,paper=…` where it is known to change with the resolution (`quick=refuted` for a quick pass the paper run refutes). A run's ctest fails when a verdict differs from it.
- **documented miss**: a fail the claims table expects; the claim's description there says why (a limit of the model, or of the seed's claim). It does not fail the report.
- **unexpected**: a verdict that differs from `expect`, either way: a fail where a pass is expected, or a pass of a documented miss (then the table needs an update). It fails the report.
- **kind**: where the expected value comes from: `analytic` (derived from the model), `literature` (a published value; `source` is a key into `references/references.bib`), `seed` (the seed's reported result), `baseline` (our own regression value, which may be re-blessed; never a literature value).
- **the seed**: the original system whose reported results the `seed` claims quote; those results, kept apart from the literature as a comparison and never a target, are in {seed_where}.
- **mutant**: a named change to the model, the scene, the measurement or a search's protocol that a correct lab must detect. `references/mutants.tsv` lists for each claim the mutants that must flip its verdict ("killed by" below); `ctest -L mutants` checks that they do.
- **judged then, now**: a recorded run's verdicts as its executable wrote them, against the claims table of its day; "now" applies today's table (rule, tolerance at the run's scale, expect) to the same measured value.
"""


def claims_rows_md(claims, table, kills):
    out = ["| claim | measured | expected | criterion | unit | verdict | expect | source | killed by (mutant) |",
           "|---|---:|---:|---|---|---|---|---|---|"]
    for c in claims:
        crit = criterion(rule_of(c, table), c["expected"], c["tolerance"])
        v, x = c.get("verdict", ""), c.get("expect", "")
        if v == "fail" and x == "fail":
            v = "fail (documented miss)"
        elif v == "refuted" and x == "refuted":
            v = f"refuted: passes here, the paper run fails it ({c.get('paper_record', '')})"
        elif v != x:
            v = f"**{v.upper()}: unexpected**"
        k = ", ".join(f"{m['mutant']} ({m.get('kind', '')})" for m in kills.get(c["claim"], [])) or "none"
        out.append("| " + " | ".join(mdrender.md_cell(x) for x in (
            f"`{c['claim']}`", c["measured"], c["expected"], crit, c.get("unit", ""), v, x,
            c.get("source", ""), k)) + " |")
    return "\n".join(out) + "\n\n"


def claims_rows_html(claims, table, kills):
    out = ['<table class="claims"><thead><tr><th>claim</th><th>measured</th><th>expected</th><th>criterion</th>'
           "<th>unit</th><th>verdict</th><th>expect</th><th>source</th><th>killed by (mutant)</th></tr></thead><tbody>"]
    for c in claims:
        cid = c["claim"]
        crit = criterion(rule_of(c, table), c["expected"], c["tolerance"])
        v, x = c.get("verdict", ""), c.get("expect", "")
        miss, unexp = v in ("fail", "refuted") and x == v, v != x
        cls = "pass" if v == "pass" else "fail"
        tag = (f' <span class="tag unexpected">refuted by the paper run: {h(c.get("paper_record", ""))}</span>'
               if v == "refuted" else
               ' <span class="tag miss">documented miss</span>' if miss else
               ' <span class="tag unexpected">unexpected</span>' if unexp else "")
        ms = kills.get(cid, [])
        k = ", ".join(f"{m['mutant']} ({m.get('kind', '')})" for m in ms) or "none"
        kt = " | ".join(f"{m['mutant']}: {m.get('description', '')}" for m in ms)
        desc = table.get(cid, {}).get("description", "")
        out.append(f'<tr class="{cls}{" unexp" if unexp else ""}"><td><code title="{h(desc)}">{h(cid)}</code></td>'
                   f'<td class="num">{h(c["measured"])}</td><td class="num">{h(c["expected"])}</td><td>{h(crit)}</td>'
                   f'<td>{h(c.get("unit", ""))}</td><td><span class="verdict {cls}">{h(v)}</span>{tag}</td>'
                   f'<td>{h(x)}</td><td>{h(c.get("source", ""))}</td><td title="{h(kt)}">{h(k)}</td></tr>')
    out.append("</tbody></table>\n")
    return "\n".join(out)


def claim_notes(doc, claims, table):
    """Documented misses and unexpected verdicts, each with its description."""
    md, ht = [], []
    for c in claims:
        v, x, cid = c.get("verdict"), c.get("expect"), c["claim"]
        if not (x in ("fail", "refuted") or v != x):
            continue
        d = table.get(cid, {}).get("description") or "(not in references/claims.tsv)"
        if not d.endswith((".", "!", "?")):
            d += "."
        rule = rule_of(c, table)
        crit = criterion(rule, c["expected"], c["tolerance"], c.get("unit", ""))
        what = ("documented miss" if v == "fail" and x == "fail" else
                f"a quick pass refuted by the recorded paper run ({c.get('paper_record', '')})" if v == x == "refuted"
                else f"unexpected {v} (the table expects {x})")
        meas = f"measured {c['measured']} {c.get('unit', '')}; the claim holds it to {crit}"
        md.append(f"- **{cid}** ({what}): {meas}. {d}")
        ht.append(f'<li><code>{h(cid)}</code> <span class="tag {"miss" if v == x else "unexpected"}">{h(what)}</span> '
                  f'{h(meas)}. <span class="muted">references/claims.tsv:</span> {h(d)}</li>')
    if md:
        doc.add("Misses and surprises, explained by references/claims.tsv:\n\n" + "\n".join(md) + "\n\n",
                "<p>Misses and surprises, explained by <code>references/claims.tsv</code>:</p><ul class=\"notes\">\n"
                + "\n".join(ht) + "\n</ul>\n")



# --- the page's parts, in the order they appear -------------------------------------

def head(doc, meta, warnings, summary, ok):
    """The title, the report's meta lines, its warnings and its summary line."""
    doc.add(f"# {TITLE}\n\n" + "".join(f"- {k}: {v}\n" for k, v in meta) + "\n")
    doc.add(None, f'<h1>{h(TITLE)}</h1>\n<dl class="meta">\n' + "".join(
        f"<dt>{h(k)}</dt><dd>{'<code>' + h(v) + '</code>' if k in ('commit', 'claims table') else h(v)}</dd>\n"
        for k, v in meta) + "</dl>\n")
    if warnings:
        doc.add("**Warnings:**\n\n" + "".join(f"- {w}\n" for w in warnings) + "\n",
                '<div class="warn"><strong>Warnings</strong><ul>' + "".join(f"<li>{h(w)}</li>" for w in warnings)
                + "</ul></div>\n")
    doc.add(f"**{summary}**\n\n", f'<p class="summary {"ok" if ok else "bad"}">{h(summary)}</p>\n')


def runs_table(doc, selected, claims_of, state, note):
    """One row per selected run: its state and its claims counted."""
    md = ["| run | status | claims | pass | fail | unexpected |", "|---|---|---:|---:|---:|---:|"]
    ht = ["<table><thead><tr><th>run</th><th>status</th><th>claims</th><th>pass</th><th>fail</th>"
          "<th>unexpected</th></tr></thead><tbody>"]
    for e in selected:
        name = e["name"]
        n, p, f_, _, uf, up = count(claims_of.get(name, []))
        md.append(f"| {name} | {state[name]} ({mdrender.md_cell(note[name])}) | {n} | {p} | {f_} | {uf + up} |")
        ht.append(f'<tr><td><a href="#run-{h(name)}">{h(name)}</a></td><td><span class="state {state[name]}">'
                  f'{state[name]}</span> <span class="muted">({h(note[name])})</span></td><td class="num">{n}</td>'
                  f'<td class="num">{p}</td><td class="num">{f_}</td><td class="num">{uf + up}</td></tr>')
    ht.append("</tbody></table>\n")
    doc.add("\n".join(md) + "\n\n", "\n".join(ht))


def glossary(doc, refs):
    gl = glossary_md(refs)
    doc.add("## Glossary\n\n" + gl + "\n",
            '<h2 id="glossary">Glossary</h2>\n<div class="glossary">' + mdrender.to_html(gl) + "</div>\n")


def run_section(doc, r, e):
    """Registry entry e as report r ran it: its description (reports/NAME.md),
    then its figures and pictures, or why it did not finish; its claims and
    the manifest of the run."""
    name, binary = e["name"], e["binary"]
    rundir = os.path.join(r.out, "runs", name)
    doc.add(f"## {name} (`{binary}`)\n\n", f'<h2 id="run-{h(name)}">{h(name)} <code>{h(binary)}</code></h2>\n')
    desc = os.path.join(ROOT, "reports", name + ".md")
    if os.path.isfile(desc):
        with open(desc, encoding="utf-8") as f:
            doc.markdown(f.read(), offset=2)
    else:
        doc.add(f"_No description: write reports/{name}.md._\n\n",
                f'<p class="muted">No description: write reports/{h(name)}.md.</p>\n')
    if r.state[name] != "finished":
        unfinished(doc, name, r.state[name], r.note[name], rundir)
    else:
        run_figures(doc, r, e)
    cl = r.claims_of.get(name, [])
    if cl:
        doc.add("### Claims\n\n" + claims_rows_md(cl, r.table, r.kills),
                "<h3>Claims</h3>\n" + claims_rows_html(cl, r.table, r.kills))
        claim_notes(doc, cl, r.table)
    man = r.manifests.get(name)
    if man:
        rows = manifest_rows(man)
        doc.add("### Run\n\n" + "".join(f"- {k}: {v}\n" for k, v in rows) +
                f"\nFiles: `runs/{name}/` (TSV, manifest.json, log.txt).\n\n",
                '<h3>Run</h3>\n<dl class="meta">\n' + "".join(f"<dt>{h(k)}</dt><dd>{h(v)}</dd>\n" for k, v in rows)
                + f'</dl>\n<p class="muted">Files: runs/{h(name)}/ (TSV, manifest.json, log.txt).</p>\n')


def unfinished(doc, name, state, note, rundir):
    """Why a run has no figures: not built, or crashed (then its log's last lines)."""
    what = "Not run" if state == "skipped" else "Run crashed"
    cls = "skip" if state == "skipped" else "bad"
    doc.add(f"**{what}: {note}.**\n\n", f'<p class="summary {cls}">{h(what)}: {h(note)}.</p>\n')
    logp = os.path.join(rundir, "log.txt")
    if os.path.isfile(logp) and os.path.getsize(logp):
        with open(logp, encoding="utf-8", errors="replace") as f:
            tail = "".join(f.readlines()[-15:])
        doc.add(f"Last lines of `runs/{name}/log.txt`:\n\n```\n{tail}```\n\n",
                f"<p>Last lines of <code>runs/{h(name)}/log.txt</code>:</p><pre>{h(tail)}</pre>\n")


def run_figures(doc, r, e):
    """A finished run's figures, and its pictures of the sand where the registry asks for them."""
    name = e["name"]
    doc.add("### Figures\n\n", "<h3>Figures</h3>\n")
    for fig in e["figures"]:
        key = f"{name}:{fig}"
        if r.fig_ok.get(key):
            doc.figure(fig, os.path.join(r.figdir, fig + ".png"), caption_of(fig), ", `.svg`")
        else:
            doc.add(f"**Figure {fig} could not be drawn**: {r.fig_why.get(key)}.\n\n",
                    f'<p class="summary bad">Figure {h(fig)} could not be drawn: {h(r.fig_why.get(key))}.</p>\n')
    if e["view"]:
        doc.add("### The sand\n\n", "<h3>The sand</h3>\n")
        for key, png, caption in r.views.get(name, []):
            doc.figure(key, png, caption)
        if not r.views.get(name):
            doc.add(f"**No picture**: {r.view_why.get(name)}.\n\n",
                    f'<p class="summary bad">No picture: {h(r.view_why.get(name, ""))}.</p>\n')


def html_page(doc, date_now):
    """The HTML file: the document's HTML in a page with the style sheet."""
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{h(TITLE)} — {h(date_now)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
            + "".join(doc.html)
            + '<p class="muted">Written by scripts/report.py; every claim of every run is in claims.tsv '
            "next to this page.</p>\n"
            + "</main>\n</body>\n</html>\n")
