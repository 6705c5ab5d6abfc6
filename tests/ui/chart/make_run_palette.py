#!/usr/bin/env python3
"""Computes the 32 run colours of ui/chart/runcolors.cpp (run by hand; its output is the table there).

Glasbey's method (C. Glasbey, G. van der Heijden, V. Toh, A. Gray: "Colour displays for
categorical images", Color Research & Application 32(4), 2007): start from a seed and a few
colours to stay away from (here the white and the dark backgrounds the chart is drawn on), then
again and again add the candidate colour farthest (CIEDE2000) from every colour chosen so far.
Candidates: the sRGB cube in steps of 1/31, kept to what a 1-px line shows on white and on a dark
background alike: CIELAB lightness 35..72 and chroma >= 30 (no greys: a hidden run is drawn
faded, and grey would read as hidden).

    /usr/bin/python3 tests/ui/chart/make_run_palette.py     (numpy; about a minute)
"""
import numpy as np

N = 32
SEED = (0x1f, 0x77, 0xb4)  # the blue most plotting libraries start with


def srgb_to_lab(rgb):
    c = rgb / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375],
                  [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def ciede2000(lab1, lab2):
    L1, a1, b1 = lab1[:, 0], lab1[:, 1], lab1[:, 2]
    L2, a2, b2 = lab2[0], lab2[1], lab2[2]
    C1 = np.hypot(a1, b1)
    C2 = np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp = L2 - L1
    dCp = C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lm = (L1 + L2) / 2
    Cmp = (C1p + C2p) / 2
    hsum = h1p + h2p
    hm = np.where(np.abs(h1p - h2p) > 180, (hsum + 360) / 2, hsum / 2)
    hm = np.where(C1p * C2p == 0, hsum, hm)
    T = (1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm))
         + 0.32 * np.cos(np.radians(3 * hm + 6)) - 0.20 * np.cos(np.radians(4 * hm - 63)))
    dtheta = 30 * np.exp(-(((hm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cmp ** 7 / (Cmp ** 7 + 25 ** 7))
    Sl = 1 + 0.015 * (Lm - 50) ** 2 / np.sqrt(20 + (Lm - 50) ** 2)
    Sc = 1 + 0.045 * Cmp
    Sh = 1 + 0.015 * Cmp * T
    Rt = -np.sin(np.radians(2 * dtheta)) * Rc
    return np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh))


def main():
    levels = np.round(np.linspace(0, 255, 32)).astype(int)
    grid = np.array(np.meshgrid(levels, levels, levels, indexing="ij")).reshape(3, -1).T
    lab = srgb_to_lab(grid.astype(float))
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    keep = (lab[:, 0] >= 35) & (lab[:, 0] <= 72) & (chroma >= 30)
    grid, lab = grid[keep], lab[keep]
    avoid = srgb_to_lab(np.array([[255, 255, 255], [0, 0, 0], [0x2b, 0x2b, 0x2b]], dtype=float))
    nearest = np.full(len(grid), np.inf)
    for a in avoid:
        nearest = np.minimum(nearest, ciede2000(lab, a))
    chosen = [np.array(SEED)]
    nearest = np.minimum(nearest, ciede2000(lab, srgb_to_lab(np.array([SEED], dtype=float))[0]))
    while len(chosen) < N:
        i = int(np.argmax(nearest))
        chosen.append(grid[i])
        nearest = np.minimum(nearest, ciede2000(lab, lab[i]))
    labs = srgb_to_lab(np.array(chosen, dtype=float))
    worst = min(ciede2000(labs[:i], labs[i]).min() for i in range(1, N))
    for k in range(0, N, 8):
        print("    " + " ".join("0x%02x%02x%02x," % tuple(c) for c in chosen[k:k + 8]))
    print("min pairwise CIEDE2000: %.1f" % worst)


if __name__ == "__main__":
    main()
