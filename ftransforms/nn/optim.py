"""Optimisers as pure functions over parameter pytrees (torch's update rules).

An optimiser is a pair ``(init, update)``: ``state = init(params)`` and ``new_params,
new_state = update(grads, state, params)``.  Nothing is mutated, so a whole training step
can be ``vmap``-ed over an ensemble (stack the params and the states, see
:func:`ftransforms.nn.stack_trees`) or differentiated through (meta-learning).  The step
counter is a 0-d integer array in the state, so states batch like everything else.

Example:
    >>> import numpy as np
    >>> opt = sgd(lr=0.1)
    >>> params = {"w": np.ones(2)}
    >>> state = opt.init(params)
    >>> params, state = opt.update({"w": np.ones(2)}, state, params)
    >>> params["w"]
    array([0.9, 0.9])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of
from ftransforms.pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["Optimizer", "adam", "sgd"]


class Optimizer(NamedTuple):
    """An optimiser: ``init(params) -> state``; ``update(grads, state, params) ->
    (params, state)``, both pure (what :func:`sgd` and :func:`adam` return).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> step = lambda g, s, p: (ft.tree_map(lambda p, g: p - 0.5 * g, p, g), s)
        >>> plain = nn.Optimizer(init=lambda params: (), update=step)
        >>> params = {"w": np.array([1.0, -2.0])}
        >>> plain.update({"w": np.array([2.0, 2.0])}, plain.init(params), params)
        ({'w': array([ 0., -3.])}, ())
    """

    init: Callable[[Any], Any]
    update: Callable[[Any, Any, Any], tuple[Any, Any]]


def _step_counter(params: Any) -> Any:
    leaves = tree_leaves(params)
    like = leaves[0] if leaves else None
    return fnp.zeros((), dtype=numpy.int64, like=like)


def _zeros_like_tree(params: Any) -> Any:
    return tree_map(lambda p: fnp.zeros_like(p), params)


def _check_structure(grads: Any, params: Any, where: str) -> None:
    g_spec = tree_flatten(grads)[1]
    p_spec = tree_flatten(params)[1]
    if g_spec != p_spec:
        raise ValueError(
            f"{where}: grads have structure {g_spec}, but params have {p_spec}; pass the "
            f"gradient of the loss with respect to exactly these params"
        )


def _as(x: Any, like: Any) -> Any:
    """``x`` (a 0-d array computed from the step counter) in ``like``'s dtype."""
    return fnp.astype(x, dtype_of(like))


def sgd(
    lr: float,
    momentum: float = 0.0,
    dampening: float = 0.0,
    weight_decay: float = 0.0,
    nesterov: bool = False,
) -> Optimizer:
    """Stochastic gradient descent with torch's momentum rule: ``buf = g`` on the first
    step, then ``buf = momentum * buf + (1 - dampening) * g``; ``p -= lr * buf`` (with
    ``nesterov``, ``p -= lr * (g + momentum * buf)``); ``weight_decay`` adds
    ``weight_decay * p`` to ``g`` first.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> opt, params = nn.sgd(lr=0.1, momentum=0.9), {"w": np.array([1.0, -2.0])}
        >>> grads = ft.grad(lambda p: np.sum(p["w"] ** 2))(params)  # 2 w
        >>> params, state = opt.update(grads, opt.init(params), params)
        >>> params["w"]  # w - 0.1 * 2 w
        array([ 0.8, -1.6])
    """
    if lr < 0 or momentum < 0 or weight_decay < 0:
        raise ValueError("sgd: lr, momentum and weight_decay must be non-negative")
    if nesterov and (momentum <= 0 or dampening != 0):
        raise ValueError("sgd: nesterov needs momentum > 0 and zero dampening")

    def init(params: Any) -> dict[str, Any]:
        state = {"step": _step_counter(params)}
        if momentum:
            state["momentum"] = _zeros_like_tree(params)
        return state

    def update(grads: Any, state: Any, params: Any) -> tuple[Any, Any]:
        _check_structure(grads, params, "sgd.update(grads, state, params)")
        p_leaves, spec = tree_flatten(params)
        g_leaves = tree_leaves(grads)
        step = state["step"]
        if weight_decay:
            g_leaves = [g + weight_decay * p for g, p in zip(g_leaves, p_leaves)]
        new_state = {"step": step + 1}
        if momentum:
            bufs = []
            for g, b in zip(g_leaves, tree_leaves(state["momentum"])):
                nb = momentum * b + (1 - dampening) * g
                if dampening:
                    nb = fnp.where(step == 0, g, nb)
                bufs.append(nb)
            new_state["momentum"] = tree_unflatten(spec, bufs)
            if nesterov:
                g_leaves = [g + momentum * b for g, b in zip(g_leaves, bufs)]
            else:
                g_leaves = bufs
        new = [p - lr * g for p, g in zip(p_leaves, g_leaves)]
        return tree_unflatten(spec, new), new_state

    return Optimizer(init, update)


def adam(
    lr: float = 1e-3,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    weight_decay: float = 0.0,
) -> Optimizer:
    """Adam (torch's rule): ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g**2``,
    ``p -= lr * m_hat / (sqrt(v_hat) + eps)`` with the bias corrections ``m_hat = m / (1 -
    b1**t)``, ``v_hat = v / (1 - b2**t)``; ``weight_decay`` adds ``weight_decay * p`` to
    ``g`` first (L2, not AdamW).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> opt, params = nn.adam(lr=0.1), {"w": np.array([1.0, -2.0])}
        >>> grads = ft.grad(lambda p: np.sum(p["w"] ** 2))(params)
        >>> params, state = opt.update(grads, opt.init(params), params)
        >>> np.round(params["w"], 4), int(state["step"])  # the first step is lr * sign(g)
        (array([ 0.9, -1.9]), 1)
    """
    if lr < 0 or not (0 <= b1 < 1 and 0 <= b2 < 1) or eps < 0 or weight_decay < 0:
        raise ValueError("adam: need lr >= 0, 0 <= b1, b2 < 1, eps >= 0, weight_decay >= 0")

    def init(params: Any) -> dict[str, Any]:
        return {
            "step": _step_counter(params),
            "m": _zeros_like_tree(params),
            "v": _zeros_like_tree(params),
        }

    def update(grads: Any, state: Any, params: Any) -> tuple[Any, Any]:
        _check_structure(grads, params, "adam.update(grads, state, params)")
        p_leaves, spec = tree_flatten(params)
        g_leaves = tree_leaves(grads)
        step = state["step"] + 1
        t = fnp.astype(step, numpy.float64)
        bc1 = 1 - fnp.power(b1, t)
        bc2 = 1 - fnp.power(b2, t)
        ms, vs, new = [], [], []
        for p, g, m, v in zip(p_leaves, g_leaves, tree_leaves(state["m"]), tree_leaves(state["v"])):
            if weight_decay:
                g = g + weight_decay * p
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * (g * g)
            denom = fnp.sqrt(v) / _as(fnp.sqrt(bc2), v) + eps
            new.append(p - _as(lr / bc1, p) * m / denom)
            ms.append(m)
            vs.append(v)
        return tree_unflatten(spec, new), {
            "step": step,
            "m": tree_unflatten(spec, ms),
            "v": tree_unflatten(spec, vs),
        }

    return Optimizer(init, update)
