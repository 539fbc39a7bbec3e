"""Losses with ``torch.nn.functional`` semantics (class axis 1, or 0 for an unbatched
``(C,)`` input; ``reduction`` in ``'mean'``, ``'sum'``, ``'none'``).

Class-index targets are turned into a one-hot mask (a constant) rather than gathered, so
that targets batched under ``vmap`` and ``ignore_index`` need nothing special.
"""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp
from ftransforms.nn.activations import log_softmax
from ftransforms.numpy.helpers import dtype_of
from ftransforms.ops.nn import softplus_p

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str, where: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _class_axis(x: Any) -> int:
    return 0 if fnp.ndim(x) == 1 else 1


def _class_mask(target: Any, x: Any, axis: int, ignore_index: int) -> Any:
    """``(target == c)`` for every class ``c`` along ``axis`` of ``x``, as ``x``'s dtype,
    with the rows of targets equal to ``ignore_index`` all zero (an index in range, such as
    a padding token 0, counts as no class, as torch ignores it)."""
    c = fnp.shape(x)[axis]
    classes = fnp.reshape(fnp.arange(c, like=target), (c,) + (1,) * (fnp.ndim(x) - axis - 1))
    target = fnp.expand_dims(target, axis)
    return fnp.astype((target == classes) & (target != ignore_index), dtype_of(x))


def _weight_along(weight: Any, x: Any, axis: int) -> Any:
    return fnp.reshape(weight, (fnp.shape(x)[axis],) + (1,) * (fnp.ndim(x) - axis - 1))


def _check_index_target(x: Any, target: Any, where: str) -> None:
    axis = _class_axis(x)
    expected = fnp.shape(x)[:axis] + fnp.shape(x)[axis + 1 :]
    if fnp.shape(target) != expected:
        raise ValueError(
            f"{where}: class-index targets for input of shape {fnp.shape(x)} must have shape "
            f"{expected}, got {fnp.shape(target)}"
        )


def nll_loss(
    log_probs: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Any:
    """Negative log-likelihood of integer ``target`` classes under ``log_probs``
    (``(N, C, ...)`` or ``(C,)``); ``'mean'`` divides by the total weight of the
    non-ignored targets, like torch.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> log_probs, target = np.log(np.array([[0.25, 0.75], [0.5, 0.5]])), np.array([1, 0])
        >>> float(nn.nll_loss(log_probs, target))  # -(log 0.75 + log 0.5) / 2
        0.4904146265058631
        >>> ft.grad(nn.nll_loss)(log_probs, target)  # -1/N at each target
        array([[ 0. , -0.5],
               [-0.5,  0. ]])
    """
    where = "nll_loss(log_probs, target)"
    _check_reduction(reduction, where)
    _check_index_target(log_probs, target, where)
    axis = _class_axis(log_probs)
    mask = _class_mask(target, log_probs, axis, ignore_index)
    if weight is not None:
        mask = mask * _weight_along(weight, log_probs, axis)
    # Select, then weight: a -inf log-probability of a class that is not the target (a
    # masked logit) must not give 0 * -inf = nan (torch gathers the target's).
    losses = -fnp.sum(fnp.where(mask != 0, log_probs, 0.0) * mask, axis=axis)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return fnp.sum(losses)
    return fnp.sum(losses) / fnp.sum(mask)


def cross_entropy(
    logits: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    """Cross-entropy between ``logits`` (``(N, C, ...)`` or ``(C,)``) and ``target``:
    integer class indices (``(N, ...)``) or class probabilities (``logits``' shape), with
    torch's ``weight``, ``ignore_index`` (index targets), ``reduction`` and
    ``label_smoothing`` semantics.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> logits, target = np.zeros((2, 3)), np.array([0, 2])
        >>> float(nn.cross_entropy(logits, target))  # log 3
        1.0986122886681098
        >>> np.round(ft.grad(nn.cross_entropy)(logits, target), 4)  # (softmax - one_hot) / N
        array([[-0.3333,  0.1667,  0.1667],
               [ 0.1667,  0.1667, -0.3333]])
    """
    where = "cross_entropy(logits, target)"
    _check_reduction(reduction, where)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{where}: label_smoothing must be in [0, 1], got {label_smoothing}")
    axis = _class_axis(logits)
    n_classes = fnp.shape(logits)[axis]
    logp = log_softmax(logits, axis=axis)
    if dtype_of(target).kind in "fc":
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, axis, where)
    if dtype_of(target).kind not in "iu":
        raise TypeError(f"{where}: target must be class indices (integers) or probabilities")
    nll = nll_loss(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    # torch: (1 - eps) * nll + eps / C * (the loss against the uniform distribution)
    wlogp = logp if weight is None else logp * _weight_along(weight, logp, axis)
    valid = fnp.astype(target != ignore_index, dtype_of(logp))
    smooth = -fnp.sum(wlogp, axis=axis) * valid
    if reduction == "none":
        pass
    elif reduction == "sum":
        smooth = fnp.sum(smooth)
    else:
        mask = _class_mask(target, logp, axis, ignore_index)
        if weight is not None:
            mask = mask * _weight_along(weight, logp, axis)
        smooth = fnp.sum(smooth) / fnp.sum(mask)
    return (1 - label_smoothing) * nll + (label_smoothing / n_classes) * smooth


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, axis, where):
    if fnp.shape(target) != fnp.shape(logp):
        raise ValueError(
            f"{where}: probability targets must have the logits' shape {fnp.shape(logp)}, "
            f"got {fnp.shape(target)}"
        )
    n_classes = fnp.shape(logp)[axis]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = logp * target
    if weight is not None:
        terms = terms * _weight_along(weight, logp, axis)
    losses = -fnp.sum(terms, axis=axis)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return fnp.sum(losses)
    return fnp.mean(losses) if fnp.ndim(losses) else losses


def binary_cross_entropy_with_logits(
    logits: Any, target: Any, weight: Any = None, reduction: str = "mean", pos_weight: Any = None
) -> Any:
    """``-(y log sigmoid(x) + (1 - y) log(1 - sigmoid(x)))`` computed stably as
    ``softplus(x) - y x`` (finite for any finite logit), then ``weight``-ed and reduced.
    ``pos_weight`` (torch's, broadcast along the last axis) weighs the positive term:
    ``-(p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x)))``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x, y = np.array([0.0, 1000.0]), np.array([1.0, 1.0])
        >>> nn.binary_cross_entropy_with_logits(x, y, reduction="none")  # log 2, and 0
        array([0.69314718, 0.        ])
        >>> ft.grad(nn.binary_cross_entropy_with_logits)(np.zeros(2), np.array([1.0, 0.0]))
        array([-0.25,  0.25])
    """
    where = "binary_cross_entropy_with_logits(logits, target)"
    _check_reduction(reduction, where)
    if pos_weight is None:
        losses = softplus_p.bind(logits) - target * logits
    else:  # (1 - y) x + (1 + (p - 1) y) softplus(-x)
        scale = 1.0 + (pos_weight - 1.0) * target
        losses = (1.0 - target) * logits + scale * softplus_p.bind(-logits)
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """Squared error ``(input - target)**2``, reduced (``'mean'``, ``'sum'`` or ``'none'``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x, t = np.array([1.0, 2.0]), np.array([0.0, 4.0])
        >>> float(nn.mse_loss(x, t))  # (1 + 4) / 2
        2.5
        >>> ft.grad(nn.mse_loss)(x, t)  # 2 (x - t) / N
        array([ 1., -2.])
    """
    _check_reduction(reduction, "mse_loss(input, target)")
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """Absolute error ``|input - target|``, reduced (``'mean'``, ``'sum'`` or ``'none'``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x, t = np.array([1.0, 2.0]), np.array([0.0, 4.0])
        >>> float(nn.l1_loss(x, t))  # (1 + 2) / 2
        1.5
        >>> ft.grad(nn.l1_loss)(x, t)  # sign(x - t) / N
        array([ 0.5, -0.5])
    """
    _check_reduction(reduction, "l1_loss(input, target)")
    return _reduce(fnp.abs(input - target), reduction)


def _reduce(losses: Any, reduction: str) -> Any:
    if reduction == "none":
        return losses
    if reduction == "sum":
        return fnp.sum(losses)
    return fnp.mean(losses)
