#!/usr/bin/env python3
"""read_vtu.py OUT: re-reads what test_vtu wrote into OUT with a parser of
its own (xml.etree for the XML, numpy for the raw appended block and its
UInt64 headers) and compares every array with the dump the C side took from
bg_sim_get. With meshio importable, meshio reads every frame too and must
agree. Exit 0 pass, 1 a mismatch, 77 when numpy is missing (skip).

Checked: the .pvd lists exactly the dumped frames, in order, with their
times; each .vtu is LittleEndian / UInt64 headers / appended raw; every
block's byte count is NumberOfPoints x components x size; the blocks tile
the appended section with no gap or overlap and the file closes after the
last one; positions, velocity, F, stress, q, density, mass, active, mode and
material equal the dump bit for bit; pressure, von Mises and log Jp equal what
follows from the dumped stress and Jp (float32 rounding); the vertex cells
are 0..n-1, offsets 1..n, type 1."""
import os
import sys
import xml.etree.ElementTree as ET

try:
    import numpy as np
except ImportError:
    print("numpy is missing: skipped")
    sys.exit(77)

FIELDS = [("position", 3), ("velocity", 3), ("deformation_gradient", 9), ("stress", 9), ("q", 1),
          ("Jp", 1), ("density", 1), ("mass", 1), ("active", 1), ("mode", 1), ("material", 1)]
EXPECT_POINT_DATA = ["velocity", "deformation_gradient", "stress", "pressure", "von_mises", "q", "log_Jp",
                     "density", "mass", "active", "mode", "material"]
DTYPES = {"Float32": "<f4", "Float64": "<f8", "Int64": "<i8", "UInt8": "u1"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def read_vtu(path):
    """Returns (n_points, {name: array (n, comps)}, time) parsed from the file."""
    data = open(path, "rb").read()
    start = data.find(b"<AppendedData")
    if not check(start > 0, f"{path}: no <AppendedData>"):
        return None
    under = data.find(b"_", data.find(b">", start))
    raw = memoryview(data)[under + 1:]
    root = ET.fromstring(data[:start] + b"</VTKFile>")
    check(root.get("type") == "UnstructuredGrid", f"{path}: type {root.get('type')}")
    check(root.get("byte_order") == "LittleEndian", f"{path}: byte_order {root.get('byte_order')}")
    check(root.get("header_type") == "UInt64", f"{path}: header_type {root.get('header_type')}")
    piece = root.find("UnstructuredGrid/Piece")
    n = int(piece.get("NumberOfPoints"))
    check(int(piece.get("NumberOfCells")) == n, f"{path}: NumberOfCells != NumberOfPoints")
    arrays, blocks = {}, []
    for da in root.iter("DataArray"):
        name, typ = da.get("Name"), da.get("type")
        check(da.get("format") == "appended", f"{path}: {name} format {da.get('format')}")
        comps = int(da.get("NumberOfComponents", "1"))
        tuples = int(da.get("NumberOfTuples", n))
        off = int(da.get("offset"))
        nbytes = int(np.frombuffer(raw[off:off + 8], "<u8")[0])
        size = np.dtype(DTYPES[typ]).itemsize
        check(nbytes == tuples * comps * size,
              f"{path}: {name} block holds {nbytes} bytes, {tuples} x {comps} x {size} expected")
        arr = np.frombuffer(raw[off + 8:off + 8 + nbytes], DTYPES[typ])
        if arr.size % comps == 0:
            arr = arr.reshape(-1, comps)
        arrays[name] = arr
        blocks.append((off, off + 8 + nbytes, name))
    blocks.sort()
    pos = 0
    for a, b, name in blocks:
        check(a == pos, f"{path}: block {name} starts at {a}, the previous one ended at {pos}")
        pos = b
    tail = bytes(raw[pos:]).strip()
    check(tail == b"</AppendedData>\n</VTKFile>".replace(b"\n", b"\n") or
          tail.split() == [b"</AppendedData>", b"</VTKFile>"],
          f"{path}: after the last block: {tail[:60]!r}")
    names = [d.get("Name") for d in piece.find("PointData")]
    check(names == EXPECT_POINT_DATA, f"{path}: point data {names}")
    check([d.get("Name") for d in piece.find("Points")] == ["position"], f"{path}: Points")
    t = float(arrays["TimeValue"][0][0]) if "TimeValue" in arrays else None
    return n, arrays, t


def read_dump(path, n):
    flat = np.fromfile(path, "<f4")
    out, off = {}, 0
    for name, w in FIELDS:
        out[name] = flat[off:off + n * w].reshape(n, w)
        off += n * w
    check(off == flat.size, f"{path}: {flat.size} floats, {off} expected")
    return out


def compare_frame(vtu, dump, n, t_dump):
    r = read_vtu(vtu)
    if r is None:
        return
    nv, a, t = r
    if not check(nv == n, f"{vtu}: {nv} points, the dump has {n}"):
        return
    check(t is not None and t == t_dump, f"{vtu}: TimeValue {t}, dump {t_dump}")
    for name, w in FIELDS:
        if name == "Jp":
            continue
        check(a[name].shape == (n, w) and np.array_equal(a[name], dump[name]),
              f"{vtu}: {name} differs from bg_sim_get")
    s = dump["stress"].astype(np.float64).reshape(n, 3, 3)
    tr = np.trace(s, axis1=1, axis2=2)
    dev = s - tr[:, None, None] / 3 * np.eye(3)
    vm = np.sqrt(1.5 * np.sum(dev * dev, axis=(1, 2)))
    for name, want in (("pressure", -tr / 3), ("von_mises", vm),
                       ("log_Jp", np.log(dump["Jp"][:, 0].astype(np.float64)))):
        got = a[name][:, 0].astype(np.float64)
        scale = max(1.0, float(np.max(np.abs(want)))) if n else 1.0
        check(got.shape == (n,) and np.allclose(got, want, rtol=1e-6, atol=1e-6 * scale),
              f"{vtu}: {name} is not what the stress/Jp give (max diff "
              f"{np.max(np.abs(got - want)) if n else 0})")
    check(np.array_equal(a["connectivity"][:, 0], np.arange(n)), f"{vtu}: connectivity is not 0..n-1")
    check(np.array_equal(a["offsets"][:, 0], np.arange(1, n + 1)), f"{vtu}: offsets are not 1..n")
    check(np.all(a["types"] == 1), f"{vtu}: a cell type is not VTK_VERTEX")
    if n:
        check(np.any(dump["mode"] > 0) or t_dump == 0, f"{vtu}: no particle yielded (mode) in a collapse")
    try:
        import meshio
    except ImportError:
        return
    m = meshio.read(vtu)
    check(np.array_equal(m.points.astype(np.float32), dump["position"]), f"meshio {vtu}: points differ")
    for name, w in FIELDS[1:]:
        if name == "Jp":
            continue
        got = np.asarray(m.point_data[name]).reshape(n, w)
        check(np.array_equal(got, dump[name]), f"meshio {vtu}: {name} differs")
    check(sum(len(c.data) for c in m.cells) == n, f"meshio {vtu}: cell count")


def main():
    out = sys.argv[1]
    series = os.path.join(out, "series", "frames")
    pvd = os.path.join(series, "collapse.pvd")
    root = ET.parse(pvd).getroot()
    check(root.get("type") == "Collection", f"{pvd}: type {root.get('type')}")
    entries = [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]
    rows = [line.split("\t") for line in open(os.path.join(out, "dump.tsv")).read().splitlines()[1:]]
    check(len(entries) == len(rows), f"{pvd}: {len(entries)} frames listed, {len(rows)} dumped")
    vtus = sorted(f for f in os.listdir(series) if f.endswith(".vtu"))
    check(vtus == sorted(f for _, f in entries), f"{series}: files on disk {vtus} != the index's")
    for k, ((t, f), row) in enumerate(zip(entries, rows)):
        check(f == "collapse_%06d.vtu" % k, f"{pvd}: frame {k} is {f}")
        check(t == float(row[1]), f"{pvd}: frame {k} at t {t}, dumped at {row[1]}")
        n = int(row[2])
        try:
            compare_frame(os.path.join(series, f), read_dump(os.path.join(out, "dump_%06d.bin" % k), n), n,
                          float(row[1]))
        except Exception as e:  # a malformed file is a failed check, with the others still run
            check(False, f"{f}: {type(e).__name__}: {e}")
    check(len(entries) >= 3 and entries == sorted(entries), f"{pvd}: frames not in time order")
    r = read_vtu(os.path.join(out, "empty.vtu"))
    check(r is not None and r[0] == 0 and all(v.size == 0 for k, v in r[1].items() if k != "TimeValue"),
          "empty.vtu: not an empty grid")
    try:
        import meshio  # noqa: F401
        how = "xml.etree + numpy and meshio"
    except ImportError:
        how = "xml.etree + numpy (meshio not importable)"
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print(f"PASS: {len(entries)} frames and empty.vtu read back with {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
