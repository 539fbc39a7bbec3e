# ruff: noqa  (a published program in its authors' style)
"""functorch's examples/maml_regression/evjang_transforms.py (MAML on sine waves, after
Eric Jang), with torch tensors as NumPy arrays: a functional MLP over a list of
parameters, the inner step by ``grad`` of the task loss, tasks batched by ``vmap`` with
the parameters shared (``in_dims=(0, 0, 0, 0, None)``), and the outer gradient of the
mean task loss (``loss.backward()`` becomes ``grad``) feeding Adam written out."""

import math

import numpy as np

from ftransforms import grad, vmap


def net(params, x):
    x = x @ params[0].T + params[1]  # F.linear
    x = np.maximum(x, 0)  # F.relu
    x = x @ params[2].T + params[3]
    x = np.maximum(x, 0)
    x = x @ params[4].T + params[5]
    return x


def mse_loss(a, b):
    return np.mean((a - b) ** 2)


def init_params(rng, hidden=40):
    return [
        rng.uniform(-1.0, 1.0, size=(hidden, 1)),
        np.zeros(hidden),
        rng.uniform(-1.0 / math.sqrt(hidden), 1.0 / math.sqrt(hidden), size=(hidden, hidden)),
        np.zeros(hidden),
        rng.uniform(-1.0 / math.sqrt(hidden), 1.0 / math.sqrt(hidden), size=(1, hidden)),
        np.zeros(1),
    ]


def sample_tasks(rng, outer_batch_size, inner_batch_size):
    # Select amplitude and phase for the task
    As = []
    phases = []
    for _ in range(outer_batch_size):
        As.append(rng.uniform(low=0.1, high=0.5))
        phases.append(rng.uniform(low=0.0, high=np.pi))

    def get_batch():
        xs, ys = [], []
        for A, phase in zip(As, phases):
            x = rng.uniform(low=-5.0, high=5.0, size=(inner_batch_size, 1))
            y = A * np.sin(x + phase)
            xs.append(x)
            ys.append(y)
        return np.stack(xs), np.stack(ys)

    x1, y1 = get_batch()
    x2, y2 = get_batch()
    return x1, y1, x2, y2


def inner_loop(x1, y1, x2, y2, params, alpha=1e-1):
    def inner_loss(params, x1, y1):
        f = net(params, x1)
        loss = mse_loss(f, y1)
        return loss

    grads = grad(inner_loss)(tuple(params), x1, y1)
    new_params = [(params[i] - alpha * grads[i]) for i in range(len(params))]

    v_f = net(new_params, x2)
    return mse_loss(v_f, y2)


def outer_loss(params, x1, y1, x2, y2):
    inner_losses = vmap(inner_loop, in_dims=(0, 0, 0, 0, None))(x1, y1, x2, y2, params)
    return inner_losses.mean()


def train(rng, params, num_iters, lr=1e-3, log=print):
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    losses = []
    for it in range(num_iters):
        x1, y1, x2, y2 = sample_tasks(rng, 4, 10)
        loss2 = outer_loss(params, x1, y1, x2, y2)
        grads = grad(outer_loss)(params, x1, y1, x2, y2)
        for i in range(len(params)):  # torch.optim.Adam(params, lr=1e-3)
            m[i] = 0.9 * m[i] + 0.1 * grads[i]
            v[i] = 0.999 * v[i] + 0.001 * grads[i] ** 2
            m_hat = m[i] / (1 - 0.9 ** (it + 1))
            v_hat = v[i] / (1 - 0.999 ** (it + 1))
            params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        if it % 100 == 0:
            log("Iteration %d -- Outer Loss: %.4f" % (it, loss2))
        losses.append(float(loss2))
    return params, losses
