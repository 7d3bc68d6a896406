"""run_notebook.py NOTEBOOK OUT: executes a notebook with nbclient (the
kernel is this interpreter's), fails on any cell's error, and writes the
executed copy to OUT; then checks what the first-hour notebook must show:
a deposit profile figure and a rendered frame (two PNG outputs) and its
printed runout."""

from __future__ import annotations

import re
import sys

import nbformat
from nbclient import NotebookClient


def main() -> int:
    src, out = sys.argv[1], sys.argv[2]
    nb = nbformat.read(src, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}}).execute()
    nbformat.write(nb, out)
    pngs = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}))
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    m = re.search(r"runout ([0-9.]+) R0", text)
    print(f"executed {src}: {pngs} images; {m.group(0) if m else 'no runout printed'}")
    if pngs < 2:
        print("FAIL: the notebook should show the deposit profile and a rendered frame", file=sys.stderr)
        return 1
    if not m or not 1.3 < float(m.group(1)) < 3.0:
        print("FAIL: no plausible runout printed (1.3 to 3 R0 for this column)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
