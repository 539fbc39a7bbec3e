"""ftransforms: composable function transforms (vmap, grad, vjp, jvp, jacrev, jacfwd,
hessian, ...) for NumPy and CuPy arrays.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad, vmap
    >>> def loss(w, x):
    ...     return np.tanh(x @ w).sum()
    >>> per_sample = vmap(grad(loss), in_dims=(None, 0))(np.ones(3), np.ones((4, 3)))
    >>> per_sample.shape
    (4, 3)
"""

import ftransforms.numpy as numpy  # noqa: E402,I001  (the fnp namespace, as ftransforms.numpy)
import batching_rules  # noqa: F401  (registers the batching rules of the primitives)
from ftransforms import errors, nn, random, scipy
from ftransforms import image  # jax.image's resize and scale_and_translate
from ftransforms.api import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
    vmap,
)
from ftransforms.checkpoint import checkpoint, checkpoint_policies, remat
from ftransforms.control import cond, fori_loop, scan, switch, while_loop
from ftransforms.core.primitive import Primitive, defop
from ftransforms.custom import custom_jvp, custom_vjp
from ftransforms.jit import jit, make_jaxpr, make_program
from ftransforms.pytree import register_pytree_node, tree_map

# JAX's transform toolbox, part a (issue 24): shapes, transposes, batching rules,
# callbacks, debugging, scans, flattening.
from ftransforms import debug  # noqa: E402
from ftransforms.callbacks import pure_callback  # noqa: E402
from ftransforms.custom_batching import custom_vmap  # noqa: E402
from ftransforms.linear_transpose import linear_transpose  # noqa: E402
from ftransforms.pytree import ravel_pytree  # noqa: E402
from ftransforms.scans import associative_scan, map  # noqa: A004,E402
from ftransforms.shape_eval import ShapeDtypeStruct, eval_shape  # noqa: E402

# -- the JAX toolbox, part b (issue 24): collectives, implicit solves, jet, optimize --
import ftransforms.ops.collectives  # noqa: E402,F401  (the primitives of ft.lax.psum & co.)
from ftransforms.implicit import custom_linear_solve, custom_root  # noqa: E402
from ftransforms.closures import closure_convert  # noqa: E402
from ftransforms.custom_gradient import custom_gradient  # noqa: E402
from ftransforms.jet import jet  # noqa: E402

# -- for code ported from JAX's tree utilities and HIPS autograd --
from ftransforms import extend, flatten_util, misc, tree, tree_util  # noqa: E402
from ftransforms import ad_checkpoint, custom_derivatives, dtypes, typing  # noqa: E402,A004  (JAX's module paths)
from ftransforms.dtypes import float0  # noqa: E402,F401  (jax.float0: a dtype, no docstring)
from ftransforms.autograd_compat import (  # noqa: E402
    deriv,
    elementwise_grad,
    grad_and_aux,
    grad_named,
    hessian_tensor_product,
    hessian_vector_product,
    linear_combination_of_hessians,
    holomorphic_grad,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
    tensor_jacobian_product,
    vector_jacobian_product,
)
from ftransforms.naming import named_call, named_scope  # noqa: E402

# -- torch.func's model-state helpers, for model objects whose weights are attributes --
from ftransforms.module_state import (  # noqa: E402
    functional_call,
    functionalize,
    named_arrays,
    stack_module_state,
)
from ftransforms.sync import block_until_ready, device_get, device_put  # noqa: E402

# -- jax.lax's names under ftransforms.lax (NOTE [jax.lax names in ftransforms.lax]) --
from ftransforms import jax_lax as _jax_lax  # noqa: E402
from ftransforms import lax  # noqa: E402

_jax_lax.install(lax)
# -- jax.ops's segment reductions under ftransforms.ops (ftransforms/jax_ops.py) --
from ftransforms import jax_ops as _jax_ops  # noqa: E402
from ftransforms import ops  # noqa: E402

_jax_ops.install(ops)
# -- JAX's runtime names (jax.disable_jit, jax.devices, jax.config, ...) --
from ftransforms import experimental  # noqa: E402
from ftransforms.runtime import (  # noqa: E402
    Device,
    clear_caches,
    config,
    default_backend,
    device_count,
    devices,
    disable_jit,
    ensure_compile_time_eval,
    local_device_count,
    local_devices,
    process_count,
    process_index,
    typeof,
)
from ftransforms.tree_util import (  # noqa: E402
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)

#: ``jax.Array``: the array type, for ``isinstance`` checks that count traced arrays
#: (the same class as ``ftransforms.numpy.ndarray``).
Array = numpy.ndarray

__version__ = "0.1.0"

__all__ = [
    # issue 24 (a)
    "ShapeDtypeStruct",
    "associative_scan",
    "custom_vmap",
    "debug",
    "eval_shape",
    "linear_transpose",
    "map",
    "pure_callback",
    "ravel_pytree",
    # ported from JAX's tree utilities and HIPS autograd
    "block_until_ready",
    "device_get",
    "named_call",
    "named_scope",
    "deriv",
    "device_put",
    "elementwise_grad",
    "ad_checkpoint",
    "custom_derivatives",
    "dtypes",
    "extend",
    "flatten_util",
    "grad_and_aux",
    "grad_named",
    "hessian_tensor_product",
    "hessian_vector_product",
    "linear_combination_of_hessians",
    "holomorphic_grad",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "misc",
    "multigrad_dict",
    "tensor_jacobian_product",
    "vector_jacobian_product",
    "tree",
    "tree_flatten",
    "tree_leaves",
    "tree_structure",
    "tree_unflatten",
    "tree_util",
    "typing",
    "Array",
    # torch.func's model-state helpers
    "functional_call",
    "functionalize",
    "named_arrays",
    "stack_module_state",
    # the rest
    "Primitive",
    "checkpoint",
    "checkpoint_policies",
    "closure_convert",
    "cond",
    "custom_gradient",
    "custom_jvp",
    "custom_linear_solve",
    "custom_root",
    "custom_vjp",
    "defop",
    "errors",
    "fori_loop",
    "grad",
    "grad_and_value",
    "hessian",
    "image",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jet",
    "jit",
    "jvp",
    "linearize",
    "make_jaxpr",
    "make_program",
    "nn",
    "numpy",
    "random",
    "register_pytree_node",
    "remat",
    "scan",
    "scipy",
    "switch",
    "tree_map",
    "value_and_grad",
    "vjp",
    "vmap",
    "while_loop",
    # JAX's runtime names
    "Device",
    "clear_caches",
    "config",
    "default_backend",
    "device_count",
    "devices",
    "disable_jit",
    "ensure_compile_time_eval",
    "experimental",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
    "typeof",
]
