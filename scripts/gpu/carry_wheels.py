#!/usr/bin/env python3
"""carry_wheels.py: the head-to-head's Python peers, carried to a GPU machine
that has no package index (scripts/gpu/peers_gpu.sh runs them there).

A device call carries at most 64 MiB (the working tree included), and the
peers' wheels are far larger: Warp 1.19 alone is 110 MiB, genesis-world with
the dependencies the device lacks about 240 MiB. So, here (with PyPI):

  carry_wheels.py prep OUT [--budget-mib 58] [--no-genesis]

downloads the pinned wheels for the device's Python (3.12, manylinux x86_64),
reduces the three largest to what a CUDA run imports (Warp: no CPU compiler,
tests or examples, machine code for sm_90 only; Taichi: no C API, headers or
examples; genesis-world: no robot meshes, URDF or MJCF assets, which its MPM
path never opens), cuts any file larger than a chunk into parts, and packs
everything into OUT/chunkNN/ folders of at most --budget-mib MiB each, with
OUT/manifest.tsv (file, sha256, parts, target). Then, on the device, one call
per chunk while the machine stays warm (it is released after 30 s idle):

  python3 scripts/gpu/carry_wheels.py stage OUT/chunkNN      (carry OUT/chunkNN)
  ...
  python3 scripts/gpu/carry_wheels.py install OUT/manifest.tsv  (carry OUT/manifest.tsv)

stage copies a chunk to /tmp/carry-stage; install joins the parts, checks
every sha256, installs the peers' wheels into /tmp/site (PYTHONPATH) and
genesis-world's into /tmp/gsite, and writes /tmp/gpy, a Python that sees
/tmp/gsite only (genesis needs trimesh 5, geotaichi trimesh 3). Then:

  PYTHONPATH=/tmp/site GEOTAICHI=1 GENESIS_PYTHON=/tmp/gpy WHEEL_DIR=/none \\
      scripts/gpu/peers_gpu.sh OUT ff1M col1M

Exit status: 0 done, 1 a download, check or install failed, 2 bad usage.
"""
import argparse
import base64
import fnmatch
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

MIB = 1 << 20
STAGE = "/tmp/carry-stage"
PLATFORMS = ["manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64"] + \
    [f"manylinux_2_{n}_x86_64" for n in range(5, 40)]

# (distribution, version, target): peers go to /tmp/site, genesis to /tmp/gsite
PEERS = [("taichi", "1.7.4"), ("dill", "0.4.1"), ("warp-lang", "1.19.0"), ("geotaichi", "0.2.6"),
         ("trimesh", "3.20.1"), ("shapely", "2.2.0")]
# genesis-world 1.4.5 and what its MPM path imports that the device's image lacks
# (its torch, numpy, scipy, numba, ... are there): found by blocking imports one
# at a time on the CPU machine
GENESIS = [("genesis-world", "1.4.5"), ("quadrants", "1.3.3"), ("av", "19.0.2"), ("z3-solver", "4.15.4.0"),
           ("libigl", "2.6.3"), ("mujoco-core", "4.0.1"), ("mujoco-studio", "4.0.1"), ("mujoco", "4.0.1"),
           ("zstandard", "0.25.0"), ("DracoPy", "2.2.0"), ("PyOpenGL", "3.1.10"), ("coacd", "1.0.14"),
           ("pydantic-core", "2.50.5"), ("OpenEXR", "3.5.3"), ("PyGEL3D", "0.8.2"), ("pyglet", "2.1.19"),
           ("freetype-py", "2.5.1"), ("trimesh", "5.2.0"), ("pydantic", "2.14.4"), ("tetgen", "0.8.2"),
           ("fast-simplification", "0.2.0"), ("cffi", "2.1.1"), ("pycparser", "3.12"), ("dill", "0.4.1"),
           ("xacro", "2.1.1"), ("typing-inspection", "0.4.5"), ("pygltflib", "1.16.0"),
           ("marshmallow", "3.26.2"), ("frozendict", "2.5.1"), ("dataclasses-json", "0.6.7"),
           ("annotated-types", "0.8.0")]
# members dropped from the largest wheels (fnmatch patterns), and machine code kept
REDUCE = {
    "warp_lang": dict(drop=["warp/bin/warp-clang.so", "warp/examples/*", "warp/tests/*"],
                      fatbin=["warp/bin/warp.so"], keep_sm=90),
    "taichi": dict(drop=["taichi/_lib/c_api/*", "taichi/examples/*"], fatbin=[], keep_sm=0),
    "genesis_world": dict(drop=["genesis/assets/meshes/*", "genesis/assets/urdf/*", "genesis/assets/xml/*"],
                          fatbin=[], keep_sm=0),
}


def die(code, msg):
    print(f"carry_wheels: error: {msg}", file=sys.stderr)
    sys.exit(code)


def log(msg):
    print(f"carry_wheels: {msg}", file=sys.stderr, flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def zero_fatbin(data, keep_sm):
    """The payload of every entry of the .nv_fatbin section zeroed but the
    machine code for sm_<keep_sm>: the headers stay, so the driver still
    parses the container and finds that cubin; zeros compress to nothing."""
    with tempfile.NamedTemporaryFile() as t:
        t.write(data)
        t.flush()
        out = subprocess.check_output(["readelf", "-S", "-W", t.name]).decode()
    off = size = None
    for line in out.splitlines():
        if ".nv_fatbin" in line:
            parts = line.split("]")[1].split()
            off, size = int(parts[3], 16), int(parts[4], 16)
    if off is None:
        return data, 0
    data = bytearray(data)
    pos, end, zeroed = off, off + size, 0
    while pos < end:
        magic, _ver, hsz, fsz = struct.unpack_from("<IHHQ", data, pos)
        if magic != 0xBA55ED50:
            pos += 8
            continue
        e, eend = pos + hsz, pos + hsz + fsz
        while e < eend:
            kind, _, ehsz, psz = struct.unpack_from("<HHIQ", data, e)
            arch = struct.unpack_from("<I", data, e + 28)[0]
            if not (kind == 2 and arch == keep_sm):
                data[e + ehsz:e + ehsz + psz] = bytes(psz)
                zeroed += psz
            e += ehsz + psz
        pos = eend
    return bytes(data), zeroed


def reduce_wheel(src, dst, drop, fatbin, keep_sm):
    """src without the members matching drop, fatbin members cut to keep_sm,
    and a RECORD with the sha256 and size of every member kept."""
    zin = zipfile.ZipFile(src)
    record = next(n for n in zin.namelist() if n.endswith(".dist-info/RECORD"))
    rows = []
    with zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for info in zin.infolist():
            n = info.filename
            if n == record or any(fnmatch.fnmatch(n, g) for g in drop):
                continue
            data = zin.read(n)
            if keep_sm and any(fnmatch.fnmatch(n, g) for g in fatbin):
                data, z = zero_fatbin(data, keep_sm)
                log(f"{os.path.basename(src)}: {n}: {z / MIB:.0f} MiB of other architectures' code zeroed")
            zi = zipfile.ZipInfo(n, date_time=info.date_time)
            zi.external_attr = info.external_attr
            zi.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(zi, data, compresslevel=9)
            h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{n},sha256={h},{len(data)}")
        rows.append(f"{record},,")
        zout.writestr(zipfile.ZipInfo(record, date_time=(2026, 1, 1, 0, 0, 0)), "\n".join(rows) + "\n")
    os.replace(dst + ".tmp", dst)


def download(pins, dest):
    os.makedirs(dest, exist_ok=True)
    plat = sum((["--platform", p] for p in PLATFORMS), [])
    for name, ver in pins:
        # --ignore-requires-python: geotaichi 0.2.6 declares Python <= 3.11 and runs on 3.12
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version",
               "3.12", "--implementation", "cp", "--ignore-requires-python", *plat, "-d", dest, f"{name}=={ver}"]
        if subprocess.run(cmd).returncode == 0:
            continue
        # a pure-Python package published as a source archive only (pygltflib): its wheel, built here
        log(f"{name}=={ver}: no binary wheel; building one from the source archive")
        cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dest, f"{name}=={ver}"]
        if subprocess.run(cmd).returncode != 0:
            die(1, f"cannot get {name}=={ver}")


def prep(a):
    out = os.path.abspath(a.out)
    if os.path.exists(out) and os.listdir(out):
        die(2, f"{out} is not empty: give a new folder")
    dl, red = os.path.join(out, "download"), os.path.join(out, "reduced")
    os.makedirs(red)
    sets = [("site", PEERS)] + ([] if a.no_genesis else [("gsite", GENESIS)])
    files = []  # (path, target)
    for target, pins in sets:
        d = os.path.join(dl, target)
        log(f"downloading {len(pins)} wheels for {target}")
        download(pins, d)
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            key = f.split("-")[0].lower()
            if key in REDUCE:
                r = os.path.join(red, target)
                os.makedirs(r, exist_ok=True)
                q = os.path.join(r, f)
                reduce_wheel(p, q, **REDUCE[key])
                log(f"{f}: {os.path.getsize(p) / MIB:.1f} -> {os.path.getsize(q) / MIB:.1f} MiB")
                p = q
            files.append((p, target))
    # parts of at most a chunk, then chunks packed largest first
    budget = int(a.budget_mib * MIB)
    pieces = []  # (size, path, name, part index, parts, sha)
    # a wheel both sets pin (dill) travels once and is installed into each
    targets = {}  # name -> [(target, sha, parts)]
    for p, target in files:
        n, sz, sha = os.path.basename(p), os.path.getsize(p), sha256(p)
        k = max(1, -(-sz // budget))
        if n not in targets:
            for i in range(k):
                pieces.append((min(budget, sz - i * budget), p, n, i, k, sha))
        targets.setdefault(n, []).append((target, sha, k))
    pieces.sort(key=lambda t: -t[0])
    chunks = []  # [used, [pieces]]
    for pc in pieces:
        for c in chunks:
            if c[0] + pc[0] <= budget:
                c[0] += pc[0]
                c[1].append(pc)
                break
        else:
            chunks.append([pc[0], [pc]])
    rows = ["# file\tsha256\tparts\ttarget (carry_wheels.py install)"]
    for n, ts in targets.items():
        if len({sha for _, sha, _ in ts}) != 1:
            die(1, f"{n}: two different files under one name")
        rows += [f"{n}\t{sha}\t{k}\t{target}" for target, sha, k in ts]
    for ci, (used, pcs) in enumerate(chunks):
        cdir = os.path.join(out, f"chunk{ci:02d}")
        os.makedirs(cdir)
        for size, p, n, i, k, sha in pcs:
            with open(p, "rb") as f:
                f.seek(i * budget)
                data = f.read(size)
            with open(os.path.join(cdir, f"{n}.part{i:02d}of{k:02d}"), "wb") as g:
                g.write(data)
        log(f"chunk{ci:02d}: {used / MIB:.1f} MiB, {len(pcs)} pieces")
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    shutil.rmtree(dl)
    shutil.rmtree(red)
    log(f"{len(chunks)} chunks in {out}: carry each in its own call (stage), then the manifest (install)")


def stage(a):
    os.makedirs(STAGE, exist_ok=True)
    n = 0
    for f in sorted(os.listdir(a.chunk)):
        shutil.copyfile(os.path.join(a.chunk, f), os.path.join(STAGE, f))
        n += 1
    log(f"{n} pieces of {a.chunk} staged in {STAGE}")


def install(a):
    rows = [l.rstrip("\n").split("\t") for l in open(a.manifest) if l.strip() and not l.startswith("#")]
    whl = os.path.join(STAGE, "wheels")
    os.makedirs(whl, exist_ok=True)
    by_target, missing = {}, []
    for name, sha, parts, target in rows:
        k = int(parts)
        pp = [os.path.join(STAGE, f"{name}.part{i:02d}of{k:02d}") for i in range(k)]
        lost = [p for p in pp if not os.path.isfile(p)]
        if lost:
            missing.append(f"{name} ({len(lost)} of {k} parts)")
            continue
        dst = os.path.join(whl, name)
        with open(dst, "wb") as g:
            for p in pp:
                with open(p, "rb") as f:
                    shutil.copyfileobj(f, g)
        if sha256(dst) != sha:
            die(1, f"{name}: sha256 differs from the manifest (a damaged or mixed-up part)")
        by_target.setdefault(target, []).append(dst)
    if missing:
        die(1, f"not staged: {', '.join(missing)}: stage every chunk in this warm machine first")
    for target, wheels in by_target.items():
        site = {"site": a.site, "gsite": a.gsite}[target]
        # geotaichi declares Python <= 3.11 and runs on 3.12 with taichi 1.7.4
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
               "--no-cache-dir", "--upgrade", "--ignore-requires-python", "--target", site, *wheels]
        if subprocess.run(cmd).returncode != 0:
            die(1, f"pip install into {site} failed")
        log(f"{len(wheels)} wheels installed into {site}")
    if "gsite" in by_target:
        with open(a.gpy, "w") as f:
            f.write(f'#!/bin/sh\nPYTHONPATH={a.gsite} exec {sys.executable} "$@"\n')
        os.chmod(a.gpy, 0o755)
        log(f"{a.gpy}: Python with {a.gsite} (genesis-world): peers_gpu.sh GENESIS_PYTHON={a.gpy}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep", help="here: download, reduce and cut the wheels into chunks")
    p.add_argument("out")
    p.add_argument("--budget-mib", type=float, default=58, help="MiB per chunk (default 58: 64 less the tree)")
    p.add_argument("--no-genesis", action="store_true", help="the peers only (taichi, warp, geotaichi)")
    s = sub.add_parser("stage", help="on the device: copy one carried chunk to " + STAGE)
    s.add_argument("chunk")
    i = sub.add_parser("install", help="on the device: join, check and install every staged wheel")
    i.add_argument("manifest")
    i.add_argument("--site", default="/tmp/site")
    i.add_argument("--gsite", default="/tmp/gsite")
    i.add_argument("--gpy", default="/tmp/gpy")
    a = ap.parse_args()
    if a.cmd == "prep":
        if not 1 <= a.budget_mib <= 63:
            die(2, f"--budget-mib {a.budget_mib}: must be in [1, 63]")
        prep(a)
    elif a.cmd == "stage":
        if not os.path.isdir(a.chunk):
            die(2, f"{a.chunk} is not a folder")
        stage(a)
    else:
        if not os.path.isfile(a.manifest):
            die(2, f"{a.manifest} does not exist")
        install(a)


if __name__ == "__main__":
    main()
