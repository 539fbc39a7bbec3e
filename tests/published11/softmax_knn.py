# ruff: noqa  (a published program in its authors' style)
"""Two first-assignment classifiers of a machine-learning course: softmax regression with
the naive (double loop) and vectorised loss-and-gradient, the gradient of the data term
scattered with ``np.add.at`` and ``dscores[np.arange(N), y] -= 1``, the numerical
gradient check that samples random coordinates; and the k-nearest-neighbour classifier
with the two-loop / one-loop / no-loop distance matrices, ``np.argsort`` for the
neighbours and ``np.bincount(...).argmax()`` for the vote, plus kNN regression and a
Gaussian-kernel (Nadaraya-Watson) smoother."""

import numpy as np


def softmax_loss_naive(W, X, y, reg):
    loss = 0.0
    dW = np.zeros_like(W)
    num_train = X.shape[0]
    num_classes = W.shape[1]
    for i in range(num_train):
        scores = X[i].dot(W)
        scores -= np.max(scores)
        sum_exp = np.sum(np.exp(scores))
        loss += -scores[y[i]] + np.log(sum_exp)
        for j in range(num_classes):
            p = np.exp(scores[j]) / sum_exp
            dW[:, j] += (p - (j == y[i])) * X[i]
    loss /= num_train
    dW /= num_train
    loss += reg * np.sum(W * W)
    dW += 2 * reg * W
    return loss, dW


def softmax_loss_vectorized(W, X, y, reg):
    num_train = X.shape[0]
    scores = X.dot(W)
    scores -= scores.max(axis=1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=1, keepdims=True)
    loss = -np.log(probs[np.arange(num_train), y]).sum() / num_train
    loss += reg * np.sum(W * W)
    dscores = probs.copy()
    dscores[np.arange(num_train), y] -= 1
    dscores /= num_train
    dW = X.T.dot(dscores) + 2 * reg * W
    return loss, dW


def softmax_loss_add_at(W, X, y, reg):
    # the one-hot gradient by np.add.at (a label may repeat inside a column)
    N = X.shape[0]
    scores = X @ W
    scores = scores - np.max(scores, axis=1, keepdims=True)
    log_probs = scores - np.log(np.sum(np.exp(scores), axis=1, keepdims=True))
    loss = -np.mean(log_probs[np.arange(N), y]) + reg * np.sum(W**2)
    probs = np.exp(log_probs)
    dW = X.T @ probs
    np.add.at(dW.T, y, -X)  # subtract x_i from column y_i
    dW /= N
    dW += 2 * reg * W
    return loss, dW


def grad_check_sparse(f, x, analytic_grad, num_checks=5, h=1e-5, seed=0):
    rng = np.random.default_rng(seed)
    errs = []
    for i in range(num_checks):
        ix = tuple([rng.integers(m) for m in x.shape])
        oldval = x[ix]
        x[ix] = oldval + h
        fxph = f(x)
        x[ix] = oldval - h
        fxmh = f(x)
        x[ix] = oldval
        grad_numerical = (fxph - fxmh) / (2 * h)
        grad_analytic = analytic_grad[ix]
        errs.append(
            abs(grad_numerical - grad_analytic) / (abs(grad_numerical) + abs(grad_analytic))
        )
    return np.array(errs)


def train_softmax(W, X, y, lr=0.5, reg=1e-3, num_iters=20, batch_size=8, seed=0):
    rng = np.random.default_rng(seed)
    losses = []
    for it in range(num_iters):
        idx = rng.choice(X.shape[0], batch_size, replace=True)
        loss, grad = softmax_loss_vectorized(W, X[idx], y[idx], reg)
        losses.append(loss)
        W -= lr * grad
    return W, losses


def dists_two_loops(X, X_train):
    dists = np.zeros((X.shape[0], X_train.shape[0]))
    for i in range(X.shape[0]):
        for j in range(X_train.shape[0]):
            dists[i, j] = np.sqrt(np.sum((X[i] - X_train[j]) ** 2))
    return dists


def dists_one_loop(X, X_train):
    dists = np.zeros((X.shape[0], X_train.shape[0]))
    for i in range(X.shape[0]):
        dists[i, :] = np.sqrt(np.sum(np.square(X_train - X[i, :]), axis=1))
    return dists


def dists_no_loops(X, X_train):
    te = np.sum(X**2, axis=1)[:, np.newaxis]
    tr = np.sum(X_train**2, axis=1)
    return np.sqrt(np.maximum(te + tr - 2 * X.dot(X_train.T), 0))


def knn_predict_labels(dists, y_train, k=3):
    num_test = dists.shape[0]
    y_pred = np.zeros(num_test, dtype=int)
    for i in range(num_test):
        closest_y = y_train[np.argsort(dists[i])[:k]]
        y_pred[i] = np.bincount(closest_y).argmax()
    return y_pred


def knn_regress(X, X_train, y_train, k=3):
    d = dists_no_loops(X, X_train)
    nn = np.argsort(d, axis=1)[:, :k]
    return y_train[nn].mean(axis=1)


def knn_regress_weighted(x, X_train, y_train, k=3):
    # inverse-distance weights of the k nearest, for one query point
    d = np.linalg.norm(X_train - x, axis=1)
    idx = np.argsort(d)[:k]
    w = 1.0 / d[idx]
    return np.sum(w * y_train[idx]) / np.sum(w)


def nadaraya_watson(x, X_train, y_train, bandwidth):
    d2 = np.sum((X_train[None, :, :] - x[:, None, :]) ** 2, axis=-1)
    K = np.exp(-d2 / (2 * bandwidth**2))
    return (K @ y_train) / K.sum(axis=1)


def make_data(n=12, d=3, c=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, c, n)
    return X, y
