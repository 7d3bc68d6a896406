"""report_recorded.py: what the report shows but does not run. The recorded
runs (reports/results/SET/NAME/: figures redrawn from their TSV, claims as
judged then and as today's claims table judges the same numbers) and the
latest head-to-head benchmark (scripts/lab bench compare), as it is."""
import datetime
import os
import shutil

import bglab  # scripts/bglab.py: the lab's verdicts, from its C
import mdrender  # scripts/mdrender.py: the lab's Markdown as HTML
from report_doc import caption_of, h
from report_run import FIG_PREDATES, draw
from report_tables import (ROOT, build_dir, criterion, fmt_rate, num, read_manifest, read_run_claims, refs_dir,
                           table_check, tol_at)


def recorded_section(doc, registry, table, table_sha, figdir):
    """Runs committed under reports/results/SET/NAME/ as they came out (paper
    scale on a lent GPU, long CPU runs): figures redrawn from their TSV by the
    same scripts, claims as judged then and as today's table judges the same
    numbers; never counted in this report's summary."""
    results = os.path.join(ROOT, "reports", "results")
    if not os.path.isdir(results):
        return
    dirs = sorted(os.path.join(results, s, n) for s in os.listdir(results) if os.path.isdir(os.path.join(results, s))
                  for n in os.listdir(os.path.join(results, s)) if os.path.isdir(os.path.join(results, s, n)))
    if not dirs:
        return
    by_name = {e["name"]: e for e in registry}
    intro = ("Runs committed under reports/results/SET/NAME/ as they came out, at a scale or on hardware this "
             "report did not use; they are not counted in the summary above. Figures are redrawn from their TSV. "
             "Their verdicts are shown as judged then, against the claims table of their day, in neutral grey; "
             "beside them, today's table re-judges the same measured value (its rule and tolerance at the run's "
             "scale, its expect), and a yellow row marks a claim whose tolerance, expect or verdict has changed since.")
    doc.add(f"## Recorded runs\n\n{intro}\n\n", f'<h2 id="recorded">Recorded runs</h2>\n<p>{h(intro)}</p>\n')
    prev = None
    for d in dirs:
        set_name = os.path.basename(os.path.dirname(d))
        if set_name != prev:
            prev = set_name
            doc.add(f"### {set_name}\n\n", f'<h3 id="recorded-{h(set_name)}">{h(set_name)}</h3>\n')
            readme = os.path.join(results, set_name, "README.md")
            if os.path.isfile(readme):
                with open(readme, encoding="utf-8") as f:
                    doc.markdown(f.read(), offset=3)
        recorded_run(doc, d, by_name, table, table_sha, figdir)


def recorded_run(doc, d, by_name, table, table_sha, figdir):
    """One recorded run, folder d: its README, its manifest in a line, its
    figures and its claims re-judged."""
    name, set_name = os.path.basename(d), os.path.basename(os.path.dirname(d))
    doc.add(f"#### {set_name} / {name}\n\n",
            f'<h4 id="recorded-{h(set_name)}-{h(name)}">{h(set_name)} / {h(name)}</h4>\n')
    readme = os.path.join(d, "README.md")
    if os.path.isfile(readme):
        with open(readme, encoding="utf-8") as f:
            doc.markdown(f.read(), offset=4)
    man, err = read_manifest(os.path.join(d, "manifest.json"))
    if man:
        line = manifest_line(man, table_sha)
        doc.add(line + "\n\n", f'<p class="muted">{h(line)}</p>\n')
    elif err:
        doc.add(f"**{err}**\n\n", f'<p class="warn">{h(err)}</p>\n')
    for fig in recorded_figures(d, name, man, by_name):
        key = f"{set_name}-{fig}" if name == name.split("-")[0] else f"{set_name}-{name}-{fig}"
        draw_recorded(doc, fig, key, d, figdir)
    claims, cscale = read_run_claims(os.path.join(d, "claims.tsv"))
    if claims:
        recorded_claims(doc, claims, table, man.get("scale") or cscale or "paper")


def manifest_line(man, table_sha):
    rb = man.get("backend") or f"{man.get('backend_requested', '?')} (requested)"
    line = (f"scale {man.get('scale', '?')}, backend {rb}, device {man.get('device') or 'not recorded (see the README above)'}, "
            f"host {man.get('host', '?')}, commit {man.get('commit', '?')}, wall {man.get('wall_s', '?')} s, "
            f"{fmt_rate(man.get('particle_steps_per_s'))}, finished {man.get('date', '?')}; "
            f"command: {man.get('command', '?')}")
    w = table_check(man, table_sha)
    if w:
        line += f". Note: {w}"
    return line


def recorded_figures(d, name, man, by_name):
    """The figures a recorded run's folder can draw: its registry entry's, or
    those of a head-to-head or a GPU benchmark when its files are one."""
    figs = []
    if man:
        # NAME-variant (silo-wide, runout-mui-dpcone) takes the figures of the
        # longest registry name it starts with
        pre = [n for n in by_name if name == n or name.startswith(n + "-")]
        e = by_name[max(pre, key=len)] if pre else None
        figs = e["figures"] if e else []
    if os.path.isfile(os.path.join(d, "counts.tsv")):
        figs = ["compare_counts"]  # a head-to-head across particle counts
    bg_tsv = os.path.join(d, "bench_gpu.tsv")
    if os.path.isfile(bg_tsv) and os.path.getsize(bg_tsv):
        with open(bg_tsv, encoding="utf-8") as f:
            head = f.readline().rstrip("\n").split("\t")
            col = head.index("tag") if "tag" in head else None
            tags = [r.split("\t")[col] for r in f if col is not None and not r.startswith("#")]
        # both figures draw count sweeps (tag counts*); a folder of variants at one count
        # (its README has the table) has none to draw
        if any(t.startswith("counts") for t in tags):
            figs = ["bench_gpu_counts"]
            # a record older than the per-stage byte columns has no bytes to draw
            if "B_p2g" in head:
                figs.append("bench_gpu_bytes")
        # each stage against the copy ceiling, per resource, wherever the byte columns exist
        if "B_p2g" in head and tags:
            figs = figs + ["bench_gpu_roofline"]
    return figs


def draw_recorded(doc, fig, key, d, figdir):
    """Figure fig from recorded folder d as figures/KEY.png, or a line saying why not."""
    gp = os.path.join(ROOT, "reports", fig + ".gp")
    drawn = draw(gp, d, os.path.join(figdir, key), os.path.join(figdir, "recorded.log")) if os.path.isfile(gp) else False
    if drawn is FIG_PREDATES:
        doc.add(f"Figure {fig}: not drawn, this record predates the columns it draws.\n\n",
                f'<p class="muted">Figure {h(fig)}: not drawn, this record predates the columns it draws.</p>\n')
    elif drawn:
        doc.figure(key, os.path.join(figdir, key + ".png"), caption_of(fig))
    else:
        doc.add(f"**Figure {fig} could not be drawn from the recorded TSV** (figures/recorded.log).\n\n",
                f'<p class="summary bad">Figure {h(fig)} could not be drawn from the recorded TSV '
                "(figures/recorded.log).</p>\n")


def rejudge(claims, table, scale):
    """Each recorded claim with what today's table makes of its measured value."""
    now = bglab.rejudge(build_dir(), refs_dir(), scale, [(c["claim"], c["measured"], c["expected"]) for c in claims])
    out = []
    for c in claims:
        cid = c["claim"]
        r = dict(c)
        row = table.get(cid)
        if row is None or now.get(cid) is None:
            r.update(status="gone", now_verdict="", now_expect="", now_crit="", change="no longer in the claims table")
            out.append(r)
            continue
        # today's verdict is the lab's own (bglab_query judge), not a copy of its rule
        r["now_verdict"], r["now_expect"], expected, tol = now[cid]
        # the numbers as the table writes them, where they are the table's
        expected = row.get("expected") if num(row.get("expected")) == num(expected) else expected
        tol = tol_at(row, scale) if num(tol_at(row, scale)) == num(tol) else tol
        r["now_crit"] = criterion(row.get("compare", ""), expected, tol, row.get("unit", ""))
        changes = []
        if num(expected) != num(c["expected"]):
            changes.append(f"expected {c['expected']} → {row.get('expected')}")
        if num(tol) != num(c["tolerance"]):
            changes.append(f"tolerance {c['tolerance']} → {tol}")
        if r["now_expect"] != c.get("expect"):
            changes.append(f"expect {c.get('expect')} → {r['now_expect']}")
        if r["now_verdict"] != c.get("verdict"):
            changes.append(f"verdict {c.get('verdict')} → {r['now_verdict']}")
        r["change"] = "; ".join(changes)
        r["status"] = "changed" if changes else "same"
        out.append(r)
    return out


def now_label(r):
    if r["status"] == "gone":
        return ""
    if r["now_verdict"] == r["now_expect"]:
        return "documented miss" if r["now_verdict"] in ("fail", "refuted") else "as expected"
    return "unexpected now"


def recorded_claims(doc, claims, table, scale):
    rows = rejudge(claims, table, scale)
    n = len(rows)
    then_off = sum(r.get("verdict") != r.get("expect") for r in rows)
    gone = sum(r["status"] == "gone" for r in rows)
    changed = sum(r["status"] == "changed" for r in rows)
    now_off = sum(r["status"] != "gone" and r["now_verdict"] != r["now_expect"] for r in rows)
    summary = (f"{n} claims at scale {scale}. Judged then: {n - then_off} equal to their expect of the day, "
               f"{then_off} not. Re-judged against today's table: {now_off} unexpected, {changed} with a changed "
               f"tolerance, expect or verdict, {gone} no longer in the table.")
    md = [summary, "",
          "| claim | measured | then: expected, tolerance | judged then (expect) | now: criterion | now: verdict (expect) | change |",
          "|---|---:|---|---|---|---|---|"]
    ht = [f'<p class="muted">{h(summary)}</p>',
          '<table class="claims recorded"><thead><tr><th rowspan="2">claim</th><th rowspan="2">measured</th>'
          '<th class="group" colspan="2">judged then</th><th class="group" colspan="2">today\'s claims table</th>'
          '<th rowspan="2">change</th></tr><tr><th>expected, tolerance</th><th>verdict (expect)</th>'
          "<th>criterion</th><th>verdict (expect)</th></tr></thead><tbody>"]
    for r in rows:
        unit = r.get("unit", "")
        meas = f"{r['measured']} {unit}" if unit and unit != "1" else r["measured"]
        then = f"{r.get('verdict', '')} ({r.get('expect', '')})"
        lab = now_label(r)
        now = "—" if r["status"] == "gone" else f"{r['now_verdict']} ({r['now_expect']})"
        change = r["change"] or "same"
        md.append("| " + " | ".join(mdrender.md_cell(x) for x in (
            f"`{r['claim']}`", meas, f"{r['expected']}, {r['tolerance']}", then, r["now_crit"] or "—",
            now + (f": {lab}" if lab else ""), change)) + " |")
        desc = table.get(r["claim"], {}).get("description", "")
        if r["status"] == "gone":
            nowcell, cls = '<span class="tag gone">not in today\'s table</span>', "gone"
        else:
            vcls = "pass" if r["now_verdict"] == "pass" else "fail"
            tcls = {"as expected": "miss", "documented miss": "miss"}.get(lab, "now-unexpected")
            nowcell = (f'<span class="verdict {vcls}">{h(r["now_verdict"])}</span> ({h(r["now_expect"])}) '
                       f'<span class="tag {tcls}">{h(lab)}</span>')
            cls = "changed" if r["status"] == "changed" else ""
        chcell = (f'<span class="tag changed">changed</span> {h(r["change"])}' if r["status"] == "changed"
                  else f'<span class="tag gone">gone</span>' if r["status"] == "gone" else '<span class="muted">same</span>')
        ht.append(f'<tr class="{cls}"><td><code title="{h(desc)}">{h(r["claim"])}</code></td>'
                  f'<td class="num">{h(meas)}</td><td>{h(r["expected"])}, {h(r["tolerance"])}</td>'
                  f'<td><span class="verdict then">{h(then)}</span></td><td>{h(r["now_crit"] or "—")}</td>'
                  f"<td>{nowcell}</td><td>{chcell}</td></tr>")
    ht.append("</tbody></table>\n")
    doc.add("\n".join(md) + "\n\n", "\n".join(ht))


def compare_section(doc, build, figdir):
    """The latest head-to-head (scripts/lab bench compare), not re-run here
    (it takes minutes and needs Taichi and Warp): shown as it is, its Markdown
    rendered by the same renderer compare.py uses."""
    cmp = os.path.join(build, "bench", "compare")
    mdp = os.path.join(cmp, "compare.md")
    if not (os.path.isfile(mdp) and os.path.getsize(mdp)):
        return
    when = datetime.datetime.fromtimestamp(os.path.getmtime(mdp), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with open(mdp, encoding="utf-8") as f:
        text = f.read()
    doc.add("## Head-to-head: bagnold, Taichi, Warp\n\n"
            f"_The latest `scripts/lab bench compare` output ({when}, from `{cmp}`); the report does not re-run it._\n\n",
            '<h2 id="bench-compare">Head-to-head: bagnold, Taichi, Warp</h2>\n'
            f'<p class="muted">The latest <code>scripts/lab bench compare</code> output ({h(when)}, from {h(cmp)}); '
            "the report does not re-run it.</p>\n")
    doc.markdown(text, offset=2)
    png = os.path.join(cmp, "compare.png")
    if os.path.isfile(png) and os.path.getsize(png):
        shutil.copyfile(png, os.path.join(figdir, "bench_compare.png"))
        doc.figure("bench_compare", os.path.join(figdir, "bench_compare.png"),
                   "Median particle-steps/s per solver, bars min..max over the interleaved repetitions.")
