"""The workloads, their sizes, and their inputs (float32, generated once per run).

Only NumPy here (and scikit-learn for the digits data): this module runs in the main
process, which must not import torch, JAX or autograd.

A *case* is one row group of the table: a workload at one size (and, for W2/W5, one mode).
Inputs are plain dicts of float32 arrays (labels int64) whose names every peer uses.  Output
leaves always come in one canonical order, documented per workload below, so that every
peer's result can be compared with the float64 hand-written reference leaf by leaf.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

WORKLOADS = {
    "W1": "per-sample gradients, MLP 64-256-256-10 tanh, digits",
    "W2": "Jacobian of tanh(W x + b) w.r.t. x",
    "W3": "Hessian of sum(tanh(A x)**2) + sum(x**2)**2",
    "W4": "MAML meta-gradient, sine regression, MLP 1-40-40-1 relu",
    "W5": "dispatch cost: 50 chained elementwise ops on an (8,) array",
    "W6": "per-sequence gradients of an LSTM (B=32, H=64, D=8) over T steps, scan/loop",
}

#: Sizes per workload: W1 batch, W2/W3 dimension D, W4 number of tasks.
FULL_SIZES = {"W1": [32, 256, 1024], "W2": [16, 512], "W3": [64, 256], "W4": [32], "W6": [50]}
QUICK_SIZES = {"W1": [16], "W2": [16], "W3": [32], "W4": [8], "W6": [10]}
#: Added with ``--device cuda`` (large enough for a GPU to matter).
CUDA_EXTRA_SIZES = {"W1": [4096], "W3": [1024]}

W1_SIZES = (64, 256, 256, 10)
W4_SIZES = (1, 40, 40, 1)
W4_SUPPORT = W4_QUERY = 10
W4_LR = 0.01
W5_LEN, W5_BATCH, W5_REPEATS = 8, 16, 10
#: One block of the W5 chain: (op, constant); repeated W5_REPEATS times = 50 ops.
W5_BLOCK = (("sin", None), ("multiply", 1.5), ("add", 0.25), ("tanh", None), ("square", None))
W5_OPS = len(W5_BLOCK) * W5_REPEATS
W5_MODES = ("none", "grad", "vmap", "vmap_grad")
W5_MODE_LABEL = {
    "none": "no transform",
    "grad": "grad",
    "vmap": f"vmap B={W5_BATCH}",
    "vmap_grad": f"vmap(grad) B={W5_BATCH}",
}

#: W6: sequences per batch, hidden units, input features (the size is the length T).
#: Leaves: per-sequence gradients of ``[wx, wh, b, v]`` (gates i, f, g, o stacked in wx/wh/b).
W6_BATCH, W6_HIDDEN, W6_FEATURES = 32, 64, 8

#: Largest acceptable max relative error of a float32 result against the float64
#: reference (error = max |got - ref| / max |ref| per output leaf, max over leaves).
#: float32 rounding (eps 6e-8) accumulated over dot products of length <= 1024 stays well
#: below 1e-5 on these well-conditioned problems; 1e-4 leaves room for reassociation
#: (BLAS blocking, XLA fusion, GPU reductions) while still catching any real bug.
DEFAULT_TOL = 1e-4


@dataclass
class Case:
    id: str  # unique, file-name safe: "W1-B32"
    workload: str  # "W1" ... "W5"
    label: str  # what the table shows: "per-sample grads B=32"
    size: int | None = None
    mode: str | None = None  # W2: jacrev/jacfwd; W5: none/grad/vmap/vmap_grad
    scale: int = 1  # the table shows time / scale (W5: per op)
    unit: str = "ms"  # "ms" or "us/op"
    tol: float = DEFAULT_TOL
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Case:
        return cls(**d)


def parse_sizes(text: str | None) -> dict[str, list[int]]:
    """``"W1=32,4096;W3=256"`` -> ``{"W1": [32, 4096], "W3": [256]}`` (``--sizes``)."""
    out: dict[str, list[int]] = {}
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        name, _, values = part.partition("=")
        name = name.strip().upper()
        if name not in FULL_SIZES:
            raise ValueError(f"--sizes: {name!r} has no sizes; choose from {', '.join(FULL_SIZES)}")
        try:
            out[name] = sorted({int(v) for v in values.split(",") if v.strip()})
        except ValueError:
            raise ValueError(f"--sizes: {part!r} is not NAME=INT,INT,...") from None
        if not out[name]:
            raise ValueError(f"--sizes: {part!r} names no size")
    return out


def make_cases(
    workloads: list[str],
    quick: bool = False,
    device: str = "cpu",
    sizes_override: dict[str, list[int]] | None = None,
) -> list[Case]:
    sizes = {k: list(v) for k, v in (QUICK_SIZES if quick else FULL_SIZES).items()}
    if device == "cuda" and not quick:
        for k, v in CUDA_EXTRA_SIZES.items():
            sizes[k] = sorted(set(sizes[k]) | set(v))
    sizes.update(sizes_override or {})
    cases: list[Case] = []
    for w in workloads:
        if w == "W1":
            for b in sizes["W1"]:
                cases.append(Case(f"W1-B{b}", "W1", f"per-sample grads B={b}", size=b))
        elif w == "W2":
            for d in sizes["W2"]:
                for mode in ("jacrev", "jacfwd"):
                    cases.append(Case(f"W2-{mode}-D{d}", "W2", f"{mode} D={d}", size=d, mode=mode))
        elif w == "W3":
            for d in sizes["W3"]:
                cases.append(Case(f"W3-D{d}", "W3", f"hessian D={d}", size=d))
        elif w == "W4":
            for t in sizes["W4"]:
                cases.append(
                    Case(f"W4-T{t}", "W4", f"MAML meta-grad {t} tasks", size=t, extra={"lr": W4_LR})
                )
        elif w == "W5":
            for mode in W5_MODES:
                cases.append(
                    Case(
                        f"W5-{mode}",
                        "W5",
                        f"{W5_OPS} ops, {W5_MODE_LABEL[mode]}",
                        size=W5_BATCH if mode.startswith("vmap") else None,
                        mode=mode,
                        scale=W5_OPS,
                        unit="us/op",
                    )
                )
        elif w == "W6":
            for t in sizes["W6"]:
                label = f"LSTM per-seq grads T={t} B={W6_BATCH} H={W6_HIDDEN}"
                cases.append(Case(f"W6-T{t}", "W6", label, size=t))
        else:
            raise ValueError(f"unknown workload {w!r}; choose from {', '.join(WORKLOADS)}")
    return cases


# -- inputs ----------------------------------------------------------------------------------


def _mlp_params(rng: np.random.Generator, sizes: tuple, gain: float) -> dict[str, np.ndarray]:
    """Weights ``w1..wn`` of shape (out, in) scaled by gain/sqrt(fan_in), small biases."""
    out = {}
    for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        out[f"w{k}"] = (rng.standard_normal((n_out, n_in)) * gain / np.sqrt(n_in)).astype(
            np.float32
        )
        out[f"b{k}"] = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
    return out


_DIGITS: tuple[np.ndarray, np.ndarray] | None = None


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled digits (1797 x 64), scaled to [0, 1], and int64 labels."""
    global _DIGITS
    if _DIGITS is None:
        from sklearn.datasets import load_digits as _load

        data = _load()
        _DIGITS = (data.data / 16.0).astype(np.float32), data.target.astype(np.int64)
    return _DIGITS


def make_inputs(case: Case, seed: int = 0) -> dict[str, np.ndarray]:
    """The case's inputs, deterministic in (case, seed)."""
    rng = np.random.default_rng([seed, int(case.workload[1:]), case.size or 0])
    if case.workload == "W1":
        x_all, y_all = load_digits()
        idx = rng.choice(len(x_all), size=case.size, replace=case.size > len(x_all))
        return {**_mlp_params(rng, W1_SIZES, 1.0), "x": x_all[idx], "y": y_all[idx]}
    if case.workload == "W2":
        d = case.size
        return {
            "w": (rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32),
            "b": (0.1 * rng.standard_normal(d)).astype(np.float32),
            "x": rng.standard_normal(d).astype(np.float32),
        }
    if case.workload == "W3":
        d = case.size
        return {
            "a": (rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32),
            "x": (rng.standard_normal(d) / np.sqrt(d)).astype(np.float32),
        }
    if case.workload == "W4":
        t = case.size
        amp = rng.uniform(0.1, 5.0, size=(t, 1, 1))
        phase = rng.uniform(0.0, np.pi, size=(t, 1, 1))
        xs = rng.uniform(-5.0, 5.0, size=(t, W4_SUPPORT, 1))
        xq = rng.uniform(-5.0, 5.0, size=(t, W4_QUERY, 1))
        f32 = lambda a: np.asarray(a, dtype=np.float32)
        return {
            **_mlp_params(rng, W4_SIZES, np.sqrt(2.0)),
            "xs": f32(xs),
            "ys": f32(amp * np.sin(xs + phase)),
            "xq": f32(xq),
            "yq": f32(amp * np.sin(xq + phase)),
        }
    if case.workload == "W5":
        shape = (W5_BATCH, W5_LEN) if case.mode.startswith("vmap") else (W5_LEN,)
        return {"x": rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)}
    if case.workload == "W6":
        b, h, d, t = W6_BATCH, W6_HIDDEN, W6_FEATURES, case.size
        u = lambda *shape: rng.uniform(-1, 1, size=shape) / np.sqrt(h)
        bias = np.concatenate([np.zeros(h), np.ones(h), np.zeros(2 * h)])  # forget gate 1
        f32 = lambda a: np.asarray(a, dtype=np.float32)
        return {
            "wx": f32(u(4 * h, d)),
            "wh": f32(u(4 * h, h)),
            "b": f32(bias + 0.1 * rng.standard_normal(4 * h)),
            "v": f32(u(h)),
            "x": f32(rng.standard_normal((b, t, d))),
            "y": f32(rng.standard_normal((b, t))),
        }
    raise ValueError(case.workload)


def param_names(n_layers: int) -> list[str]:
    """``["w1", "b1", ..., "wn", "bn"]``: the canonical order of parameter leaves."""
    return [f"{p}{k}" for k in range(1, n_layers + 1) for p in ("w", "b")]


def as_float64(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: v.astype(np.float64) if v.dtype.kind == "f" else v for k, v in inputs.items()}
