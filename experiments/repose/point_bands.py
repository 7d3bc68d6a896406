#!/usr/bin/env python3
"""point_bands.py RESULT.BIN...: the flank angles of one repose sweep point's
result file (OUT/points/K/result.bin, bg_column_result_pack's layout: the
particle count and steps as uint64, five int32, twelve doubles, the height
field, the profile's centres and heights), by the estimators of exp_repose:
the mid-flank profile fit over 0.2-0.8 h_max and the fixed height bands of
H0 (foot 0.05-0.2, lower 0.2-0.4, upper 0.4-0.6). For a point whose sweep
was cut before its gather.

point_bands.py --profiles RUN_DIR H0_M: writes RUN_DIR/bands.tsv from a
recorded run's profile_dx*.tsv and convergence.tsv (runs recorded before
exp_repose wrote bands.tsv), by the same band fits. Standard library only."""
import math
import struct
import sys


def line_angle(xs, ys):
    n = len(xs)
    if n < 3:
        return math.nan
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return math.degrees(math.atan(-sxy / sxx))


def main(paths):
    print("file\tparticles\tsteps\tsettled\tdx_m\tt_end_s\th_max_m\tmid_flank_deg\tfoot_deg\tlower_deg\tupper_deg")
    for path in paths:
        b = open(path, "rb").read()
        n_p, steps = struct.unpack_from("<QQ", b, 0)
        iv = struct.unpack_from("<5i", b, 16)
        dv = struct.unpack_from("<12d", b, 36)
        nx, ny, nb = iv[2], iv[3], iv[4]
        off = 36 + 96 + 8 * nx * ny
        r = struct.unpack_from(f"<{nb}d", b, off)
        h = struct.unpack_from(f"<{nb}d", b, off + 8 * nb)
        if off + 16 * nb != len(b):
            sys.exit(f"{path}: {len(b)} bytes, the layout gives {off + 16 * nb}: not a column result")
        dx, H0, t_end, hmax = dv[0], dv[1], dv[2], dv[6]

        def band(lo, hi):
            sel = [(ri, hi_) for ri, hi_ in zip(r, h) if lo <= hi_ < hi]
            return line_angle([s[0] for s in sel], [s[1] for s in sel])

        mid = [(ri, hi_) for ri, hi_ in zip(r, h) if 0.2 * hmax <= hi_ <= 0.8 * hmax]
        vals = [line_angle([s[0] for s in mid], [s[1] for s in mid]),
                band(0.05 * H0, 0.2 * H0), band(0.2 * H0, 0.4 * H0), band(0.4 * H0, 0.6 * H0)]
        print(f"{path}\t{n_p}\t{steps}\t{iv[0]}\t{dx:.6g}\t{t_end:.4f}\t{hmax:.6g}\t" + "\t".join(f"{v:.2f}" for v in vals))


def profiles(run, H0):
    rows = []
    conv = [l.rstrip("\n").split("\t") for l in open(f"{run}/convergence.tsv") if not l.startswith("#")]
    head, conv = conv[0], conv[1:]
    for i, c in enumerate(conv):
        cells, hdx = int(c[head.index("cells_per_R0")]), float(c[head.index("dx_over_R0")])
        prof = [l.split("\t") for l in open(f"{run}/profile_dx{i}.tsv") if not l.startswith("#")][1:]
        r, h = [float(p[0]) for p in prof], [float(p[1]) for p in prof]

        def band(lo, hi):
            sel = [(ri, hh) for ri, hh in zip(r, h) if lo * H0 <= hh < hi * H0]
            return line_angle([s[0] for s in sel], [s[1] for s in sel])

        rows.append((cells, hdx, band(0.05, 0.2), band(0.2, 0.4), band(0.4, 0.6)))
    with open(f"{run}/bands.tsv", "w") as f:
        f.write("# flank angle per grid in fixed height bands of H0 (profile line fit): foot 0.05-0.2, lower 0.2-0.4, "
                "upper 0.4-0.6; derived after the run from its profile_dx*.tsv by experiments/repose/point_bands.py\n")
        f.write("cells_per_R0\tdx_over_R0\tfoot_deg\tlower_deg\tupper_deg\n")
        for row in rows:
            f.write(f"{row[0]}\t{row[1]:.6g}\t" + "\t".join(f"{v:.4f}" for v in row[2:]) + "\n")
    print(open(f"{run}/bands.tsv").read(), end="")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--profiles":
        profiles(sys.argv[2], float(sys.argv[3]))
    else:
        main(sys.argv[1:])
