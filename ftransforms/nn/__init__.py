"""``ftransforms.nn``: a functional neural-network toolkit.  Parameters are pytrees of
arrays; layers, losses and optimisers are pure functions, so every transform applies:
per-example gradients are ``vmap(grad(loss), in_dims=(None, 0, 0))``, an ensemble is
``vmap(model, in_dims=(0, None))`` over :func:`stack_trees` of the members' parameters.

Layouts and semantics are torch's (``torch.nn.functional``): NCHW images, ``(out, in)``
linear weights, ``(out, in/groups, kh, kw)`` kernels, the same losses and initialisers.
The functions that ``jax.nn`` has (the activations, ``softmax``, ``logsumexp``,
``one_hot``, ``standardize``, ``initializers``, ``dot_product_attention``) take its
arguments and defaults, since ``import ftransforms as jax`` makes them ``jax.nn``'s:
``gelu`` is the tanh approximation unless ``approximate=False`` (torch's default is the
exact form), ``one_hot`` gives float64 (torch: int64).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad, vmap
    >>> from ftransforms import nn
    >>> rng = np.random.default_rng(0)
    >>> params = nn.init_mlp(rng, [4, 8, 3], dtype=np.float64)
    >>> x, y = rng.normal(size=(5, 4)), np.array([0, 2, 1, 1, 0])
    >>> def loss(p, x, y):
    ...     return nn.cross_entropy(nn.mlp(p, x), y)
    >>> per_example = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    >>> per_example[0]["w"].shape
    (5, 8, 4)

Contents: initialisers (:func:`init_linear`, :func:`init_conv2d`, :func:`init_mlp`);
layers (:func:`linear`, :func:`mlp`, :func:`conv2d`, :func:`conv_transpose2d`,
:func:`max_pool2d`, :func:`avg_pool2d`, :func:`adaptive_avg_pool2d`,
:func:`sliding_windows`, :func:`layer_norm`, :func:`batch_norm`, :func:`dropout`,
:func:`embedding`, :func:`one_hot`, :func:`flatten`); activations (:func:`relu`,
:func:`relu6`, :func:`leaky_relu`, :func:`elu`, :func:`gelu`, :func:`silu`,
:func:`sigmoid`, :func:`log_sigmoid`, :func:`softplus`, :func:`softmax`,
:func:`log_softmax`, :func:`logsumexp`, and the rest of ``jax.nn``'s: :func:`selu`,
:func:`celu`, :func:`glu`, :func:`mish`, :func:`hard_tanh`, :func:`hard_sigmoid`,
:func:`hard_silu`, :func:`soft_sign`, :func:`squareplus`, :func:`sparse_plus`,
:func:`sparse_sigmoid`, :func:`log1mexp`, :func:`logmeanexp`, :func:`standardize`,
:func:`identity`, :func:`tanh`); losses (:func:`cross_entropy`,
:func:`nll_loss`, :func:`mse_loss`, :func:`l1_loss`,
:func:`binary_cross_entropy_with_logits`); trees (:func:`tree_map`,
:func:`stack_trees`, :func:`unstack_tree`); optimisers (:func:`sgd`, :func:`adam`).
"""

from ftransforms.nn import initializers  # noqa: F401  (jax.nn.initializers, as nn.initializers)
from ftransforms.nn.activations import (
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    log_softmax,
    logmeanexp,
    logsumexp,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softmax,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    standardize,
    swish,
    tanh,
)
from ftransforms.nn.attention import dot_product_attention
from ftransforms.nn.init import init_conv2d, init_linear, init_mlp
from ftransforms.nn.layers import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    conv2d,
    conv_transpose2d,
    dropout,
    embedding,
    flatten,
    layer_norm,
    linear,
    max_pool2d,
    mlp,
    one_hot,
    sliding_windows,
)
from ftransforms.nn.losses import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ftransforms.nn.optim import Optimizer, adam, sgd
from ftransforms.nn.tree import stack_trees, tree_leaves, tree_map, unstack_tree

__all__ = [
    "Optimizer",
    "adam",
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "dot_product_attention",
    "dropout",
    "elu",
    "embedding",
    "flatten",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "init_conv2d",
    "init_linear",
    "init_mlp",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log1mexp",
    "log_sigmoid",
    "log_softmax",
    "logmeanexp",
    "logsumexp",
    "max_pool2d",
    "mish",
    "mlp",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sgd",
    "sigmoid",
    "silu",
    "sliding_windows",
    "soft_sign",
    "softmax",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "stack_trees",
    "standardize",
    "swish",
    "tanh",
    "tree_leaves",
    "tree_map",
    "unstack_tree",
]
