"""JAX's ``jax.example_libraries.optimizers``: an optimizer is a triple ``(init_fun,
update_fun, get_params)`` of pure functions, ``opt_state = init_fun(params)``,
``opt_state = update_fun(step, grads, opt_state)``, ``params = get_params(opt_state)``,
over any pytree of parameters.  The state is an :class:`OptimizerState` (a pytree whose
leaves are the per-parameter arrays), so an update step can be wrapped in ``jit``, and
the steps are written with ``ftransforms.numpy``, so they can be differentiated and
mapped with ``vmap``.  Step sizes are numbers or schedules ``step -> step size``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import optimizers
    >>> opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.9)
    >>> loss = lambda p: np.sum((p["w"] - 3.0) ** 2)
    >>> state = opt_init({"w": np.zeros(2)})
    >>> for i in range(200):
    ...     state = opt_update(i, ft.grad(loss)(get_params(state)), state)
    >>> np.round(get_params(state)["w"], 3)
    array([3., 3.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import ftransforms.numpy as fnp
from ftransforms import tree_util
from ftransforms.pytree import register_pytree_node, tree_flatten, tree_map, tree_unflatten

__all__ = [
    "Optimizer",
    "OptimizerState",
    "adagrad",
    "adam",
    "adamax",
    "clip_grads",
    "constant",
    "exponential_decay",
    "inverse_time_decay",
    "l2_norm",
    "make_schedule",
    "momentum",
    "nesterov",
    "optimizer",
    "pack_optimizer_state",
    "piecewise_constant",
    "polynomial_decay",
    "rmsprop",
    "rmsprop_momentum",
    "sgd",
    "sm3",
    "unpack_optimizer_state",
]


class OptimizerState:
    """An optimizer's state: ``packed_state`` holds, per parameter leaf, the flat list of
    that leaf's state arrays; ``tree_def`` is the parameters' structure and
    ``subtree_defs`` each leaf state's structure.  Its pytree leaves are the arrays only.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import optimizers
        >>> state = optimizers.adam(1e-3)[0]([np.zeros(2), np.ones(3)])
        >>> [v.shape for v in ft.tree_leaves(state)]
        [(2,), (2,), (2,), (3,), (3,), (3,)]
    """

    __slots__ = ("packed_state", "subtree_defs", "tree_def")

    def __init__(self, packed_state: list, tree_def: Any, subtree_defs: tuple) -> None:
        self.packed_state, self.tree_def, self.subtree_defs = packed_state, tree_def, subtree_defs

    def __iter__(self) -> Any:  # ``packed_state, tree_def, subtree_defs = opt_state``
        return iter((self.packed_state, self.tree_def, self.subtree_defs))

    def __eq__(self, other: object) -> bool:  # as JAX's namedtuple compares
        if not isinstance(other, OptimizerState):
            return NotImplemented
        return tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  (mutable lists inside, as JAX's)

    def __repr__(self) -> str:
        return f"OptimizerState(packed_state={self.packed_state!r}, tree_def={self.tree_def!r})"


register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], *aux),
)


class Optimizer(NamedTuple):
    """The ``(init_fn, update_fn, params_fn)`` triple an optimizer returns.

    Example:
        >>> from ftransforms.example_libraries import optimizers
        >>> isinstance(optimizers.sgd(0.1), optimizers.Optimizer)
        True
    """

    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def optimizer(opt_maker: Callable) -> Callable:
    """Lift ``opt_maker`` (returning ``(init, update, get_params)`` for one array) to an
    optimizer over pytrees of arrays (the decorator JAX's optimizers are written with).

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries.optimizers import optimizer
        >>> @optimizer
        ... def halve():
        ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
        >>> init, update, get = halve()
        >>> get(update(0, {"a": np.ones(1)}, init({"a": np.ones(1)})))
        {'a': array([0.5])}
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Any, **kwargs: Any) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        def tree_init(x0_tree: Any) -> OptimizerState:
            x0_flat, tree = tree_flatten(x0_tree)
            flats, subtrees = _flatten_each(init(x0) for x0 in x0_flat)
            return OptimizerState(flats, tree, subtrees)

        def tree_update(i: Any, grad_tree: Any, opt_state: OptimizerState) -> OptimizerState:
            flats, tree, subtrees = opt_state
            grad_flat, grad_tree_def = tree_flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "update_fun(step, grads, opt_state): expected grads with the structure "
                    f"of the parameters ({tree}), got {grad_tree_def}; pass the gradient of "
                    "the loss in the parameters that init_fun was given"
                )
            states = [tree_unflatten(s, f) for s, f in zip(subtrees, flats)]
            new_flats, new_subtrees = _flatten_each(
                update(i, g, state) for g, state in zip(grad_flat, states)
            )
            return OptimizerState(new_flats, tree, new_subtrees)

        def tree_get_params(opt_state: OptimizerState) -> Any:
            flats, tree, subtrees = opt_state
            states = [tree_unflatten(s, f) for s, f in zip(subtrees, flats)]
            return tree_unflatten(tree, [get_params(state) for state in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _flatten_each(states: Any) -> tuple[list, tuple]:
    flats, subtrees = [], []
    for state in states:
        flat, subtree = tree_flatten(state)
        flats.append(flat)
        subtrees.append(subtree)
    return flats, tuple(subtrees)


# ------------------------------------------------------------------------ the optimizers


@optimizer
def sgd(step_size: Any) -> tuple:
    """Stochastic gradient descent: ``x - step_size(i) * g``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.sgd(0.5)
        >>> get(update(0, np.array([2.0]), init(np.array([1.0]))))
        array([0.])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> Any:
        return x0

    def update(i: Any, g: Any, x: Any) -> Any:
        return x - step_size(i) * g

    def get_params(x: Any) -> Any:
        return x

    return init, update, get_params


@optimizer
def momentum(step_size: Any, mass: float) -> tuple:
    """Heavy-ball momentum: ``v = mass * v + g``, ``x - step_size(i) * v``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.momentum(1.0, mass=0.5)
        >>> s = update(0, np.array([1.0]), init(np.array([0.0])))
        >>> get(update(1, np.array([1.0]), s))
        array([-2.5])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def nesterov(step_size: Any, mass: float) -> tuple:
    """Nesterov's accelerated gradient: ``v = mass * v + g``, ``x - step_size(i) * (mass *
    v + g)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.nesterov(1.0, mass=0.5)
        >>> get(update(0, np.array([1.0]), init(np.array([0.0]))))
        array([-1.5])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def adagrad(step_size: Any, momentum: float = 0.9) -> tuple:
    """Adagrad with momentum: ``s += g**2``, ``m = (1 - momentum) * g / sqrt(s) + momentum
    * m``, ``x - step_size(i) * m`` (``s`` starts at zero; a zero ``s`` gives a zero step).

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.adagrad(1.0, momentum=0.0)
        >>> get(update(0, np.array([4.0]), init(np.array([0.0]))))
        array([-1.])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0), fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, g_sq, m = state
        g_sq = g_sq + fnp.square(g)
        g_sq_inv_sqrt = fnp.where(g_sq > 0, 1.0 / fnp.sqrt(fnp.where(g_sq > 0, g_sq, 1.0)), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop(step_size: Any, gamma: float = 0.9, eps: float = 1e-8) -> tuple:
    """RMSProp: ``a = gamma * a + (1 - gamma) * g**2``, ``x - step_size(i) * g / sqrt(a +
    eps)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.rmsprop(0.1, gamma=0.0, eps=0.0)
        >>> get(update(0, np.array([3.0]), init(np.array([0.0]))))
        array([-0.1])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + fnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / fnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop_momentum(
    step_size: Any, gamma: float = 0.9, eps: float = 1e-8, momentum: float = 0.9
) -> tuple:
    """RMSProp with momentum: ``m = momentum * m + step_size(i) * g / sqrt(a + eps)``,
    ``x - m``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.rmsprop_momentum(0.1, gamma=0.0, eps=0.0)
        >>> get(update(0, np.array([3.0]), init(np.array([0.0]))))
        array([-0.1])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0), fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + fnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / fnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def adam(step_size: Any, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> tuple:
    """Adam (Kingma & Ba): bias-corrected first and second moments, ``x - step_size(i) *
    mhat / (sqrt(vhat) + eps)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.adam(0.1)
        >>> np.round(get(update(0, np.array([5.0]), init(np.array([0.0])))), 6)
        array([-0.1])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0), fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * fnp.square(g) + b2 * v
        mhat = m / (1 - fnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - fnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (fnp.sqrt(vhat) + eps), m, v

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def adamax(step_size: Any, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> tuple:
    """AdaMax (Adam with the infinity norm): ``u = max(b2 * u, |g|)``, ``x - step_size(i) /
    (1 - b1**(i + 1)) * m / (u + eps)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.adamax(0.1)
        >>> np.round(get(update(0, np.array([5.0]), init(np.array([0.0])))), 6)
        array([-0.1])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        return x0, fnp.zeros_like(x0), fnp.zeros_like(x0)

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = fnp.maximum(b2 * u, fnp.abs(g))
        x = x - (step_size(i) / (1 - fnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


@optimizer
def sm3(step_size: Any, momentum: float = 0.9) -> tuple:
    """SM3 (memory-efficient adaptive steps, Anil et al. 2019): one accumulator per axis
    of each parameter; the step's accumulator is ``min`` over the axes' (broadcast) plus
    ``g**2``, each axis then keeps the ``max`` of it over the other axes, and
    ``m = (1 - momentum) g / sqrt(accum) + momentum m``, ``x - step_size(i) * m``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> init, update, get = optimizers.sm3(0.1, momentum=0.0)
        >>> get(update(0, np.array([[3.0, -4.0]]), init(np.zeros((1, 2)))))
        array([[-0.1,  0.1]])
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> tuple:
        shape = fnp.shape(x0)
        dtype = fnp.result_type(x0)
        vs = [fnp.zeros(n, dtype=dtype) for n in shape] if shape else [fnp.zeros((), dtype)]
        return x0, fnp.zeros_like(x0), vs

    def update(i: Any, g: Any, state: tuple) -> tuple:
        x, m, vs = state
        nd = fnp.ndim(g)
        if nd == 0:
            accum = vs[0] + g * g
            vs = [accum]
        else:
            along = [
                fnp.reshape(v, (1,) * j + (-1,) + (1,) * (nd - j - 1)) for j, v in enumerate(vs)
            ]
            accum = functools.reduce(fnp.minimum, along) + g * g
            vs = [fnp.max(accum, axis=tuple(k for k in range(nd) if k != j)) for j in range(nd)]
        positive = accum > 0
        inv_sqrt = fnp.where(positive, 1 / fnp.sqrt(fnp.where(positive, accum, 1)), 0)
        m = (1 - momentum) * (g * inv_sqrt) + momentum * m
        return x - step_size(i) * m, m, vs

    def get_params(state: tuple) -> Any:
        return state[0]

    return init, update, get_params


# ------------------------------------------------------------------------- the schedules


def constant(step_size: float) -> Callable:
    """The schedule ``i -> step_size``.

    Example:
        >>> from ftransforms.example_libraries.optimizers import constant
        >>> constant(0.1)(7)
        0.1
    """

    def schedule(i: Any) -> Any:
        return step_size

    return schedule


def exponential_decay(step_size: float, decay_steps: float, decay_rate: float) -> Callable:
    """The schedule ``i -> step_size * decay_rate ** (i / decay_steps)``.

    Example:
        >>> from ftransforms.example_libraries.optimizers import exponential_decay
        >>> float(exponential_decay(1.0, 10, 0.5)(20))
        0.25
    """

    def schedule(i: Any) -> Any:
        return step_size * decay_rate ** (i / decay_steps)

    return schedule


def inverse_time_decay(
    step_size: float, decay_steps: float, decay_rate: float, staircase: bool = False
) -> Callable:
    """The schedule ``i -> step_size / (1 + decay_rate * i / decay_steps)`` (with
    ``floor(i / decay_steps)`` when ``staircase``).

    Example:
        >>> from ftransforms.example_libraries.optimizers import inverse_time_decay
        >>> float(inverse_time_decay(1.0, 10, 1.0, staircase=True)(15))
        0.5
    """

    def schedule(i: Any) -> Any:
        ratio = fnp.floor(i / decay_steps) if staircase else i / decay_steps
        return step_size / (1 + decay_rate * ratio)

    return schedule


def polynomial_decay(
    step_size: float, decay_steps: float, final_step_size: float, power: float = 1.0
) -> Callable:
    """The schedule from ``step_size`` to ``final_step_size`` over ``decay_steps`` steps:
    ``(step_size - final) * (1 - min(i, decay_steps) / decay_steps) ** power + final``.

    Example:
        >>> from ftransforms.example_libraries.optimizers import polynomial_decay
        >>> float(polynomial_decay(1.0, 10, 0.0)(5)), float(polynomial_decay(1.0, 10, 0.0)(50))
        (0.5, 0.0)
    """

    def schedule(i: Any) -> Any:
        step = fnp.minimum(i, decay_steps)
        decay = (1 - step / decay_steps) ** power
        return (step_size - final_step_size) * decay + final_step_size

    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Callable:
    """The schedule ``values[k]`` for ``boundaries[k-1] < i <= boundaries[k]`` (one more
    value than boundaries; JAX's convention: a boundary step still has the earlier value).

    Example:
        >>> from ftransforms.example_libraries.optimizers import piecewise_constant
        >>> s = piecewise_constant([10, 20], [1.0, 0.5, 0.1])
        >>> float(s(10)), float(s(11)), float(s(25))
        (1.0, 0.5, 0.1)
    """
    boundaries = fnp.asarray(boundaries)
    values = fnp.asarray(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError(
            "piecewise_constant(boundaries, values): expected 1-d boundaries and values, "
            f"got shapes {boundaries.shape} and {values.shape}"
        )
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError(
            "piecewise_constant(boundaries, values): expected one more value than "
            f"boundaries, got {boundaries.shape[0]} boundaries and {values.shape[0]} values"
        )

    def schedule(i: Any) -> Any:
        return values[fnp.sum(i > boundaries)]

    return schedule


def make_schedule(scalar_or_schedule: Any) -> Callable:
    """A schedule from a number (a constant schedule) or a schedule (returned as is).

    Example:
        >>> from ftransforms.example_libraries.optimizers import make_schedule
        >>> make_schedule(0.1)(3), make_schedule(lambda i: 1.0 / (i + 1))(3)
        (0.1, 0.25)
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if fnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(
        "make_schedule(step_size): expected a number or a function of the step, got "
        f"{type(scalar_or_schedule).__name__} of shape {fnp.shape(scalar_or_schedule)}"
    )


# ----------------------------------------------------------------------------- utilities


def l2_norm(tree: Any) -> Any:
    """The l2 norm of all the leaves of ``tree`` together.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries.optimizers import l2_norm
        >>> float(l2_norm({"a": np.array([3.0]), "b": np.array([4.0])}))
        5.0
    """
    leaves, _ = tree_flatten(tree)
    return fnp.sqrt(sum(fnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: float) -> Any:
    """``grad_tree`` scaled so that its :func:`l2_norm` is at most ``max_norm``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries.optimizers import clip_grads
        >>> clip_grads([np.array([3.0, 4.0])], 1.0)
        [array([0.6, 0.8])]
    """
    norm = l2_norm(grad_tree)
    normalize = lambda g: fnp.where(norm < max_norm, g, g * (max_norm / norm))  # noqa: E731
    return tree_map(normalize, grad_tree)


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """The parameters' structure holding, per leaf, that leaf's state (a tuple such as
    ``(x, m, v)``): for saving an optimizer's state.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> state = optimizers.momentum(0.1, 0.9)[0]({"w": np.ones(2)})
        >>> optimizers.unpack_optimizer_state(state)["w"][1]
        array([0., 0.])
    """
    flats, tree, subtrees = opt_state
    return tree_unflatten(tree, [tree_unflatten(s, f) for s, f in zip(subtrees, flats)])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
    """The inverse of :func:`unpack_optimizer_state`.

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import optimizers
        >>> state = optimizers.adam(0.1)[0]([np.ones(2)])
        >>> packed = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
        >>> packed.tree_def == state.tree_def
        True
    """
    per_leaf, tree = tree_util.tree_flatten(marked_pytree, is_leaf=lambda v: isinstance(v, tuple))
    flats, subtrees = _flatten_each(per_leaf)
    return OptimizerState(flats, tree, subtrees)
