# ruff: noqa  (a published program in its authors' style)
"""POT's ``ot.bregman.sinkhorn_knopp`` (Python Optimal Transport, 0.5-era), plain NumPy:
``np.divide(M, -reg, out=K)``, ``np.exp(K, out=K)``, ``np.einsum(..., out=tmp2)`` into
preallocated buffers, a ``while`` loop on a traced error, a guard on NaNs, and a log
dict; and ``ot.dist``'s squared Euclidean cost."""

import numpy as np


def dist(x1, x2=None, metric="sqeuclidean"):
    if x2 is None:
        x2 = x1
    if metric == "sqeuclidean":
        return (
            np.sum(x1**2, 1).reshape(-1, 1) + np.sum(x2**2, 1).reshape(1, -1) - 2 * np.dot(x1, x2.T)
        )
    raise ValueError(metric)


def sinkhorn_knopp(a, b, M, reg, numItermax=1000, stopThr=1e-9, verbose=False, log=False, **kwargs):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    M = np.asarray(M, dtype=np.float64)

    if len(a) == 0:
        a = np.ones((M.shape[0],), dtype=np.float64) / M.shape[0]
    if len(b) == 0:
        b = np.ones((M.shape[1],), dtype=np.float64) / M.shape[1]

    # init data
    Nini = len(a)
    Nfin = len(b)

    if len(b.shape) > 1:
        nbb = b.shape[1]
    else:
        nbb = 0

    if log:
        log = {"err": []}

    # we assume that no distances are null except those of the diagonal of
    # distances
    if nbb:
        u = np.ones((Nini, nbb)) / Nini
        v = np.ones((Nfin, nbb)) / Nfin
    else:
        u = np.ones(Nini) / Nini
        v = np.ones(Nfin) / Nfin

    # Next 3 lines equivalent to K= np.exp(-M/reg), but faster to compute
    K = np.empty(M.shape, dtype=M.dtype)
    np.divide(M, -reg, out=K)
    np.exp(K, out=K)

    # print(np.min(K))
    tmp2 = np.empty(b.shape, dtype=M.dtype)

    Kp = (1 / a).reshape(-1, 1) * K
    cpt = 0
    err = 1
    while err > stopThr and cpt < numItermax:
        uprev = u
        vprev = v

        KtransposeU = np.dot(K.T, u)
        v = np.divide(b, KtransposeU)
        u = 1.0 / np.dot(Kp, v)

        if (
            np.any(KtransposeU == 0)
            or np.any(np.isnan(u))
            or np.any(np.isnan(v))
            or np.any(np.isinf(u))
            or np.any(np.isinf(v))
        ):
            # we have reached the machine precision
            # come back to previous solution and quit loop
            print("Warning: numerical errors at iteration", cpt)
            u = uprev
            v = vprev
            break
        if cpt % 10 == 0:
            # we can speed up the process by checking for the error only all
            # the 10th iterations
            if nbb:
                err = np.sum((u - uprev) ** 2) / np.sum((u) ** 2) + np.sum(
                    (v - vprev) ** 2
                ) / np.sum((v) ** 2)
            else:
                # compute right marginal tmp2= (diag(u)Kdiag(v))^T1
                np.einsum("i,ij,j->j", u, K, v, out=tmp2)
                err = np.linalg.norm(tmp2 - b)  # violation of marginal
            if log:
                log["err"].append(err)

            if verbose:
                if cpt % 200 == 0:
                    print("{:5s}|{:12s}".format("It.", "Err") + "\n" + "-" * 19)
                print("{:5d}|{:8e}|".format(cpt, err))
        cpt = cpt + 1
    if log:
        log["u"] = u
        log["v"] = v

    if nbb:  # return only loss
        res = np.einsum("ik,ij,jk,ij->k", u, K, v, M)
        if log:
            return res, log
        else:
            return res

    else:  # return OT matrix
        if log:
            return u.reshape((-1, 1)) * K * v.reshape((1, -1)), log
        else:
            return u.reshape((-1, 1)) * K * v.reshape((1, -1))
