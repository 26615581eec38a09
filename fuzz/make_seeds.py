#!/usr/bin/env python3
"""Writes the seed inputs of the talus fuzz targets into fuzz/corpus/<target>/seed-*.

The seeds follow the targets' input layout (fuzz_dynamics.cpp, fuzz_constraints.cpp,
fuzz_kkt.cpp): "nice" bytes (one byte per scalar, (b - 124) / 32) around states like the
tests' (valid quaternions via the normalise flag, moderate v and tau), one seed per model,
function group, constraint kind and solver, plus a few raw-double seeds. Deterministic.
Usage: python3 fuzz/make_seeds.py [corpus-dir]
"""
import os
import random
import struct
import sys

RAW, NORMALIZE, CRBA = 1, 2, 4


class Enc:
    def __init__(self, rng, raw=False):
        self.b = bytearray()
        self.rng = rng
        self.raw = raw

    def byte(self, v):
        self.b.append(v & 0xFF)

    def scalar(self, x):
        if self.raw:
            self.b += struct.pack('<d', x)
        else:
            self.byte(max(0, min(247, int(round(x * 32 + 124)))))

    def scalars(self, n, lo=-1.0, hi=1.0):
        for _ in range(n):
            self.scalar(self.rng.uniform(lo, hi))

    def randbytes(self, n, lo=100, hi=150):
        for _ in range(n):
            self.byte(self.rng.randint(lo, hi))


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(bytes(data))


# model: (nq, nv, nb, nframes)
DYN_MODELS = {0: (19, 18, 13, 30), 1: (6, 6, 6, 12), 2: (18, 16, 6, 2)}  # solo12, ur5, chain (frames approx.)


def dynamics(out, rng):
    n = 0
    for model, (nq, nv, nb, nf) in DYN_MODELS.items():
        for group in range(9):
            for raw in (False, True):
                e = Enc(rng, raw)
                e.byte(group * 3 + model)
                e.byte(NORMALIZE | (RAW if raw else 0))
                if group == 6:  # sincos
                    e.byte(1)
                    e.b += struct.pack('<d', rng.uniform(-10, 10))
                elif group == 8:  # perturbed model: a few mild changes, then a sub-group
                    e.byte(rng.randint(0, 2))
                    for _ in range(3):
                        e.byte(rng.randint(0, 255)); e.byte(rng.randint(0, 7)); e.byte(rng.randint(0, 2)); e.byte(rng.randint(0, 2))
                        e.byte(0)  # scale by 2^x
                        e.scalar(rng.uniform(-0.1, 0.1))
                    e.byte(rng.randint(0, 7))
                    e.scalars(4 * nq + 4 * nv + 6 * nb)
                else:
                    # q, v, a/tau, and the group's extra bytes: moderate values
                    e.scalars(3 * nq + 6 * nv + 6 * nb + 40)
                write(out, 'seed-m%d-g%d-%s' % (model, group, 'raw' if raw else 'nice'), e.b)
                n += 1
    for i, x in enumerate([0.0, 1e-300, 5e-324, 0.7853981633974483, 1e5, 1e6, 2.0 ** 52, 1e22, 1e300, -3.0]):
        e = Enc(rng)
        e.byte(6 * 3)
        e.byte(0)
        e.byte(1)
        e.b += struct.pack('<d', x)
        write(out, 'seed-sincos-%d' % i, e.b)
        n += 1
    return n


def contact(e, body):
    e.byte(0)
    e.byte(body)
    e.scalars(3, -0.2, 0.2)
    e.byte(2)  # 3 normals
    for k in range(4):
        e.scalar(1.0 if k == 0 else 0.0); e.scalar(1.0 if k == 1 else 0.0); e.scalar(1.0 if k in (2, 3) else 0.0)
        e.byte(1)  # normalise


def loop(e, b0, b1, naxes, baumgarte):
    e.byte(1)
    e.byte(b0)
    e.byte(b1)
    for _ in range(2):
        e.byte(1)  # axis-angle rotation
        e.scalars(3)
        e.scalar(0.5)
        e.scalars(3, -0.2, 0.2)
    e.byte(naxes - 1)
    for k in range(naxes):
        e.byte(k)  # unit axis k, position and velocity level
    e.byte(1 if baumgarte else 0)


def custom(e, rows, wrench_count_code):
    e.byte(2)
    e.byte(rows - 1)
    for k in range(6):
        e.byte(k); e.scalar(1.0)
        e.byte(k + 6); e.scalar(-0.5)
        e.scalar(0.1)
        e.scalar(0.01)
    e.byte(wrench_count_code)
    for k in range(2):
        e.byte(k)
        e.scalars(6)
    e.byte(0)


def constraints(out, rng):
    n = 0
    models = {0: (19, 18, 13), 1: (18, 16, 6)}
    sets = {
        'feet': lambda e, nb: [contact(e, b) for b in (3, 6, 9, 12)] if nb == 13 else [contact(e, b) for b in (3, 5)],
        'loop': lambda e, nb: (loop(e, 3 if nb == 13 else 2, 6 if nb == 13 else 5, 3, True), contact(e, 9 if nb == 13 else 4)),
        'custom': lambda e, nb: (custom(e, 2, 2), contact(e, 3)),
        'mixed': lambda e, nb: (contact(e, 2), loop(e, 0, 4, 6, False), custom(e, 1, 6)),
    }
    for model, (nq, nv, nb) in models.items():
        for group in range(4):
            for name, build in sets.items():
                counts = {'feet': 4 if nb == 13 else 2, 'loop': 2, 'custom': 2, 'mixed': 3}
                e = Enc(rng)
                e.byte(group * 2 + model)
                e.byte(NORMALIZE)
                e.byte(counts[name])
                build(e, nb)
                e.byte(0)  # toggles
                e.byte(0)  # anchors
                e.byte(0)  # default pivot tolerance
                e.scalars(3 * nq + 3 * nv + 6 * nb + 40, -0.5, 0.5)
                write(out, 'seed-m%d-g%d-%s' % (model, group, name), e.b)
                n += 1
    return n


def kkt(out, rng):
    n = 0
    for model, (nq, nv) in {0: (2, 2), 1: (18, 16)}.items():
        for mr in (0, 1):
            for method in range(8):
                for rows in (0, 1, 2, 3, 5):
                    e = Enc(rng)
                    e.byte((method << 2) | (mr << 1) | model)
                    e.byte(NORMALIZE | CRBA)
                    e.byte(rows)
                    e.scalars(nq + nv * nv + nv)
                    for _ in range(rows * nv):
                        e.byte(200)
                        e.scalar(rng.uniform(-1, 1))
                    e.scalars(rows)
                    e.byte(0)
                    write(out, 'seed-m%d-mr%d-k%d-r%d' % (model, mr, method, rows), e.b)
                    n += 1
    return n


def linalg(out, rng):
    """fuzz_linalg: each scalar type, storage and shape, n = 0..8, tolerance 0 or 1e-8 (raw)."""
    n = 0
    for scalar in (0, 1):
        for storage in (0, 1):
            for shape in range(4):
                for size in (0, 1, 3, 8):
                    e = Enc(rng)
                    e.byte(scalar | (storage << 1) | (shape << 2))
                    e.byte(0)
                    if storage:
                        e.byte(size)
                    m = size if storage else 8
                    if shape == 0:
                        e.scalars(m * m)
                    elif shape in (1, 2):
                        cols = rng.randint(0, m)
                        e.byte(cols)  # B: m x cols
                        e.scalars(m * cols)
                    else:
                        e.scalars(m, 0.1, 2.0)
                    e.byte(size)  # n
                    e.scalars(m)  # b
                    write(out, 'seed-s%d-st%d-a%d-n%d' % (scalar, storage, shape, size), e.b)
                    n += 1
    return n


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    rng = random.Random(20261124)
    print('fuzz_dynamics', dynamics(os.path.join(root, 'fuzz_dynamics'), rng))
    print('fuzz_constraints', constraints(os.path.join(root, 'fuzz_constraints'), rng))
    print('fuzz_kkt', kkt(os.path.join(root, 'fuzz_kkt'), rng))
    print('fuzz_linalg', linalg(os.path.join(root, 'fuzz_linalg'), random.Random(20261128)))


if __name__ == '__main__':
    main()
