#!/usr/bin/env python3
"""The seed's surrogate loop with torch, everything on one GPU.

The simulation produces (friction angle -> pile height, runout) pairs on a
CUDA backend; the outputs are measured on the device from the particle
positions, which torch reads in place (Sim.get(..., out=tensor)); a small
ensemble of MLPs learns the map on the same device and inverts a held-out
deposit. The scene is demo_surrogate's (experiments/demos/demo_surrogate.c):
the collapse of a quarter column of Drucker-Prager sand, radius R0, aspect
H0/R0 = 2, on a Coulomb floor (mu 0.6), run until it settles, measured as
demo_surrogate measures a deposit through bg_column.c: h_c, the mean column
top (a quarter dx above the highest particle) within dx of the axis, and the
front, the toe extrapolated from the mass distribution (the intercept of the
radius holding a fraction F = 0.80 .. 0.99 of the particles against
sqrt(1 - F), a least-squares line), not the 1-dx thickness threshold.

The inverse: a uniform prior over the design range on a 0.01 deg grid, the
likelihood of each output N(y; mean, var_ens + sigma_run^2 + sigma_m^2): the
ensemble's spread, the run-to-run noise measured from replicate runs (other
lattice jitters) at one design point, and the instrument's noise sigma_m,
as in the GP demo. Estimate: the posterior mean, interval +- 2 sd.

    python3 torch_surrogate.py --out DIR [--cells 24] [--design 12]

writes DIR/design.tsv (every run), DIR/summary.tsv and, when --compare names
the GP demo's summary.tsv, DIR/comparison.tsv beside it. Exits 77 where
torch or a CUDA backend is missing.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import torch
except ImportError:
    print("skipped: torch is not installed", file=sys.stderr)
    sys.exit(77)

import bagnold as bag

G = 9.81


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="folder for design.tsv and summary.tsv")
    p.add_argument("--cells", type=int, default=24, help="cells per R0 (demo_surrogate paper: 24, quick: 8)")
    p.add_argument("--design", type=int, default=12, help="design runs, uniform over the range")
    p.add_argument("--replicates", type=int, default=3, help="extra runs at one design point, for the run noise")
    p.add_argument("--phi-true", type=float, default=32.4, help="the held-out deposit's angle, deg")
    p.add_argument("--phi-lo", type=float, default=20.0)
    p.add_argument("--phi-hi", type=float, default=45.0)
    p.add_argument("--meas-sd", type=float, default=0.2e-3, help="instrument noise on each output, m")
    p.add_argument("--ensemble", type=int, default=8, help="MLPs in the ensemble")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--t-max", type=float, default=6.0, help="longest simulated time per run, s")
    p.add_argument("--compare", type=Path, help="the GP demo's summary.tsv, for comparison.tsv")
    a = p.parse_args()
    for name, lo, hi in (("cells", 4, 256), ("design", 4, 200), ("replicates", 2, 16), ("ensemble", 1, 64),
                         ("epochs", 10, 10**6)):
        v = getattr(a, name)
        if not lo <= v <= hi:
            p.error(f"--{name} must be in [{lo}, {hi}] (got {v})")
    if not (10 <= a.phi_lo < a.phi_true < a.phi_hi <= 60):
        p.error(f"need 10 <= --phi-lo < --phi-true < --phi-hi <= 60 (got {a.phi_lo}, {a.phi_true}, {a.phi_hi})")
    if not (a.meas_sd >= 0 and 0.1 <= a.t_max <= 30):
        p.error("--meas-sd must be >= 0 and --t-max in [0.1, 30]")
    return a


# ------------------------------------------------------------------ the scene

R0, ASPECT, MU_FLOOR, DOMAIN, JITTER = 0.05, 2.0, 0.6, 5.5, 0.5


def collapse(phi: float, cells: int, seed: int, t_max: float) -> dict:
    """One quarter-column collapse on the GPU; the deposit measured there."""
    dx = R0 / cells
    nl = math.ceil(DOMAIN * cells)
    H0 = ASPECT * R0
    dims = (nl + 4, nl + 4, math.ceil(H0 * 1.15 / dx) + 8)
    floor = bag.halfspace((0, 0, 0), (0, 0, 1), friction=MU_FLOOR)
    sim = bag.Sim(grid=dims, dx=dx, origin=(-1.5 * dx, -1.5 * dx, -2.5 * dx), material=bag.sand(phi_deg=phi),
                  colliders=[floor], walls={"floor": "open"}, backend="cuda")
    # ppc 8: a lattice of spacing dx/2, each point jittered within its cell, kept inside the cylinder
    sp = dx / 2
    ni, nk = int(R0 / sp + 1e-9), int(H0 / sp + 1e-9)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    ijk = torch.stack(torch.meshgrid(torch.arange(ni, device="cuda"), torch.arange(ni, device="cuda"),
                                     torch.arange(nk, device="cuda"), indexing="ij"), -1).reshape(-1, 3)
    centre = (ijk.float() + 0.5) * sp
    x = centre + (torch.rand(centre.shape, generator=gen, device="cuda") - 0.5) * JITTER * sp
    x = x[torch.hypot(centre[:, 0], centre[:, 1]) < R0].contiguous()
    sim.add(x, ppc=8)  # from the GPU: no host copy
    n = len(sim)
    mass = sim.get("mass", out=torch.empty(n, device="cuda"))
    v = torch.empty((n, 3), device="cuda")
    ke_thresh = 1e-4 * mass.sum().item() * G * R0
    tc = math.sqrt(R0 / G)
    t, ke_peak, settled = 0.0, 0.0, False
    while t < t_max:
        t = min(t + 0.1 * tc, t_max)
        sim.run(until=t)
        sim.get("v", out=v)
        ke = 0.5 * (mass * (v * v).sum(1)).sum().item()
        ke_peak = max(ke_peak, ke)
        if ke_peak > 10 * ke_thresh and ke < ke_thresh:
            settled = True
            break
    xe = sim.get("x", out=torch.empty((n, 3), device="cuda"))
    h_c, runout = deposit(xe, dx, nl), front(xe)
    return {"phi": phi, "seed": seed, "n": n, "t_end": sim.time, "steps": sim.step_count, "settled": settled,
            "h_center": h_c, "runout": runout}  # runout: the front


FRONT_F = (0.80, 0.85, 0.90, 0.95, 0.98, 0.99)


def front(x: "torch.Tensor") -> float:
    """The toe extrapolated from the mass distribution (bg_column.c's
    column_front), on the device: the radii of mass fraction F (quantiles
    interpolated as GSL's are: linear between order statistics (n-1) F) on a
    least-squares line against sqrt(1 - F), read at sqrt(1 - F) = 0."""
    r = torch.hypot(x[:, 0], x[:, 1]).double()
    F = torch.tensor(FRONT_F, dtype=torch.float64, device=x.device)
    y = torch.quantile(r, F, interpolation="linear")
    s = torch.sqrt(1 - F)
    c1 = ((s - s.mean()) * (y - y.mean())).sum() / ((s - s.mean()) ** 2).sum()
    return float(y.mean() - c1 * s.mean())


def deposit(x: "torch.Tensor", dx: float, nl: int) -> float:
    """h_c of the deposit, on the device: column tops as the scatter-max of
    each particle's top over its column, annuli dx wide, the first bin's mean."""
    i = torch.floor(x[:, 0] / dx).long()
    j = torch.floor(x[:, 1] / dx).long()
    ok = (i >= 0) & (j >= 0) & (i < nl) & (j < nl)
    top = torch.zeros(nl * nl, device=x.device)
    top.scatter_reduce_(0, (i * nl + j)[ok], x[ok, 2] + 0.25 * dx, reduce="amax")
    c = (torch.arange(nl, device=x.device) + 0.5) * dx
    r = torch.hypot(c[:, None], c[None, :]).reshape(-1)
    b = torch.floor(r / dx).long()
    hs = torch.zeros(nl, device=x.device).index_add_(0, b.clamp(max=nl - 1), top * (b < nl))
    cnt = torch.zeros(nl, device=x.device).index_add_(0, b.clamp(max=nl - 1), (b < nl).float())
    return float(hs[0] / cnt[0].clamp(min=1))


# ---------------------------------------------------------------- the learner

def train(phi: "torch.Tensor", y: "torch.Tensor", members: int, epochs: int, lo: float, hi: float):
    """An ensemble of MLPs 1 -> 32 -> 32 -> 2 (tanh), inputs scaled to
    [0, 1] over the range and outputs standardised; full-batch Adam."""
    s = (phi - lo) / (hi - lo)
    mu, sd = y.mean(0), y.std(0)
    yz = (y - mu) / sd
    nets = []
    for m in range(members):
        torch.manual_seed(1000 + m)
        net = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                                  torch.nn.Tanh(), torch.nn.Linear(32, 2)).cuda()
        opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-5)
        for _ in range(epochs):
            opt.zero_grad()
            loss = ((net(s[:, None]) - yz) ** 2).mean()
            loss.backward()
            opt.step()
        nets.append(net)

    def predict(p: "torch.Tensor"):
        with torch.no_grad():
            z = torch.stack([net(((p - lo) / (hi - lo))[:, None]) for net in nets]) * sd + mu
        return z.mean(0), z.var(0, unbiased=members > 1) if members > 1 else torch.zeros_like(z[0])

    return predict


def invert(predict, y_meas: "torch.Tensor", noise_var: "torch.Tensor", lo: float, hi: float) -> dict:
    grid = torch.arange(lo, hi + 1e-9, 0.01, device="cuda")
    mean, var = predict(grid)
    tot = var + noise_var
    logp = (-0.5 * ((y_meas - mean) ** 2 / tot + torch.log(tot))).sum(1)
    w = torch.softmax(logp, 0)
    m = (w * grid).sum()
    sd = torch.sqrt((w * (grid - m) ** 2).sum())
    return {"estimate": m.item(), "two_sd": 2 * sd.item(), "map": grid[torch.argmax(w)].item()}


# ----------------------------------------------------------------------- main

def main() -> int:
    a = parse()
    if not torch.cuda.is_available() or not bag.backend_available("cuda"):
        why = "torch sees no CUDA device" if not torch.cuda.is_available() else bag.backend_status("cuda")[1]
        print(f"skipped: {why}", file=sys.stderr)
        return 77
    a.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    design = np.linspace(a.phi_lo, a.phi_hi, a.design)
    runs = []
    plan = [("measured", a.phi_true, 1000032)] + [("design", float(p), k + 1) for k, p in enumerate(design)]
    rep_phi = float(design[1])  # the first interior point, as the GP demo
    plan += [("replicate", rep_phi, a.design + 1 + k) for k in range(a.replicates)]
    for k, (role, phi, seed) in enumerate(plan):
        r = collapse(phi, a.cells, seed, a.t_max)
        r["role"] = role
        runs.append(r)
        el = time.perf_counter() - t0
        print(f"[{k + 1}/{len(plan)}] {role} phi {phi:.2f}: h_c {r['h_center'] * 1e3:.2f} mm, runout "
              f"{r['runout'] * 1e3:.1f} mm (front), {r['n']} particles, {r['steps']} steps, "
              f"{'settled' if r['settled'] else 'NOT settled'} at {r['t_end']:.2f} s; {el:.0f} s, "
              f"ETA {el / (k + 1) * (len(plan) - k - 1):.0f} s", flush=True)
    t_sim = time.perf_counter() - t0

    rng = np.random.default_rng(7)
    meas = runs[0]
    y_meas = torch.tensor([meas["h_center"] + rng.normal(0, a.meas_sd), meas["runout"] + rng.normal(0, a.meas_sd)],
                          device="cuda", dtype=torch.float32)
    train_runs = [r for r in runs if r["role"] in ("design", "replicate")]
    phi_t = torch.tensor([r["phi"] for r in train_runs], device="cuda", dtype=torch.float32)
    y_t = torch.tensor([[r["h_center"], r["runout"]] for r in train_runs], device="cuda", dtype=torch.float32)
    reps = np.array([[r["h_center"], r["runout"]] for r in runs if r["phi"] == rep_phi and r["role"] != "measured"])
    sigma_run = reps.std(0, ddof=1)
    noise_var = torch.tensor(sigma_run ** 2 + a.meas_sd ** 2, device="cuda", dtype=torch.float32)
    t1 = time.perf_counter()
    predict = train(phi_t, y_t, a.ensemble, a.epochs, a.phi_lo, a.phi_hi)
    torch.cuda.synchronize()
    t_train = time.perf_counter() - t1
    inv = invert(predict, y_meas, noise_var, a.phi_lo, a.phi_hi)
    err = abs(inv["estimate"] - a.phi_true)

    with open(a.out / "design.tsv", "w") as f:
        f.write("# every simulation of torch_surrogate.py (the measured deposit first)\n")
        f.write("role\tphi_deg\tseed\tparticles\tsteps\tt_end_s\tsettled\th_center_m\trunout_m\n")
        for r in runs:
            f.write(f"{r['role']}\t{r['phi']:.6f}\t{r['seed']}\t{r['n']}\t{r['steps']}\t{r['t_end']:.4f}\t"
                    f"{int(r['settled'])}\t{r['h_center']:.6g}\t{r['runout']:.6g}\n")
    summary = [("phi_true", a.phi_true, "deg"), ("phi_estimate", inv["estimate"], "deg"), ("phi_map", inv["map"], "deg"),
               ("error", err, "deg"), ("two_sd", inv["two_sd"], "deg"), ("covered", int(err <= inv["two_sd"]), "1"),
               ("simulations_total", len(runs), "1"), ("cells_per_R0", a.cells, "1"),
               ("sigma_run_h_center", sigma_run[0], "m"), ("sigma_run_runout", sigma_run[1], "m"),
               ("sigma_meas", a.meas_sd, "m"), ("ensemble", a.ensemble, "1"), ("epochs", a.epochs, "1"),
               ("wall_simulations", t_sim, "s"), ("wall_training", t_train, "s"),
               ("device", torch.cuda.get_device_name(0), "-"), ("torch", torch.__version__, "-")]
    with open(a.out / "summary.tsv", "w") as f:
        f.write("# the torch ensemble's inverse of the held-out deposit\nquantity\tvalue\tunit\n")
        for q, v, u in summary:
            f.write(f"{q}\t{v:.6g}\t{u}\n" if isinstance(v, float) else f"{q}\t{v}\t{u}\n")
    if a.compare and a.compare.exists():
        gp = {}
        for line in a.compare.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and not line.startswith("#") and parts[0] != "quantity":
                gp[parts[0]] = parts[1]
        with open(a.out / "comparison.tsv", "w") as f:
            f.write(f"# the torch MLP ensemble beside the C/GSL Gaussian-process demo ({a.compare})\n")
            f.write("quantity\ttorch_mlp\tgsl_gp\tunit\n")
            ours = dict((q, v) for q, v, _ in summary)
            for q in ("phi_true", "phi_estimate", "error", "two_sd", "simulations_total"):
                f.write(f"{q}\t{ours[q]:.6g}\t{gp.get(q, 'nan')}\t{'1' if q == 'simulations_total' else 'deg'}\n")
    print(f"phi {inv['estimate']:.3f} +- {inv['two_sd']:.3f} deg (true {a.phi_true}), error {err:.3f} deg, "
          f"{len(runs)} runs; simulations {t_sim:.0f} s, training {t_train:.1f} s on {torch.cuda.get_device_name(0)}")
    return 0 if err <= inv["two_sd"] else 1


if __name__ == "__main__":
    sys.exit(main())
