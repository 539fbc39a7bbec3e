# ruff: noqa  (a published program in its authors' style)
"""A toy ray tracer in the style of the "ray tracing in 100 lines of NumPy" posts: spheres
hit by a batch of rays, Blinn-Phong shading with np.clip, np.where on misses."""

import numpy as np


def normalize(x):
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    return x


def intersect_sphere(O, D, S, R):
    # O origins (N,3), D unit directions (N,3), S centre (3,), R radius
    a = np.sum(D * D, axis=-1)
    OS = O - S
    b = 2 * np.sum(D * OS, axis=-1)
    c = np.sum(OS * OS, axis=-1) - R * R
    disc = b * b - 4 * a * c
    hit = disc > 0
    sq = np.sqrt(np.where(hit, disc, 1.0))
    q = np.where(b < 0, (-b - sq) / 2.0, (-b + sq) / 2.0)
    t0 = q / a
    t1 = c / q
    t0, t1 = np.minimum(t0, t1), np.maximum(t0, t1)
    t = np.where(t0 > 0, t0, t1)
    return np.where(hit & (t1 >= 0), t, np.inf)


def reflect(d, n):
    return d - 2 * np.sum(d * n, axis=-1, keepdims=True) * n


def shade(O, D, S, R, L, color, ambient=0.05, diffuse=1.0, specular=1.0, k=50):
    t = intersect_sphere(O, D, S, R)
    hit = np.isfinite(t)
    t = np.where(hit, t, 1.0)  # misses get a dummy point off the origin (no 0/0)
    M = O + D * t[:, None]
    N = normalize(M - S)
    toL = normalize(L - M)
    toO = normalize(O - M)
    col = ambient * np.ones((len(O), 3))
    col += diffuse * np.clip(np.sum(N * toL, axis=-1), 0, None)[:, None] * color
    H = normalize(toL + toO)
    col += specular * np.clip(np.sum(N * H, axis=-1), 0, None)[:, None] ** k * np.ones(3)
    refl = reflect(D, N)
    col = np.where(hit[:, None], col, 0.0)
    return np.clip(col, 0, 1), refl


def make_rays(w=6, h=5):
    O = np.tile(np.array([0.0, 0.35, -1.0]), (w * h, 1))
    xs, ys = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-0.6, 0.9, h))
    Q = np.stack([xs.ravel(), ys.ravel(), np.zeros(w * h)], axis=-1)
    D = normalize(Q - O)
    return O, D


def image_loss(S, L, target):
    O, D = make_rays()
    col, _ = shade(O, D, S, 0.7, L, np.array([0.0, 0.0, 1.0]))
    return np.mean((col - target) ** 2)
