#!/usr/bin/env python3
"""series_of_point.py NAME=POINT_DIR ...: the force series of exp_rft sweep points (their
result.bin: the drag's record, then 40 rows of 11 doubles, rft.h's RFT_SERIES_COLS) as one TSV
on stdout: travel in L, the centre's depth below the surface read after settling, the contact
force per metre (x, z, time means over the row) and alpha_z = F_z / (L |z|) in N/cm^3."""
import struct
import sys

ROWS, COLS = 40, 11
print("# exp_rft points' series (reports/results/cpu-2core/rft-stiff/README.md); L = 0.04 m")
print("run\ttravel_L\tdepth_m\tfx_N_m\tfz_N_m\talpha_z_N_cm3")
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    b = open(path + "/result.bin", "rb").read()
    s = struct.unpack("<%dd" % (ROWS * COLS), b[-ROWS * COLS * 8:])
    for i in range(ROWS):
        r = s[COLS * i:COLS * i + COLS]
        if r[1] <= 0:
            continue
        print("%s\t%.3f\t%.5f\t%.2f\t%.2f\t%.4f" % (name, r[0], r[1], r[2], r[3], r[3] / (0.04 * r[1]) * 1e-6))
