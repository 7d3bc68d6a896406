import numpy as np, bagnold as bg, resource, sys, time
n = int(sys.argv[1]); dx = 1.0 / n
sim = bg.Sim((n, n, n), dx, material=bg.sand(35.0), backend="cpu", threads=2)
g = np.mgrid[0:1:dx / 2, 0:1:dx / 2, 0:0.03:dx / 2].reshape(3, -1).T + dx / 4
g = g[(g[:, 0] - 0.5) ** 2 + (g[:, 1] - 0.5) ** 2 < 0.06 ** 2]
g[:, 2] += 2.5 * dx
sim.add(g.astype(np.float32), ppc=8)
sim.run(5)
t0 = time.perf_counter(); sim.run(40); t = time.perf_counter() - t0
m = sim.memory
print(f"{sys.argv[2]}: {n}^3 grid ({n**3*16/1e6:.0f} MB dense), {len(sim)} particles: {40/t:.1f} steps/s, "
      f"{len(sim)*40/t/1e6:.2f} M particle-steps/s; grid bytes {m['grid_bytes']/1e6:.2f} MB; max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1e3:.0f} MB")
