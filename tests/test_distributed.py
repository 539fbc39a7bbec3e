"""``ftransforms.distributed`` (fd) on dask: equal to the single-machine transforms, on dask's
synchronous scheduler (fast) and on a LocalCluster of two worker processes; the driver-side
errors; CuPy-like chunks (the strict stand-in) staying on their "device"; a worker killed
mid-computation; and (slow) a dataset larger than the workers' memory limit.

Oracles: ``ft.vmap``/``ft.jacrev``/``ft.hessian`` on the same in-memory data (themselves
checked against JAX elsewhere), Python loops of ``ft.grad``, NumPy sums, and a Hessian's
closed form.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="ftransforms.distributed needs dask[array]")
distributed = pytest.importorskip("distributed", reason="ftransforms.distributed needs it")

import cloudpickle  # noqa: E402
from dask.callbacks import Callback  # noqa: E402

import ftransforms as ft  # noqa: E402
import ftransforms.distributed as fd  # noqa: E402
from ftransforms import strict_backend as sb  # noqa: E402
from ftransforms.core.stack import current_stack  # noqa: E402
from ftransforms.distributed import _tasks  # noqa: E402
from ftransforms.errors import (  # noqa: E402
    ChunksError,
    ChunkSizeError,
    DaskArrayError,
    DistributedNestingError,
    FunctionPicklingError,
    InDimsError,
    MissingDependencyError,
    MixedBackendError,
    ReduceError,
)
from tests.tolerances import tol  # noqa: E402

# The workers cannot import this test module by name: ship its functions by value, as
# cloudpickle does for functions defined in a notebook.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SYNC = {"scheduler": "sync"}


def loss(w, x, y):
    return (np.tanh(x @ w) - y) ** 2


per_example_grad = ft.grad(loss)


def clipped_grad(w, x, y, clip=1.0):
    g = ft.grad(loss)(w, x, y)
    return g * np.minimum(1.0, clip / (np.sqrt((g * g).sum()) + 1e-12))


def _data(dtype=np.float64, n=23, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=d).astype(dtype),
        rng.normal(size=(n, d)).astype(dtype),
        rng.normal(size=n).astype(dtype),
    )


def _loop(func, *args):
    """The per-example Python loop: the oracle for vmap."""
    return np.stack([func(*a) for a in zip(*args)])


# -- equality on the synchronous scheduler --------------------------------------------------


def test_vmap_over_dask_blocks_equals_the_loop_and_ft_vmap(dtype):
    w, X, Y = _data(dtype)
    Xd = da.from_array(X, chunks=(5, 4))  # uneven last block (23 = 4 * 5 + 3)
    Yd = da.from_array(Y, chunks=7)  # other blocks: unified with X's inside the tasks
    out = fd.vmap(per_example_grad, in_dims=(None, 0, 0))(w, Xd, Yd)
    assert isinstance(out, da.Array) and out.chunks == ((5, 5, 5, 5, 3), (4,))
    assert out.dtype == dtype and type(out._meta) is np.ndarray
    got = fd.compute(out, **SYNC)
    want = _loop(lambda x, y: per_example_grad(w, x, y), X, Y)
    np.testing.assert_allclose(got, want, **tol(dtype))
    assert got.dtype == dtype
    assert np.array_equal(got, ft.vmap(per_example_grad, in_dims=(None, 0, 0))(w, X, Y))


def test_uniform_blocks_are_bitwise_equal_to_ft_vmap_with_chunk_size():
    w, X, Y = _data(n=40)
    f = fd.vmap(per_example_grad, in_dims=(None, 0, 0), chunk_size=8)
    for Xin in (X, da.from_array(X, chunks=(5, 4)), da.from_array(X, chunks=(8, 4))):
        out = f(w, Xin, Y)
        assert out.chunks[0] == (8,) * 5
        want = ft.vmap(per_example_grad, in_dims=(None, 0, 0), chunk_size=8)(w, X, Y)
        assert np.array_equal(fd.compute(out, **SYNC), want)


def test_dask_thread_pool_runs_blocks_concurrently_with_the_same_result():
    w, X, _ = _data(n=200, d=6)
    want = ft.vmap(per_example_grad, in_dims=(None, 0, None))(w, X, 0.5)
    for f in (per_example_grad, ft.jit(per_example_grad)):
        out = fd.vmap(f, in_dims=(None, 0, None), chunk_size=10)(w, X, 0.5)
        got = fd.compute(out, scheduler="threads", num_workers=4)
        np.testing.assert_allclose(got, want, **tol(np.float64))


def test_pytree_inputs_outputs_other_in_dims_and_keywords():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 17, 2))  # mapped over axis 1
    B = rng.normal(size=(17,))
    c = rng.normal(size=2)

    def f(tree, c, *, scale):
        a, b = tree["a"], tree["b"]
        return {"s": (a @ c) * b * scale, "pair": (a.sum(0), np.sin(b))}

    args = ({"a": da.from_array(A, chunks=(3, 6, 2)), "b": B}, c)
    in_dims = ({"a": 1, "b": 0}, None)
    out = fd.vmap(f, in_dims=in_dims)(*args, scale=2.0)
    assert out["s"].chunks == ((6, 6, 5), (3,)) and out["pair"][0].shape == (17, 2)
    got = fd.compute(out, **SYNC)
    want = ft.vmap(f, in_dims=in_dims)({"a": A, "b": B}, c, scale=2.0)
    for g, e in zip([got["s"], *got["pair"]], [want["s"], *want["pair"]]):
        np.testing.assert_allclose(g, e, **tol(np.float64))
    loop = [f({"a": A[:, i], "b": B[i]}, c, scale=2.0)["s"] for i in range(17)]
    np.testing.assert_allclose(got["s"], np.stack(loop), **tol(np.float64))


def test_map_reduce_sum_and_mean_by_a_tree_reduction(dtype):
    w, X, Y = _data(dtype, n=50)
    Xd, Yd = da.from_array(X, chunks=(4, 4)), da.from_array(Y, chunks=4)
    total = fd.map_reduce(clipped_grad, in_dims=(None, 0, 0), split_every=3)(w, Xd, Yd)
    assert total.shape == (4,) and total.dtype == dtype and total.numblocks == (1,)
    layer = dict(total.__dask_graph__())
    assert sum(1 for k in layer if isinstance(k, tuple) and k[0].endswith("-sum")) >= 5
    want = _loop(lambda x, y: clipped_grad(w, x, y), X, Y)
    np.testing.assert_allclose(fd.compute(total, **SYNC), want.sum(0), **tol(dtype))
    mean = fd.map_reduce(
        lambda x, y: {"g": clipped_grad(w, x, y), "n": (x * x).sum()}, reduce="mean"
    )(Xd, Yd)
    got = fd.compute(mean, **SYNC)
    np.testing.assert_allclose(got["g"], want.mean(0), **tol(dtype))
    np.testing.assert_allclose(got["n"], (X * X).sum(1).mean(), **tol(dtype))
    assert isinstance(got["n"], np.ndarray) and got["n"].shape == ()


class _Shapes(Callback):
    """Records the shape of every task result of one dask run."""

    def __init__(self):
        super().__init__()
        self.shapes = []

    def _posttask(self, key, result, dsk, state, id):
        for leaf in result if isinstance(result, tuple) else (result,):
            self.shapes.append((key, getattr(leaf, "shape", None)))


def test_map_reduce_never_holds_per_example_results_beyond_one_block():
    w, X, Y = _data(n=60, d=3)
    total = fd.map_reduce(clipped_grad, in_dims=(None, 0, 0))(
        w, da.from_array(X, chunks=(10, 3)), da.from_array(Y, chunks=10)
    )
    with _Shapes() as rec:
        fd.compute(total, **SYNC)
    # every result of an fd task (block sums, partial sums, the total; the constant w) has
    # the per-example gradient's shape: the (10, 3) per-example arrays stay in their task
    fd_results = [s for k, s in rec.shapes if "fd-reduce" in str(k) and s is not None]
    assert len(fd_results) >= 6 and set(fd_results) == {(3,)}, fd_results


def test_the_function_is_never_called_by_dask_on_placeholders():
    calls = []

    def f(x):
        calls.append(1)
        return (x**2).sum().astype(np.float32)

    x = da.from_array(np.ones((12, 3)), chunks=(4, 3))
    out = fd.vmap(f)(x)
    assert len(calls) == 1  # the driver's probe (a batch of size 0), nothing else
    assert out.dtype == np.float32 and out._meta.shape == (0,)
    fd.compute(out, **SYNC)
    assert len(calls) == 1 + 3  # one ft.vmap per block


def test_unbatched_arrays_enter_the_graph_once():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(64, 8))
    X = da.from_array(rng.normal(size=(40, 64)), chunks=(5, 64))
    out = fd.vmap(lambda x, W: np.tanh(x @ W), in_dims=(0, None))(X, W)
    layer = out.__dask_graph__().layers[out.name.rsplit("-out", 1)[0]]
    holding = [k for k, v in layer.items() if _holds(v, W)]
    assert len(holding) == 1, holding  # one key, read by all 8 tasks
    users = [k for k, v in layer.items() if isinstance(v, tuple) and holding[0] in v]
    assert len(users) == 8
    np.testing.assert_allclose(fd.compute(out, **SYNC), np.tanh(X.compute() @ W), **tol(np.float64))


def _holds(task, array):
    return isinstance(task, tuple) and any(
        isinstance(a, _tasks.Literal) and a.value is array for a in task[1:]
    )


def test_jacrev_and_hessian_rows_split_across_tasks():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 2))
    A = rng.normal(size=(4, 6))

    def f(x, A):
        return np.sin(A @ x.reshape(-1)) * x.sum()

    J = fd.jacrev(f, rows_per_task=3)(x, A)
    assert J.shape == (4, 3, 2) and J.chunks == ((3, 1), (3,), (2,))
    np.testing.assert_allclose(
        fd.compute(J, **SYNC), ft.jacrev(f)(x, A).reshape(4, 3, 2), **tol(np.float64)
    )

    def s(x, A):
        return np.sum(np.tanh(A @ x.reshape(-1)) ** 2) + (x**3).sum()

    H = fd.hessian(s, rows_per_task=4)(x, A)
    assert H.shape == (6, 6) and H.chunks == ((4, 2), (6,))
    got = fd.compute(H, **SYNC)
    np.testing.assert_allclose(got, ft.hessian(s)(x, A).reshape(6, 6), **tol(np.float64))
    # closed form: A^T diag(d2/dz2 tanh(z)^2) A + diag(6 x), z = A x
    t = np.tanh(A @ x.reshape(-1))
    sech2 = 1 - t**2
    closed = A.T @ np.diag(2 * sech2**2 - 4 * t**2 * sech2) @ A + np.diag(6 * x.reshape(-1))
    np.testing.assert_allclose(got, closed, **tol(np.float64))
    # the identity is built in the tasks: the graph holds x and A and no other array
    for arr in (J, H):
        layer = arr.__dask_graph__().layers[arr.name]
        shipped = [
            a.value
            for v in layer.values()
            if isinstance(v, tuple)
            for a in v
            if isinstance(a, _tasks.Literal) and isinstance(a.value, np.ndarray)
        ]
        assert sorted(v.size for v in shipped) == sorted([x.size, A.size])


def test_jit_records_once_per_process_not_once_per_task():
    bodies = []

    def g(w, x):
        bodies.append(1)
        return ft.grad(lambda w: np.tanh(x @ w) ** 2)(w)

    w, X, _ = _data(n=24)
    Xd = da.from_array(X, chunks=(4, 4))
    before = _tasks.recordings()
    got = fd.compute(fd.vmap(ft.jit(g), in_dims=(None, 0))(w, Xd), **SYNC)
    assert len(bodies) == 1 + 1  # the probe, then one recording replayed by all 6 blocks
    assert _tasks.recordings() == before + 1
    np.testing.assert_allclose(got, ft.vmap(g, in_dims=(None, 0))(w, X), **tol(np.float64))
    bodies.clear()
    fd.compute(fd.vmap(g, in_dims=(None, 0))(w, Xd), **SYNC)
    assert len(bodies) == 1 + 6  # without jit: every block runs the Python body


def test_compute_and_persist_take_whole_pytrees():
    x = da.arange(10.0, chunks=3)
    tree = {"a": x * 2, "b": (x.sum(), 5), "c": None, "d": np.ones(2)}
    got = fd.compute(tree, **SYNC)
    np.testing.assert_array_equal(got["a"], np.arange(10.0) * 2)
    assert got["b"][1] == 5 and got["c"] is None and isinstance(got["b"][0], np.ndarray)
    kept = fd.persist(tree, **SYNC)
    assert isinstance(kept["a"], da.Array) and kept["b"][1] == 5
    assert len(kept["a"].__dask_graph__()) == 4  # the persisted blocks, nothing to redo


# -- CuPy-like chunks: the strict stand-in refuses every conversion to NumPy ----------------


def _strict(x):
    return x.map_blocks(sb.asarray, meta=sb.asarray(np.empty((0,) * x.ndim, x.dtype)))


def test_strict_chunks_stay_on_their_device_through_every_fd_function():
    w, X, Y = _data(n=21)
    Xs = _strict(da.from_array(X, chunks=(6, 4)))
    Ys = _strict(da.from_array(Y, chunks=4))  # misaligned: joined with the strict concatenate
    ws = sb.asarray(w)
    out = fd.vmap(per_example_grad, in_dims=(None, 0, 0))(ws, Xs, Ys)
    assert type(out._meta) is sb.StrictArray
    got = fd.compute(out, **SYNC)
    assert type(got) is sb.StrictArray
    want = ft.vmap(per_example_grad, in_dims=(None, 0, 0))(w, X, Y)
    np.testing.assert_allclose(got.get(), want, **tol(np.float64))
    for reduce, ref in (("sum", want.sum(0)), ("mean", want.mean(0))):
        total = fd.map_reduce(per_example_grad, in_dims=(None, 0, 0), reduce=reduce, split_every=2)
        res = fd.compute(total(ws, Xs, Ys), **SYNC)
        assert type(res) is sb.StrictArray
        np.testing.assert_allclose(res.get(), ref, **tol(np.float64))
    J = fd.compute(fd.jacrev(lambda v: np.sin(v) * v.sum(), rows_per_task=3)(ws), **SYNC)
    H = fd.compute(fd.hessian(lambda v: (np.sin(v) * v).sum(), rows_per_task=3)(ws), **SYNC)
    assert type(J) is sb.StrictArray and type(H) is sb.StrictArray
    want_j = ft.jacrev(lambda v: np.sin(v) * v.sum())(w)
    np.testing.assert_allclose(J.get(), want_j, **tol(np.float64))
    want_h = ft.hessian(lambda v: (np.sin(v) * v).sum())(w)
    np.testing.assert_allclose(H.get(), want_h, **tol(np.float64))


def test_mixing_numpy_and_device_chunks_is_refused_on_the_driver():
    x = da.ones((6, 2), chunks=(3, 2))
    with pytest.raises(MixedBackendError, match=r"^fd\.vmap\(<lambda>.*x has numpy.*y has strict"):
        fd.vmap(lambda x, y: x + y)(x, _strict(x))
    with pytest.raises(MixedBackendError, match="w has numpy"):
        fd.map_reduce(lambda x, w: x * w, in_dims=(0, None))(_strict(x), np.ones(2))


# -- errors, on the driver, before anything runs ----------------------------------------------


def _no_stack():
    assert current_stack() == ()


def test_chunk_errors_name_the_argument_and_the_fix():
    x = da.ones((8, 6), chunks=(4, 3))
    with pytest.raises(ChunksError, match=r"^fd\.vmap.*x is mapped over axis 0 but has 2 chunks"):
        fd.vmap(lambda x: x.sum())(x)
    with pytest.raises(ChunksError, match=r"x = x\.rechunk\(\{1: -1\}\)"):
        fd.vmap(lambda x: x.sum())(x)
    masked = x[x[:, 0] > 0]
    with pytest.raises(ChunksError, match=r"unknown chunk sizes.*x\.compute_chunk_sizes\(\)"):
        fd.map_reduce(lambda x: x.sum())(masked)
    _no_stack()


def test_input_errors():
    x = da.ones((8, 3), chunks=(4, 3))
    with pytest.raises(InDimsError, match=r"^fd\.vmap.*w is a dask array with in_dim None"):
        fd.vmap(lambda x, w: x @ w, in_dims=(0, None))(x, da.ones(3, chunks=3))
    with pytest.raises(InDimsError, match="different sizes on their batch axes: x has 8, y has 5"):
        fd.vmap(lambda x, y: x.sum() + y)(x, np.ones(5))
    with pytest.raises(InDimsError, match="in_dim=2 is out of range for x"):
        fd.vmap(lambda x: x, in_dims=2)(x)
    with pytest.raises(DaskArrayError, match=r"^fd\.jacrev.*x is a dask array.*x\.compute\(\)"):
        fd.jacrev(np.sin, rows_per_task=2)(da.ones(3, chunks=3))
    with pytest.raises(ChunkSizeError, match="rows_per_task must be a positive int, got 0"):
        fd.hessian(np.sum, rows_per_task=0)
    with pytest.raises(ChunkSizeError, match="chunk_size must be None or a positive int"):
        fd.vmap(np.sin, chunk_size=-1)
    with pytest.raises(ReduceError, match="reduce must be 'sum' or 'mean'"):
        fd.map_reduce(np.sin, reduce="max")
    with pytest.raises(ReduceError, match="split_every must be an int >= 2"):
        fd.map_reduce(np.sin, split_every=1)
    _no_stack()


def test_an_unpicklable_function_is_reported_at_call_time_by_name():
    lock = threading.Lock()

    def guarded(x):
        with lock:
            return x * 2

    x = da.ones((4, 2), chunks=(2, 2))
    with pytest.raises(FunctionPicklingError, match=r"^fd\.vmap\(guarded.*'guarded' cannot be"):
        fd.vmap(guarded)(x)
    with pytest.raises(FunctionPicklingError, match="'guarded' cannot be pickled"):
        fd.hessian(guarded, rows_per_task=1)(np.ones(2))
    fd.compute(fd.vmap(lambda v: v * 2)(x), **SYNC)  # a lambda travels


def test_fd_functions_are_outermost():
    x = da.ones((4, 2), chunks=(2, 2))
    w = np.ones(2)

    def inside_grad(w):
        return fd.compute(fd.map_reduce(lambda r: r @ w)(x), **SYNC)

    with pytest.raises(DistributedNestingError, match=r"^fd\.map_reduce.*called inside grad"):
        ft.grad(inside_grad)(w)
    _no_stack()
    with pytest.raises(DistributedNestingError, match="fd functions are outermost"):
        ft.vmap(lambda v: fd.jacrev(np.sin, rows_per_task=1)(v))(np.ones((2, 3)))
    with pytest.raises(DistributedNestingError, match=r"^fd\.compute"):
        ft.vmap(lambda v: fd.compute(v))(np.ones((2, 3)))
    _no_stack()
    assert fd.compute(fd.map_reduce(lambda r: r @ w)(x), **SYNC) == 8.0  # the next call works


def test_single_machine_transforms_point_dask_users_to_fd():
    x = da.ones((4, 3), chunks=(2, 3))
    with pytest.raises(DaskArrayError, match=r"^vmap\(sin.*x is a lazy dask array.*distributed"):
        ft.vmap(np.sin)(x)
    with pytest.raises(DaskArrayError, match=r"^vmap.*b is a lazy dask array"):
        ft.vmap(lambda a, b: a + b, in_dims=(0, None))(np.ones((2, 4, 3)), x)
    with pytest.raises(DaskArrayError, match=r"^grad\(.*is a lazy dask array"):
        ft.grad(lambda x: (x**2).sum())(x)
    with pytest.raises(DaskArrayError, match=r"^grad\(.*ftransforms\.distributed"):
        ft.grad(lambda w, x: (x @ w).sum())(np.ones(3), x)  # was a silently lazy gradient
    _no_stack()


def test_missing_dask_says_what_to_install(monkeypatch):
    for name in ("dask", "dask.array", "dask.highlevelgraph", "cloudpickle"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ftransforms\[distributed\]'"):
        fd.vmap(np.sin)(np.ones((2, 2)))
    with pytest.raises(ImportError, match=r"^fd\.compute"):
        fd.compute(1)


# -- a LocalCluster of two worker processes ---------------------------------------------------


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    try:
        with distributed.Client(cluster) as c:
            yield c
    finally:
        cluster.close()


def test_equal_to_the_single_machine_transforms_on_a_process_cluster(client):
    w, X, Y = _data(n=103)
    Xd, Yd = da.from_array(X, chunks=(10, 4)), da.from_array(Y, chunks=(13,))
    scale = 0.5
    g, total, H = fd.compute(
        (
            fd.vmap(lambda w, x, y: per_example_grad(w, x, y) * scale, in_dims=(None, 0, 0))(
                w, Xd, Yd
            ),
            fd.map_reduce(clipped_grad, in_dims=(None, 0, 0), split_every=2)(w, Xd, Yd),
            fd.hessian(lambda v: np.sum(loss(v, X, Y)), rows_per_task=3)(w),
        )
    )
    want = ft.vmap(per_example_grad, in_dims=(None, 0, 0))(w, X, Y) * scale
    np.testing.assert_allclose(g, want, **tol(np.float64))
    clipped = _loop(lambda x, y: clipped_grad(w, x, y), X, Y).sum(0)
    np.testing.assert_allclose(total, clipped, **tol(np.float64))
    want_h = ft.hessian(lambda v: np.sum(loss(v, X, Y)))(w)
    np.testing.assert_allclose(H, want_h, **tol(np.float64))
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids  # it ran in two other processes


def test_bitwise_equal_to_ft_vmap_chunked_on_the_cluster_with_jit(client):
    w, X, Y = _data(n=64)
    f = ft.jit(per_example_grad)
    got = fd.compute(fd.vmap(f, in_dims=(None, 0, 0), chunk_size=8)(w, X, Y))
    want = ft.vmap(per_example_grad, in_dims=(None, 0, 0), chunk_size=8)(w, X, Y)
    assert np.array_equal(got, want)
    per_worker = client.run(_tasks.recordings)
    assert 1 <= sum(per_worker.values()) <= 2 and all(n <= 1 for n in per_worker.values())


def _slow_square(x):
    time.sleep(0.1)  # per block: ft.vmap runs the Python body once per block
    return x * x


def test_a_killed_worker_is_replaced_and_the_answer_is_unchanged(client):
    X = np.arange(240.0).reshape(60, 4)
    total = fd.map_reduce(_slow_square, split_every=4)(da.from_array(X, chunks=(3, 4)))
    want = fd.compute(total, **SYNC)  # same blocks, same tree: the same sums, bitwise
    np.testing.assert_allclose(want, (X * X).sum(0), **tol(np.float64))
    victim = next(iter(client.run(os.getpid).values()))
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(fd.compute, total)  # fd.compute on the cluster, in a thread
        deadline = time.monotonic() + 10
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.4)  # mid-computation: some blocks done, some running, most waiting
        assert not running.done()
        os.kill(victim, signal.SIGKILL)
        got = running.result(timeout=60)
    assert np.array_equal(got, want)
    client.wait_for_workers(2, timeout=30)
    assert victim not in set(client.run(os.getpid).values())


# -- larger than the workers' memory ----------------------------------------------------------

ROWS, DIM, BLOCK = 2_000_000, 64, 20_000  # 1 GB of float64, in 100 blocks of 10 MB


def _make_block(block_info=None):
    (start, stop), _ = block_info[None]["array-location"]
    rng = np.random.default_rng(start)
    return rng.standard_normal((stop - start, DIM))


def _peak_rss_mb():
    """This process's own peak resident memory, in MiB.  ``VmHWM`` (Linux) starts afresh at
    ``exec``; ``ru_maxrss`` does not: it keeps the high-water mark of the process that
    started the worker (here the test runner, with JAX loaded), so it would measure that."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.slow
def test_dp_sgd_gradient_over_data_larger_than_the_workers_memory():
    limit = 300 * 2**20
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit=limit,
    )
    try:
        with distributed.Client(cluster) as client:
            X = da.map_blocks(
                _make_block,
                chunks=((BLOCK,) * (ROWS // BLOCK), (DIM,)),
                dtype=np.float64,
                meta=np.empty((0, DIM)),
            )
            assert X.nbytes > 2 * limit
            w = np.linspace(-0.1, 0.1, DIM)
            y = da.zeros(ROWS, chunks=BLOCK)
            pids = client.run(os.getpid)
            total = fd.compute(fd.map_reduce(clipped_grad, in_dims=(None, 0, 0))(w, X, y))
            assert client.run(os.getpid) == pids  # no worker was restarted
            peaks = client.run(_peak_rss_mb)
            print(f"peak worker RSS (MB): {peaks}; data: {X.nbytes / 2**20:.0f} MB")
            assert max(peaks.values()) < limit / 2**20
    finally:
        cluster.close()
    want = np.zeros(DIM)
    f = ft.vmap(clipped_grad, in_dims=(None, 0, 0))
    for start in range(0, ROWS, BLOCK):
        block = _make_block({None: {"array-location": [(start, start + BLOCK), (0, DIM)]}})
        want += f(w, block, np.zeros(BLOCK)).sum(0)
    np.testing.assert_allclose(total, want, **tol(np.float64))


@pytest.mark.slow
def test_the_benchmark_runs_quick_and_its_results_check(tmp_path):
    import json
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.distributed", "--quick", "--reps", "1"]
        + ["--json", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    rows = json.loads(out.read_text())
    assert {r["scheduler"] for r in rows["overhead"]} >= {"sync (in-process)", "LocalCluster"}
    assert all(r["max_rel_err"] < 1e-4 for r in rows["scaling"])
