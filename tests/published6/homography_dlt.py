# ruff: noqa  (a published program in its authors' style)
"""The direct linear transform for a homography as tutorials and course notes write it
("computer vision from scratch"): two rows per correspondence appended to a Python list,
``np.array(A)``, ``U, S, Vh = np.linalg.svd(A)`` (full matrices, NumPy's default) and the
null vector ``Vh[-1, :] / Vh[-1, -1]``; points mapped with homogeneous coordinates by
``np.hstack``, and a RANSAC loop over random 4-point samples."""

import numpy as np


def compute_homography(src_pts, dst_pts):
    A = []
    for i in range(len(src_pts)):
        x, y = src_pts[i][0], src_pts[i][1]
        u, v = dst_pts[i][0], dst_pts[i][1]
        A.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        A.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    A = np.array(A)
    U, S, Vh = np.linalg.svd(A)
    L = Vh[-1, :] / Vh[-1, -1]
    H = L.reshape(3, 3)
    return H


def apply_homography(H, pts):
    pts_h = np.hstack([pts, np.ones((len(pts), 1))])
    proj = (H @ pts_h.T).T
    return proj[:, :2] / proj[:, 2:]


def ransac_homography(src, dst, n_iters=1000, thresh=5.0):
    best_H, best_inliers = None, 0
    for _ in range(n_iters):
        idx = np.random.choice(len(src), 4, replace=False)
        H = compute_homography(src[idx], dst[idx])
        proj = apply_homography(H, src)
        err = np.linalg.norm(proj - dst, axis=1)
        inliers = np.sum(err < thresh)
        if inliers > best_inliers:
            best_inliers, best_H = inliers, H
    return best_H, best_inliers
