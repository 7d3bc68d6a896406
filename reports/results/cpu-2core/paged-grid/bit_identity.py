import numpy as np, bagnold as bag, sys
N=40; DX=1/N
floor = bag.halfspace((0, 0, 2.5*DX), (0, 0, 1), friction=0.5)
wall = bag.box((0.6, 0.0, 0.0), (0.7, 1.0, 0.2), friction="stick")
sim = bag.Sim(grid=(N, N, N), dx=DX, material=bag.sand(phi_deg=30), colliders=[floor, wall], backend="cpu", threads=2, damping=0.5)
g = np.mgrid[0.3:0.45:DX/2, 0.4:0.55:DX/2, 3*DX:0.3:DX/2].reshape(3, -1).T + DX/4
sim.add(g.astype(np.float32), ppc=8)
sim.run(300)
np.save(sys.argv[1], np.concatenate([sim.get("x").ravel(), sim.get("v").ravel(), sim.get("F").ravel(), sim.grid_mass().ravel(), sim.wall_forces().ravel().astype(np.float32)]))
print(len(sim), sim.time)
