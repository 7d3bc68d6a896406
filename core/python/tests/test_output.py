"""Files for people: VTU frames and a ParaView .pvd series, legacy VTK, PLY
and TSV series, each written through the Python API and read back."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import bagnold
from bagnold import BagnoldError, Sim
from conftest import DX, THREADS, lattice


@pytest.fixture
def sim() -> Sim:
    s = Sim(grid=(16, 16, 16), dx=DX, threads=THREADS)
    s.add(lattice((0.04, 0.04, 0.03), (0.08, 0.08, 0.07), DX / 2))  # 512 particles
    return s


def test_write_vtu(sim: Sim, out_dir: Path):
    sim.run(3)
    path = out_dir / "state.vtu"
    sim.write_vtu(path)
    data = path.read_bytes()
    head = data[: data.index(b"<AppendedData")].decode()
    assert "<VTKFile" in head and 'type="UnstructuredGrid"' in head
    assert f'NumberOfPoints="{len(sim)}"' in head
    for name in ("velocity", "density", "mass"):
        assert f'Name="{name}"' in head, name
    assert not (out_dir / "state.vtu.tmp").exists()


def test_write_vtu_error_names_the_path(sim: Sim, out_dir: Path):
    with pytest.raises(BagnoldError) as e:
        sim.write_vtu(out_dir / "missing" / "x.vtu")
    assert e.value.status == "BG_ERR_IO" and "missing" in e.value.message


def test_pvd_series(sim: Sim, out_dir: Path):
    d = out_dir / "series"
    with bagnold.pvd(d, "sand") as series:
        for _ in range(3):
            sim.run(2)
            series.frame(sim)
        index = Path(series.index_path).read_text()
    times = [float(t) for t in re.findall(r'timestep="([^"]+)"', index)]
    files = re.findall(r'file="([^"]+)"', index)
    assert len(times) == len(files) == 3 and times == sorted(times) and times[-1] == pytest.approx(sim.time)
    for f in files:
        assert (d / f).is_file()
    # resume keeps the frames before the next one's time
    with bagnold.pvd(d, "sand", resume=True) as series:
        sim.run(2)
        series.frame(sim)
    assert len(re.findall(r"<DataSet", (d / "sand.pvd").read_text())) == 4


def test_pvd_open_error_carries_the_message(out_dir: Path):
    blocker = out_dir / "file"
    blocker.write_text("not a directory")
    with pytest.raises(BagnoldError) as e:
        bagnold.pvd(blocker / "sub", "f")
    assert e.value.status == "BG_ERR_IO" and "sub" in e.value.message


def test_vtk_and_ply(sim: Sim, out_dir: Path):
    sim.write_vtk(out_dir / "p.vtk")
    sim.write_ply(out_dir / "p.ply")
    assert (out_dir / "p.vtk").read_bytes().startswith(b"# vtk DataFile")
    ply = (out_dir / "p.ply").read_bytes()
    assert ply.startswith(b"ply\n") and f"element vertex {len(sim)}".encode() in ply


def test_tsv_series(sim: Sim, out_dir: Path):
    path = out_dir / "mass.tsv"
    with bagnold.TsvSeries(path, ["t_s", "mass_kg"], comment="python test") as s:
        for _ in range(3):
            sim.step()
            s.row([sim.time, sim.stats.total_mass])
        with pytest.raises(ValueError, match="2 numbers"):
            s.row([1.0])
    lines = path.read_text().splitlines()
    assert lines[0].startswith("#") and lines[1] == "t_s\tmass_kg" and len(lines) == 5
    rows = np.loadtxt(path, comments="#", skiprows=2)
    assert rows.shape == (3, 2) and np.all(np.diff(rows[:, 0]) > 0)
    std = out_dir / "steps.tsv"
    with sim.series(std, comment="standard") as s:
        for _ in range(2):
            sim.step()
            s.row()
    assert len(std.read_text().splitlines()) == 4
