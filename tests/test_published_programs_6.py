"""Published programs, round six: classic NumPy programs with hand-written backward
passes, scientific and engineering scripts, computer vision and finance code, run
unchanged.

Each program lives in its own module under ``tests/published6/`` with its authors' import
lines (``import numpy as np``), plotting, data files and environments left out (recorded
or synthetic data instead); the program bodies keep their authors' loops, dicts of states,
in-place updates, buffers, module globals and printing. Sizes and iteration counts are
shrunk to keep this file fast.

Programs: Karpathy's ``min-char-rnn.py`` and ``pg-pong.py``; CS231n's ``rnn_layers.py``
and assignment 2's ``FullyConnectedNet`` (layer norm, dropout, SVM loss); van der Maaten's
``tsne.py``; the SciPy cookbook's bundle adjustment; Langtangen & Linge's
``wave1D_u0.py``/``wave1D_u0v.py``; PythonRobotics' n-joint arm IK; Mocz's ``nbody.py``;
"Neural Networks from Scratch"'s chapter-10 training program (Adam on layer objects);
PythonRobotics' LQR steering (``solve_dare``'s Riccati iteration, ``dlqr``);
Hilpisch's Monte Carlo valuation ("Python for Finance", European and Longstaff-Schwartz
American options); QuantPy's Heston pricing (rectangle rule and ``quad``); a homography by
the DLT with RANSAC.

Oracles: the programs' own hand-written backward passes (``ft.grad``/``ft.vjp`` must
reproduce them: min-char-rnn's BPTT, pg-pong's ``policy_backward``, CS231n's layers and
net, t-SNE's gradient step), float64 central differences, Python loops for ``vmap``,
exact solutions (the wave scheme's quadratic), and SciPy's own results.

What this round found and fixed (each has a test here that fails without it):

* ``x = np.random.randn(n); x += t`` (Mocz's ``vel += acc * dt/2`` after drawing the
  velocities; CS231n's dropout mask) raised ``InPlaceError`` under ``grad``/``jacfwd``:
  numpy.random's global draws made by user code are now buffers, as ``np.zeros``'s are;
* ``scipy.integrate.quad`` of a complex-valued integrand (Heston's) integrates its real
  part with a ``ComplexWarning`` in SciPy; ``ftransforms.scipy.integrate.quad`` raised
  ``TypeError``: it now does as SciPy;
* SciPy's own ``quad`` (bound by ``from scipy.integrate import quad`` before any transform
  ran) reading a traced integrand value with ``float()`` gave the generic conversion
  error: it now names ``ftransforms.scipy.integrate.quad``;
* ``np.linalg.svd(A)`` (``full_matrices=True``, NumPy's default) of a non-square matrix
  had no derivative, so the DLT's ``Vh[-1]`` of an 8x9 system was refused (JAX refuses
  too): a real matrix's one extra singular vector (unique up to its sign) is now
  differentiated, and the reduced factors always are (NOTE [full_matrices=True singular
  vectors]); more than one extra vector, or a complex matrix, is still refused.

Left as they are (pinned): ``W[x]`` with a NumPy ``W`` and a batched integer index (the
captioning model's embedding under ``vmap``) is NumPy's own indexing, which cannot see the
tracer, so the rows run one group each, with a ``PerformanceWarning``; so do Python
branches on traced values (x2p's binary search, the IK loop's early ``return``); the
n-body potential's ``sqrt`` of the zero self-separations has a NaN derivative, as in JAX;
PythonRobotics' ``jacobian_inverse`` sums the joint angles before each link where its
kinematics sums them through it (a bug of the program, which its loop tolerates; ``jacfwd``
gives the true Jacobian); ``jacfwd`` of a function that draws (Mocz's seeded initial
conditions) needs ``randomness='same'``, as in torch.func; ``jit`` of a function that draws
runs eagerly, drawing anew on every call; ``scipy.linalg.eig`` (the LQR program's
closed-loop eigenvalues) has no counterpart in ``ftransforms.scipy.linalg`` yet, so
``dlqr`` under a transform is refused with the error that says so.
"""

from __future__ import annotations

import types

import numpy as np
import optree
import pytest

import ftransforms as ft
from tests.published6 import (
    cs231n_fc_net,
    cs231n_rnn_layers,
    hilpisch_bsm_mcs,
    homography_dlt,
    karpathy_min_char_rnn,
    karpathy_pg_pong,
    langtangen_wave1d,
    mocz_nbody,
    nnfs_adam_training,
    pythonrobotics_dlqr,
    pythonrobotics_n_joint_arm,
    quantpy_heston,
    scipy_cookbook_bundle_adjustment,
    vandermaaten_tsne,
)
from tests.tolerances import FD_TOL, assert_tree_close, tol

TOL = tol(np.float64)


def close(actual, expected, tolerance=TOL, msg=""):
    """``actual`` (what a transform or program returned) is ``expected`` to ``tolerance``."""
    assert_tree_close(actual, optree.tree_map(np.asarray, expected), err_msg=msg, **tolerance)


def fd_jacobian(f, args, argnum=0, eps=1e-3):
    """4th-order central differences in float64 of ``f`` in ``args[argnum]``."""
    x = np.asarray(args[argnum], dtype=np.float64)

    def at(v):
        call = list(args)
        call[argnum] = v
        return np.asarray(f(*call), dtype=np.float64)

    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        cols.append((-at(x + 2 * e) + 8 * at(x + e) - 8 * at(x - e) + at(x - 2 * e)) / (12 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def with_globals(fn, **names):
    """``fn``'s code run with its module's globals updated by ``names`` (a program that
    reads its parameters from module globals, differentiated in them)."""
    rebound = dict(fn.__globals__)
    rebound.update(names)
    return types.FunctionType(fn.__code__, rebound, fn.__name__, fn.__defaults__)


@pytest.fixture
def rng():
    return np.random.default_rng(6)


# ======================================================================================
# 1. Karpathy's min-char-rnn.py: ft.grad of lossFun's loss equals its hand-written
#    backward pass (dicts of states, dy[targets[t]] -= 1, np.clip(..., out=dparam))
# ======================================================================================


def test_min_char_rnn():
    m = karpathy_min_char_rnn
    inputs = [m.char_to_ix[ch] for ch in m.data[: m.seq_length]]
    targets = [m.char_to_ix[ch] for ch in m.data[1 : m.seq_length + 1]]
    rng = np.random.RandomState(1)
    params = {k: rng.randn(*getattr(m, k).shape) * 0.3 for k in ("Wxh", "Whh", "Why", "bh", "by")}
    hprev = np.tanh(rng.randn(m.hidden_size, 1))

    def loss(params, hprev):
        return with_globals(m.lossFun, **params)(inputs, targets, hprev)[0]

    loss_, dWxh, dWhh, dWhy, dbh, dby, h_last = with_globals(m.lossFun, **params)(
        inputs, targets, hprev
    )
    assert max(abs(d).max() for d in (dWxh, dWhh, dWhy, dbh, dby)) < 5  # the clip is inactive
    g = ft.grad(loss)(params, hprev)
    close(g, {"Wxh": dWxh, "Whh": dWhh, "Why": dWhy, "bh": dbh, "by": dby}, msg="grad vs bptt")
    close(ft.grad(loss, 1)(params, hprev), fd_jacobian(lambda h: loss(params, h), (hprev,)), FD_TOL)
    # the whole function (its backward pass and the clip included) under a transform:
    # d(sum of the clipped dWhy)/d hprev against finite differences
    dwhy_sum = lambda h: with_globals(m.lossFun, **params)(inputs, targets, h)[3].sum()  # noqa: E731
    close(ft.grad(dwhy_sum)(hprev), fd_jacobian(dwhy_sum, (hprev,)), FD_TOL, "through bptt")
    # the same loss over a batch of initial states, by vmap and by a loop
    hs = np.tanh(rng.randn(3, m.hidden_size, 1))
    close(ft.vmap(lambda h: loss(params, h))(hs), np.stack([loss(params, h) for h in hs]))
    # the Adagrad loop runs (in place on the module's arrays) and the loss goes down
    before = float(loss(params, np.zeros((m.hidden_size, 1))))
    saved = {k: getattr(m, k).copy() for k in params}
    try:
        m.train(60)
        after = with_globals(m.lossFun, **{k: getattr(m, k) for k in params})(
            inputs, targets, np.zeros((m.hidden_size, 1))
        )[0]
    finally:
        for k, v in saved.items():
            getattr(m, k)[...] = v
    assert after < before


# ======================================================================================
# 2. CS231n's rnn_layers.py: ft.vjp of each forward layer equals the hand-written
#    backward (h[:, t, :] = ... into np.zeros, np.add.at, a masked softmax loss)
# ======================================================================================


def test_cs231n_rnn_layers(rng):
    m = cs231n_rnn_layers
    N, T, D, H, V, M = 2, 4, 3, 5, 7, 6
    x = rng.normal(size=(N, T, D))
    h0 = rng.normal(size=(N, H))
    Wx, Wh, b = rng.normal(size=(D, H)) * 0.5, rng.normal(size=(H, H)) * 0.5, rng.normal(size=H)
    dh = rng.normal(size=(N, T, H))
    # the sequence layer
    h, cache = m.rnn_forward(x, h0, Wx, Wh, b)
    out, vjp_fn = ft.vjp(lambda *a: m.rnn_forward(*a)[0], x, h0, Wx, Wh, b)
    close(out, h)
    close(vjp_fn(dh), m.rnn_backward(dh, cache), msg="rnn_backward")
    # the word embedding (a repeated index: np.add.at accumulates)
    words = np.array([[0, 3, 3, 1], [6, 0, 3, 2]])
    W_embed = rng.normal(size=(V, D))
    emb, ecache = m.word_embedding_forward(words, W_embed)
    dout = rng.normal(size=emb.shape)
    _, evjp = ft.vjp(lambda W: m.word_embedding_forward(words, W)[0], W_embed)
    close(evjp(dout)[0], m.word_embedding_backward(dout, ecache), msg="word_embedding")
    # the temporal affine layer
    w, bb = rng.normal(size=(D, M)), rng.normal(size=M)
    ta, tcache = m.temporal_affine_forward(x, w, bb)
    dta = rng.normal(size=ta.shape)
    _, tvjp = ft.vjp(lambda *a: m.temporal_affine_forward(*a)[0], x, w, bb)
    close(tvjp(dta), m.temporal_affine_backward(dta, tcache), msg="temporal_affine")
    # the masked softmax loss: its dx is the gradient
    scores = rng.normal(size=(N, T, V))
    y = rng.integers(0, V, size=(N, T))
    mask = rng.random((N, T)) > 0.3
    loss, dx = m.temporal_softmax_loss(scores, y, mask)
    close(ft.grad(lambda s: m.temporal_softmax_loss(s, y, mask)[0])(scores), dx, msg="softmax dx")

    # the captioning model's loss: embedding -> rnn -> affine -> softmax, its gradient by
    # chaining the backward passes as CaptioningRNN.loss does
    def caption_loss(W_embed, Wx, Wh, b, w, bb):
        emb, _ = m.word_embedding_forward(words, W_embed)
        h, _ = m.rnn_forward(emb, h0, Wx, Wh, b)
        scores, _ = m.temporal_affine_forward(h, w, bb)
        return m.temporal_softmax_loss(scores, y, mask)[0]

    wh_out = rng.normal(size=(H, V))
    emb, ec = m.word_embedding_forward(words, W_embed)
    h, rc = m.rnn_forward(emb, h0, Wx, Wh, b)
    sc, tc = m.temporal_affine_forward(h, wh_out, np.zeros(V))
    _, dsc = m.temporal_softmax_loss(sc, y, mask)
    dh_, dwo, dbo = m.temporal_affine_backward(dsc, tc)
    demb, _, dWx, dWh, db = m.rnn_backward(dh_, rc)
    dWe = m.word_embedding_backward(demb, ec)
    grads = ft.grad(caption_loss, argnums=(0, 1, 2, 3, 4, 5))(
        W_embed, Wx, Wh, b, wh_out, np.zeros(V)
    )
    close(grads, (dWe, dWx, dWh, db, dwo, dbo), msg="the captioning loss")
    # per-caption losses by vmap over the batch axis of the words: W[x] with a NumPy W and
    # a batched index is NumPy's own indexing, which cannot see the tracer, so the rows
    # run one group each (correct, and said by a PerformanceWarning)
    with pytest.warns(ft.errors.PerformanceWarning, match="W\\[x\\]"):
        per = ft.vmap(
            lambda wd, yy, mk: m.temporal_softmax_loss(
                m.temporal_affine_forward(
                    m.rnn_forward(
                        m.word_embedding_forward(wd[None], W_embed)[0], h0[:1], Wx, Wh, b
                    )[0],
                    wh_out,
                    np.zeros(V),
                )[0],
                yy[None],
                mk[None],
            )[0]
        )(words, y, mask)
    loop = [
        m.temporal_softmax_loss(
            m.temporal_affine_forward(
                m.rnn_forward(
                    m.word_embedding_forward(words[i : i + 1], W_embed)[0], h0[:1], Wx, Wh, b
                )[0],
                wh_out,
                np.zeros(V),
            )[0],
            y[i : i + 1],
            mask[i : i + 1],
        )[0]
        for i in range(N)
    ]
    close(per, np.stack(loop), msg="vmap over captions")


# ======================================================================================
# 3. van der Maaten's tsne.py: vmap of x2p's per-point binary search (Python while/if
#    on traced entropies, in-place beta[i] = ...), and the program's hand-written
#    gradient step against ft.grad of the KL cost its own lines compute
# ======================================================================================


def test_tsne(rng, monkeypatch, capsys):
    m = vandermaaten_tsne
    Xs = rng.normal(size=(2, 7, 3)) * np.array([1.0, 2.0])[:, None, None]
    P_loop = np.stack([m.x2p(X, 1e-5, 3.0) for X in Xs])
    with pytest.warns(ft.errors.PerformanceWarning, match="Hdiff > 0"):  # rows split there
        P_vmap = ft.vmap(lambda X: m.x2p(X, 1e-5, 3.0))(Xs)
    close(P_vmap, P_loop, msg="vmap(x2p)")
    close(P_loop.sum(2), np.ones((2, 7)))
    # d P / d X at the precisions the search found (the search only compares)
    X = Xs[0]
    Pr = lambda X: m.x2p(X, 1e-5, 3.0)[2]  # noqa: E731
    J = ft.jacrev(Pr)(X)

    def row2(X, beta):  # Hbeta of row 2 at a fixed precision, in the program's lines
        sum_X = np.sum(np.square(X), 1)
        D = np.add(np.add(-2 * np.dot(X, X.T), sum_X).T, sum_X)
        Di = D[2, np.concatenate((np.r_[0:2], np.r_[3:7]))]
        return np.insert(m.Hbeta(Di, beta)[1], 2, 0.0)

    # the precision the search settled on, read back from P's row: log(P_20 / P_21) =
    # -beta (D_20 - D_21); at that precision, the row's derivative by differences
    D = np.add(np.add(-2 * X @ X.T, (X**2).sum(1)).T, (X**2).sum(1))
    beta = -np.log(Pr(X)[0] / Pr(X)[1]) / (D[2, 0] - D[2, 1])
    close(row2(X, beta), Pr(X))
    close(J, fd_jacobian(lambda X: row2(X, beta), (X,)), FD_TOL, "d P / d X")
    capsys.readouterr()

    # one step of the program's loop: Y1 = Y0 - eta * gains * dY, recentred, where its
    # dY is a quarter of the gradient of C = sum(P log(P/Q)) when P sums to one; under the
    # early exaggeration (P sums to 4) the step is the gradient of C less (sum(P) - 1)
    # log(sum(num)) (the normaliser of Q counted once)
    monkeypatch.setattr(m, "MAX_ITER", 1)
    Xd = rng.normal(size=(8, 4))
    np.random.seed(3)
    Y1 = m.tsne(Xd, 2, 4, 3.0)
    np.random.seed(3)
    Y0 = np.random.randn(8, 2)
    P = m.x2p(m.pca(Xd, 4).real, 1e-5, 3.0)
    P = P + np.transpose(P)
    P = np.maximum(P / np.sum(P) * 4.0, 1e-12)

    def C(Y):
        n = Y.shape[0]
        sum_Y = np.sum(np.square(Y), 1)
        num = -2.0 * np.dot(Y, Y.T)
        num = 1.0 / (1.0 + np.add(np.add(num, sum_Y).T, sum_Y))
        num[range(n), range(n)] = 0.0
        Q = num / np.sum(num)
        Q = np.maximum(Q, 1e-12)
        return np.sum(P * np.log(P / Q)) - (np.sum(P) - 1) * np.log(np.sum(num))

    dY = ft.grad(C)(Y0) / 4
    close(dY, fd_jacobian(C, (Y0,)) / 4, FD_TOL)
    step = Y0 - 500 * np.where(dY > 0, 1.2, 0.8) * dY
    close(Y1, step - step.mean(0), msg="the program's step is a quarter of grad C")


# ======================================================================================
# 4. The SciPy cookbook's bundle adjustment: the residuals' Jacobian by jacfwd/jacrev
#    (Rodrigues under np.errstate + np.nan_to_num, in-place += and *=), inside the
#    cookbook's sparsity pattern, and least_squares driven by it
# ======================================================================================


def test_bundle_adjustment(rng):
    import scipy.optimize

    m = scipy_cookbook_bundle_adjustment
    n_cameras, n_points = 2, 4
    camera_indices = np.array([0, 0, 0, 0, 1, 1, 1])
    point_indices = np.array([0, 1, 2, 3, 0, 2, 3])
    cams = np.zeros((n_cameras, 9))
    cams[:, :3] = rng.normal(size=(n_cameras, 3)) * 0.1
    cams[:, 3:6] = rng.normal(size=(n_cameras, 3)) * 0.1 + [0.0, 0.0, -5.0]
    cams[:, 6] = 1.0 + 0.1 * rng.random(n_cameras)
    cams[:, 7:] = rng.normal(size=(n_cameras, 2)) * 0.01
    pts = rng.normal(size=(n_points, 3))
    truth = np.hstack((cams.ravel(), pts.ravel()))
    points_2d = m.project(pts[point_indices], cams[camera_indices])
    args = (n_cameras, n_points, camera_indices, point_indices, points_2d)
    x0 = truth + rng.normal(size=truth.size) * 0.01

    J = ft.jacfwd(m.fun)(x0, *args)
    close(J, fd_jacobian(m.fun, (x0, *args)), FD_TOL, "jacfwd(fun)")
    close(ft.jacrev(m.fun)(x0, *args), J, msg="jacrev = jacfwd")
    A = m.bundle_adjustment_sparsity(n_cameras, n_points, camera_indices, point_indices)
    assert not np.any((J != 0) & (A.toarray() == 0)), "a nonzero outside the cookbook's pattern"
    # a camera without rotation: the errstate/nan_to_num path gives the identity rotation
    at_rest = np.array([[0.0, 0.0, 0.0], [0.3, -0.2, 0.1]])
    close(m.rotate(pts[:2], at_rest)[0], pts[0])
    rot = ft.jacfwd(lambda p: m.rotate(p, at_rest[1:]))(pts[1:2])
    close(rot, fd_jacobian(lambda p: m.rotate(p, at_rest[1:]), (pts[1:2],)), FD_TOL)
    # least_squares with our Jacobian reaches the scene (zero residual)
    res = scipy.optimize.least_squares(
        m.fun, x0, jac=ft.jacfwd(m.fun), method="trf", x_scale="jac", ftol=1e-12, args=args
    )
    assert res.success and res.cost < 1e-8 * 0.5 * np.sum(m.fun(x0, *args) ** 2)


# ======================================================================================
# 5. Langtangen & Linge's wave1D_u0.py / wave1D_u0v.py: the explicit wave scheme with
#    buffers written element by element and by slices, then copied or swapped
# ======================================================================================


def test_wave1d(rng):
    m = langtangen_wave1d
    m.test_quadratic()  # the book's exact-solution test
    L, c, C, T = 1.0, 1.0, 0.8, 0.5
    dt = C * (L / 10) / c

    def energy(amps, solver=m.solver):
        I = lambda x: amps[0] * np.sin(np.pi * x) + amps[1] * np.sin(2 * np.pi * x)  # noqa: E731, E741
        V = lambda x: amps[2] * x * (L - x)  # noqa: E731
        seen = []
        u, x, t, cpu = solver(
            I, V, 0, c, L, dt, C, T, user_action=lambda u, x, t, n: seen.append(u.max())
        )
        return np.sum(u**2) + seen[2]

    amps = np.array([1.0, 0.3, -0.5])
    assert np.isclose(energy(amps), energy(amps, m.solver_vectorized), rtol=1e-13)
    g = ft.grad(energy)(amps)
    close(g, fd_jacobian(energy, (amps,)), FD_TOL, "scalar solver")
    close(ft.grad(energy)(amps, m.solver_vectorized), g, msg="vectorized solver")

    def final(amps, solver=m.solver_vectorized):
        I = lambda x: amps[0] * np.sin(np.pi * x) + amps[1] * np.sin(2 * np.pi * x)  # noqa: E731, E741
        return solver(I, lambda x: amps[2] * x * (L - x), None, c, L, dt, C, T)[0]

    J = ft.jacfwd(final)(amps)
    close(J, fd_jacobian(final, (amps,)), FD_TOL, "jacfwd of the final wave")
    close(ft.jacrev(lambda a: final(a, m.solver))(amps), J, msg="jacrev, scalar solver")
    batch = rng.normal(size=(3, 3))
    close(ft.vmap(final)(batch), np.stack([final(a) for a in batch]), msg="vmap")


# ======================================================================================
# 6. PythonRobotics' n-joint arm: forward kinematics in Python scalars, its hand-written
#    Jacobian (np.zeros with -= and +=, then pinv), and the IK loop's early return
# ======================================================================================


def test_n_joint_arm(rng, capsys):
    m = pythonrobotics_n_joint_arm
    links = np.ones(m.N_LINKS)
    q = rng.uniform(-1, 1, m.N_LINKS)
    J = ft.jacfwd(m.forward_kinematics, argnums=1)(links, q)
    close(J, fd_jacobian(m.forward_kinematics, (links, q), 1), FD_TOL, "jacfwd(fk)")
    close(ft.jacrev(m.forward_kinematics, argnums=(0, 1))(links, q)[1], J)
    # the program's Jacobian sums the angles before link j (joint_angles[:j]) where the
    # kinematics sums them through it ([:j + 1]): it is the true Jacobian's columns with
    # every angle sum shifted back by one joint, which the program's loop tolerates
    sums = np.concatenate(([0.0], np.cumsum(q)[:-1]))
    shifted = np.array(
        [
            [-np.sum(links[i:] * np.sin(sums[i:])) for i in range(4)],
            [np.sum(links[i:] * np.cos(sums[i:])) for i in range(4)],
        ]
    )
    close(np.linalg.pinv(shifted), m.jacobian_inverse(links, q))
    assert not np.allclose(np.linalg.pinv(J), m.jacobian_inverse(links, q))
    # pinv of the filled buffer, differentiated in the link lengths
    Jinv_sum = lambda L: m.jacobian_inverse(L, q).sum()  # noqa: E731
    close(ft.grad(Jinv_sum)(links), fd_jacobian(Jinv_sum, (links,)), FD_TOL, "d pinv / d L")
    # the IK loop: per goal, by vmap (its early return splits the batch) and by a loop
    goals = np.array([[1.5, 1.0], [2.5, -0.5]])
    q0 = np.full(m.N_LINKS, 0.2)
    loop = [m.inverse_kinematics(links, q0, g) for g in goals]
    assert all(found for _, found in loop)
    with pytest.warns(ft.errors.PerformanceWarning, match="distance < 0.1"):
        qs, found = ft.vmap(lambda g: m.inverse_kinematics(links, q0, g))(goals)
    close(qs, np.stack([qv for qv, _ in loop]), msg="vmap(inverse_kinematics)")
    assert found is True or np.all(found)
    for qv, g in zip(qs, goals):
        assert np.hypot(*(m.forward_kinematics(links, qv) - g)) < 0.1
    # how the solution moves with the goal, through the loop's iterations
    ik = lambda g: m.inverse_kinematics(links, q0, g)[0]  # noqa: E731
    direction = np.array([1.0, 0.5])
    _, dq = ft.jvp(ik, (goals[0],), (direction,))
    fd = fd_jacobian(lambda t: ik(goals[0] + t * direction), (0.0,), eps=1e-5)
    close(dq, fd, {"rtol": 1e-5, "atol": 1e-6}, "jvp through the IK loop")
    close(ft.vmap(m.ang_diff)(q, q0), np.stack([m.ang_diff(a, b) for a, b in zip(q, q0)]))
    capsys.readouterr()


# ======================================================================================
# 7. Hilpisch's "Python for Finance" Monte Carlo valuation: pathwise greeks by ft.grad
#    through paths filled row by row, Longstaff-Schwartz (np.polyfit per step), vmap over
#    strikes with one shared draw, jit of a function that draws
# ======================================================================================


def test_hilpisch_monte_carlo_greeks(monkeypatch):
    import numpy.random as npr

    m = hilpisch_bsm_mcs
    monkeypatch.setattr(m, "I", 400)
    monkeypatch.setattr(m, "M", 10)

    def seeded(f, **names):  # the book seeds once (npr.seed(1000)); each call here
        g = with_globals(f, **names) if names else f

        def call(*args):
            npr.seed(1000)
            return g(*args)

        return call

    def fd(f, x, eps=1e-4):  # the payoffs are piecewise linear: a small central step
        return (f(x + eps) - f(x - eps)) / (2 * eps)

    for fn in (m.gbm_mcs_stat, m.gbm_mcs_dyna, m.gbm_mcs_amer):
        dK = ft.grad(seeded(fn))(105.0)
        close(dK, fd(seeded(fn), 105.0), {"rtol": 1e-7, "atol": 1e-9}, fn.__name__)
        assert -1 < dK < 0
    # delta and vega: the parameters are module globals
    delta = ft.grad(lambda s0: seeded(m.gbm_mcs_dyna, S0=s0)(105.0))(100.0)
    close(
        delta,
        fd(lambda s0: seeded(m.gbm_mcs_dyna, S0=s0)(105.0), 100.0),
        {"rtol": 1e-7, "atol": 1e-9},
    )
    vega = ft.grad(lambda s: seeded(m.gbm_mcs_amer, sigma=s)(95.0, "put"))(0.25)
    close(
        vega,
        fd(lambda s: seeded(m.gbm_mcs_amer, sigma=s)(95.0, "put"), 0.25),
        {"rtol": 1e-6, "atol": 1e-8},
    )
    assert vega > 0
    # a strike per row, one draw for all (the random numbers do not depend on the row)
    Ks = np.array([90.0, 100.0, 110.0])
    npr.seed(1000)
    by_vmap = ft.vmap(m.gbm_mcs_dyna, randomness="same")(Ks)
    close(by_vmap, np.stack([seeded(m.gbm_mcs_dyna)(K) for K in Ks]), msg="vmap, randomness='same'")
    with pytest.raises(ft.errors.RandomnessError, match="standard_normal"):
        ft.vmap(m.gbm_mcs_dyna)(Ks)
    # jit: the draw makes the recording depend on data, so every call runs eagerly and
    # draws anew, as the program does
    jitted = ft.jit(m.gbm_mcs_dyna)
    npr.seed(3)
    with pytest.warns(RuntimeWarning, match="random draw"):
        first = [jitted(K) for K in Ks]
    npr.seed(3)
    close(np.stack(first), np.stack([m.gbm_mcs_dyna(K) for K in Ks]), msg="jit draws anew")


# ======================================================================================
# 8. QuantPy's Heston pricing: greeks by ft.grad through complex arithmetic, by the
#    rectangle rule's loop and by quad of a complex integrand (SciPy integrates its real
#    part), vmap over strikes
# ======================================================================================


def test_heston_greeks(monkeypatch):
    import scipy.integrate

    m = quantpy_heston
    monkeypatch.setattr(m, "N_REC", 40)
    args = (m.S0, m.K, m.v0, m.kappa, m.theta, m.sigma, m.rho, m.lambd, m.tau, m.r)

    def fd(f, k, eps=1e-5):
        up, down = list(args), list(args)
        up[k] += eps
        down[k] -= eps
        return (f(*up) - f(*down)) / (2 * eps)

    wrt = (0, 2, 3, 5, 6)  # S0 (delta), v0, kappa, sigma, rho
    g = ft.grad(m.heston_price_rec, argnums=wrt)(*args)
    close(
        g,
        tuple(fd(m.heston_price_rec, k) for k in wrt),
        {"rtol": 1e-7, "atol": 1e-8},
        "rectangle rule",
    )
    # the strike as an array, as the notebook's calibration calls it, and vmap over it
    Ks = np.array([90.0, 100.0, 110.0])
    by_vmap = ft.vmap(lambda K: m.heston_price_rec(m.S0, K, *args[2:]))(Ks)
    close(by_vmap, m.heston_price_rec(m.S0, Ks, *args[2:]), msg="vmap over strikes")
    # quad of the complex integrand: SciPy casts each value to float (the real part, with a
    # ComplexWarning), and so does ftransforms.scipy.integrate.quad
    with pytest.warns(np.exceptions.ComplexWarning):
        price = m.heston_price(*args)
    ours = with_globals(m.heston_price, quad=ft.scipy.integrate.quad)
    with pytest.warns(np.exceptions.ComplexWarning):
        close(ours(*args), price, {"rtol": 1e-9, "atol": 1e-9})
        dq = ft.grad(ours, argnums=(0, 2, 6))(*args)
        close(
            dq,
            tuple(fd(m.heston_price, k) for k in (0, 2, 6)),
            {"rtol": 1e-6, "atol": 1e-7},
            "quad",
        )
    # SciPy's own quad (a name bound before any transform ran) refuses with the fix named
    scipy_quad = getattr(scipy.integrate.quad, "__wrapped__", scipy.integrate.quad)
    theirs = with_globals(m.heston_price, quad=scipy_quad)
    with pytest.raises(ft.errors.TracerConversionError, match="ftransforms.scipy.integrate.quad"):
        ft.grad(theirs)(*args)


# ======================================================================================
# 9. Mocz's nbody.py: forces as -grad of the potential (writes through boolean masks on
#    traced separations), the leapfrog loop's in-place kicks differentiated in G
# ======================================================================================


def test_mocz_nbody(rng):
    m = mocz_nbody
    N = 5
    pos, vel = rng.normal(size=(N, 3)), rng.normal(size=(N, 3))
    mass = rng.uniform(0.5, 1.5, size=(N, 1))
    # the potential takes sqrt of the zero self-separations, which the mask write leaves
    # in place and np.triu then drops: its derivative there is 0 * inf, NaN, as in JAX
    with np.errstate(divide="ignore", invalid="ignore"):
        dPE = ft.grad(lambda p: m.getEnergy(p, vel, mass, 1.0)[1])(pos)
    assert np.isnan(dPE).all()
    close(ft.grad(lambda v: m.getEnergy(pos, v, mass, 1.0)[0])(vel), mass * vel)
    J = ft.jacfwd(m.getAcc)(pos, mass, 1.0, 0.1)
    close(J, fd_jacobian(m.getAcc, (pos, mass, 1.0, 0.1)), FD_TOL, "jacfwd(getAcc)")
    close(
        ft.jacrev(m.getAcc, argnums=3)(pos, mass, 1.0, 0.1),
        fd_jacobian(m.getAcc, (pos, mass, 1.0, 0.1), 3),
        FD_TOL,
    )
    configs = rng.normal(size=(3, N, 3))
    close(
        ft.vmap(lambda p: m.getEnergy(p, vel, mass, 1.0))(configs),
        tuple(np.stack(e) for e in zip(*[m.getEnergy(p, vel, mass, 1.0) for p in configs])),
        msg="vmap(getEnergy)",
    )
    # the simulation, shrunk: energy is conserved to the scheme's order; the final
    # positions' derivatives in G and in the softening through every kick and drift
    pos_save, KE, PE, t = m.main(N=6, tEnd=0.2, dt=0.02)
    assert pos_save.shape == (6, 3, 11) and abs((KE + PE)[-1] - (KE + PE)[0]) < 1e-2 * abs(PE[0])

    def final(G, soft=0.1):
        pos_save, KE, PE, t = m.main(N=6, tEnd=0.1, dt=0.02, G=G, softening=soft)
        return pos_save[:, :, -1]

    # main seeds and draws its initial conditions: jacfwd (a vmap over the tangents, as
    # torch.func's) needs randomness='same' for that, and refuses without it
    with pytest.raises(ft.errors.RandomnessError, match="randn"):
        ft.jacfwd(final)(1.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # getEnergy's sqrt(0) tangents
        dpos = ft.jacfwd(final, randomness="same")(1.0)
    close(dpos, fd_jacobian(final, (1.0,)), FD_TOL, "d pos / d G")
    close(
        ft.jacrev(final, 1)(1.0, 0.1), fd_jacobian(final, (1.0, 0.1), 1), FD_TOL, "d pos / d soft"
    )
    kinetic = lambda G: m.main(N=6, tEnd=0.1, dt=0.02, G=G)[1][-1]  # noqa: E731
    close(ft.grad(kinetic)(1.0), fd_jacobian(kinetic, (1.0,)), FD_TOL, "d KE / d G")


# ======================================================================================
# 10. Karpathy's pg-pong.py: ft.grad of the episode's advantage-weighted log-likelihood
#     equals policy_backward (ReLU by h[h<0] = 0, dh[eph <= 0] = 0); vmap of prepro
# ======================================================================================


def test_pg_pong():
    m = karpathy_pg_pong
    rs = np.random.RandomState(5)
    frames = rs.choice(np.array([144, 109, 0, 236, 92], dtype=np.uint8), size=(6, 210, 160, 3))
    frames[:, 35:195:2, ::2, 0] = rs.choice(
        np.array([144, 236, 0], dtype=np.uint8), size=(6, 80, 80)
    )
    rewards = np.array([0.0, 0.0, -1.0, 0.0, 1.0, 0.0])
    saved = {k: v.copy() for k, v in m.model.items()}
    m.model["W1"] = rs.randn(m.H, m.D) * 0.05  # larger weights: some units on, some off
    try:
        np.random.seed(1)
        grad, reward_sum = m.run_episode(frames, rewards, 1)
        assert reward_sum == 0.0
        # the same episode, its sampled actions replayed: the objective the program's
        # gradient ascends, differentiated in the model
        np.random.seed(1)
        uniforms = np.random.uniform(size=len(frames))
        xs = [np.zeros(m.D)] + [m.prepro(frames[t]) - m.prepro(frames[t - 1]) for t in range(1, 6)]
        adv = m.discount_rewards(rewards[:, None])
        adv = ((adv - adv.mean()) / adv.std()).ravel()

        def objective(model):
            total = 0.0
            for x, u, a in zip(xs, uniforms, adv):
                p, h = with_globals(m.policy_forward, model=model)(x)
                taken = u < p  # the action the program sampled
                total = total + a * np.log(np.where(taken, p, 1 - p))
            return total

        model = {k: v.copy() for k, v in m.model.items()}
        # the program updated the model in place only at episode % 10 == 0: not here
        g = ft.grad(objective)(model)
        close(g, grad, msg="grad of the objective vs policy_backward")
        # prepro of a batch of frames by vmap (mask writes into integer views)
        close(
            ft.vmap(m.prepro)(frames), np.stack([m.prepro(f) for f in frames]), msg="vmap(prepro)"
        )
    finally:
        for k, v in saved.items():
            m.model[k] = v


# ======================================================================================
# 11. CS231n's FullyConnectedNet: ft.grad of its loss (parameters as a dict attribute,
#     layer norm, seeded inverted dropout, the SVM loss's index writes, L2) equals the
#     gradients its loss method writes out by hand
# ======================================================================================


def test_cs231n_fully_connected_net():
    m = cs231n_fc_net
    np.random.seed(231)
    N, D, C = 4, 6, 3
    X = np.random.randn(N, D)
    y = np.random.randint(C, size=(N,))
    for normalization, keep in ((None, 1), ("layernorm", 0.7)):
        np.random.seed(0)
        net = m.FullyConnectedNet(
            [5, 4],
            input_dim=D,
            num_classes=C,
            dropout_keep_ratio=keep,
            normalization=normalization,
            reg=0.1,
            weight_scale=0.5,
            dtype=np.float64,
            seed=123,
        )
        for k in net.params:  # trained biases: no ReLU input sits exactly at its kink
            if k.startswith("b"):
                net.params[k] = np.random.randn(*net.params[k].shape)
        loss, grads = net.loss(X, y)

        def loss_of(params):
            net.params = params
            return net.loss(X, y)[0]

        params = dict(net.params)
        g = ft.grad(loss_of)(params)
        net.params = params
        close(g, grads, msg=f"grad vs the net's backward ({normalization}, keep={keep})")
        close(loss_of(params), loss)
    # each layer's vjp against its backward
    x = np.random.randn(N, D)
    gamma, beta = np.random.randn(D), np.random.randn(D)
    out, cache = m.layernorm_forward(x, gamma, beta, {})
    dout = np.random.randn(*out.shape)
    _, vjp = ft.vjp(lambda *a: m.layernorm_forward(*a, {})[0], x, gamma, beta)
    close(vjp(dout), m.layernorm_backward(dout, cache), msg="layernorm")
    scores = np.random.randn(N, C)
    close(ft.grad(lambda s: m.svm_loss(s, y)[0])(scores), m.svm_loss(scores, y)[1], msg="svm dx")
    # dropout's mask is seeded per call: per-example calls under vmap share it
    xs = np.random.randn(3, N, D)
    dp = {"mode": "train", "p": 0.5, "seed": 7}
    by_vmap = ft.vmap(lambda x: m.dropout_forward(x, dp)[0], randomness="same")(xs)
    close(by_vmap, np.stack([m.dropout_forward(x, dp)[0] for x in xs]), msg="vmap(dropout)")


# ======================================================================================
# 12. A homography by the DLT: the null vector of np.linalg.svd(A)'s full Vh (a wide 8x9
#     system for four points, a tall one for five), differentiated in the points
# ======================================================================================


def test_homography_dlt(rng):
    m = homography_dlt
    H_true = np.array([[1.1, 0.1, 3.0], [-0.05, 0.95, -2.0], [1e-3, -2e-3, 1.0]])
    src = rng.uniform(0, 50, size=(6, 2))
    dst = m.apply_homography(H_true, src)
    close(m.compute_homography(src[:4], dst[:4]), H_true, {"rtol": 1e-8, "atol": 1e-10})
    for k in (4, 5):  # A is 8x9 (its null vector is Vh's extra row) or 10x9
        J = ft.jacfwd(m.compute_homography, argnums=1)(src[:k], dst[:k])
        close(J, fd_jacobian(m.compute_homography, (src[:k], dst[:k]), 1), FD_TOL, f"{k} points")
        close(ft.jacrev(m.compute_homography, argnums=1)(src[:k], dst[:k]), J, msg="jacrev")

    # the reprojection error of a noisy fit, in the measured points
    noisy = dst + rng.normal(size=dst.shape) * 0.1

    def reprojection(noisy):
        H = m.compute_homography(src, noisy)
        return np.sum((m.apply_homography(H, src) - noisy) ** 2)

    close(ft.grad(reprojection)(noisy), fd_jacobian(reprojection, (noisy,)), FD_TOL, "reprojection")
    # with more than one extra singular vector the full factors are not unique: refused
    with pytest.raises(ft.errors.UnsupportedOperationError, match="full_matrices=False"):
        ft.jacfwd(lambda d: np.linalg.svd(d.reshape(6, 2))[0])(dst[:6].ravel())
    # a batch of 4-point fits by vmap, and RANSAC's loop (random samples, a Python if on the
    # inlier count) differentiated in the destination points
    batch = np.stack([dst[:4] + rng.normal(size=(4, 2)) * 0.01 for _ in range(3)])
    close(
        ft.vmap(lambda d: m.compute_homography(src[:4], d))(batch),
        np.stack([m.compute_homography(src[:4], d) for d in batch]),
        msg="vmap over fits",
    )
    np.random.seed(0)
    H, inliers = m.ransac_homography(src, dst, n_iters=5)
    assert inliers == 6
    ransac_h = lambda d: m.ransac_homography(src, d, n_iters=3)[0]  # noqa: E731
    np.random.seed(1)
    g = ft.jacrev(ransac_h)(dst)
    np.random.seed(1)
    idx = np.random.choice(6, 4, replace=False)  # the first sample wins (all are inliers)
    close(
        g[:, :, idx], ft.jacrev(m.compute_homography, argnums=1)(src[idx], dst[idx]), msg="ransac"
    )


# ======================================================================================
# 13. "Neural Networks from Scratch" chapter 10: the layers' hand-written backward equals
#     ft.grad, and the meta-gradient of the loss after Adam's in-place steps (caches made
#     on the layers with hasattr) in the learning rate
# ======================================================================================


def test_nnfs_adam_training(capsys):
    m = nnfs_adam_training
    np.random.seed(0)
    X, y = m.spiral_data(samples=10, classes=3)

    def run(W1, lr, epochs):
        np.random.seed(1)
        dense1, dense2 = m.Layer_Dense(2, 8), m.Layer_Dense(8, 3)
        dense1.weights = np.copy(W1)  # Adam updates it in place
        dense2.weights = dense2.weights * 50
        optimizer = m.Optimizer_Adam(learning_rate=lr, decay=5e-7)
        return m.train(X, y, dense1, dense2, optimizer, epochs=epochs), dense1

    np.random.seed(2)
    W1 = np.random.randn(2, 8)
    # one epoch at learning rate 0: the weights stay, dense1.dweights is the book's gradient
    loss, dense1 = run(W1, 0.0, 1)
    close(ft.grad(lambda W: run(W, 0.0, 1)[0])(W1), dense1.dweights, msg="backward vs grad")
    # five epochs of Adam: d loss / d learning rate, and d loss / d initial weights
    final = lambda lr: run(W1, lr, 5)[0]  # noqa: E731
    close(ft.grad(final)(0.05), fd_jacobian(final, (0.05,), eps=1e-5), {"rtol": 1e-6, "atol": 1e-8})
    final_w = lambda W: run(W, 0.05, 3)[0]  # noqa: E731
    close(ft.grad(final_w)(W1), fd_jacobian(final_w, (W1,), eps=1e-5), {"rtol": 1e-6, "atol": 1e-8})
    assert "epoch: 0, acc:" in capsys.readouterr().out


# ======================================================================================
# 14. PythonRobotics' LQR steering: the Riccati fixed point (la.inv in a loop with an
#     early break) differentiated in the speed; dlqr's la.eig has no counterpart (pinned)
# ======================================================================================


def test_pythonrobotics_dlqr():
    m = pythonrobotics_dlqr

    def riccati(v):
        A, B = m.model_matrices(v)
        return m.solve_dare(A, B, m.Q, m.R)

    J = ft.jacfwd(riccati)(5.0)
    close(J, fd_jacobian(riccati, (5.0,), eps=1e-6), {"rtol": 1e-6, "atol": 1e-8}, "dX/dv")
    close(ft.jacrev(riccati)(5.0), J, msg="jacrev")
    vs = np.array([2.0, 5.0, 8.0])
    with pytest.warns(ft.errors.PerformanceWarning, match="max\\(\\) < eps"):  # rows split
        by_vmap = ft.vmap(riccati)(vs)
    close(by_vmap, np.stack([riccati(v) for v in vs]), msg="vmap over speeds")
    # the program's own gain (la.inv on plain arrays) is stabilising
    K, X, eigs = m.dlqr(*m.model_matrices(5.0), m.Q, m.R)
    assert np.all(np.abs(eigs) < 1)

    # dlqr ends with scipy.linalg.eig of the closed loop (ftransforms.scipy.linalg.eig):
    # the whole program differentiates, gain and closed-loop eigenvalues
    def gain(v):
        return m.dlqr(*m.model_matrices(v), m.Q, m.R)[0]

    close(ft.jacfwd(gain)(5.0), fd_jacobian(gain, (5.0,), eps=1e-6), {"rtol": 1e-6, "atol": 1e-8})

    def spectral_radius(v):
        return np.abs(m.dlqr(*m.model_matrices(v), m.Q, m.R)[2]).max()

    close(
        ft.grad(spectral_radius)(5.0),
        (spectral_radius(5.0 + 1e-6) - spectral_radius(5.0 - 1e-6)) / 2e-6,
        {"rtol": 1e-5, "atol": 1e-8},
    )
