# ruff: noqa  (a published program in its authors' style)
"""HIPS autograd's examples/deep_gaussian_process.py: two GP layers joined by learned
hidden values, one flat parameter vector sliced into the layers, ``np.atleast_2d(h).T``,
and ``scipy.optimize.minimize(value_and_grad(objective), ..., jac=True, method="CG")``
with a printing callback.  The script's ``__main__`` block (which defines the globals
``n_data``, ``X``, ``y`` that ``build_deep_gp`` reads) runs at import with its sizes;
the plots are left out and the optimisation is :func:`run`."""

import ftransforms.numpy as np
import ftransforms.numpy.random as npr
from ftransforms import value_and_grad
from scipy.optimize import minimize

from tests.published5.autograd_gaussian_process import make_gp_funs, rbf_covariance


def build_step_function_dataset(D=1, n_data=40, noise_std=0.1):
    rs = npr.RandomState(0)
    inputs = np.linspace(-2, 2, num=n_data)
    targets = np.sign(inputs) + rs.randn(n_data) * noise_std
    inputs = inputs.reshape((len(inputs), D))
    return inputs, targets


def build_deep_gp(input_dimension, hidden_dimension, covariance_function):
    # GP going from input to hidden
    num_params_layer1, predict_layer1, log_marginal_likelihood_layer1 = make_gp_funs(
        covariance_function, num_cov_params=input_dimension + 1
    )

    # GP going from hidden to output
    num_params_layer2, predict_layer2, log_marginal_likelihood_layer2 = make_gp_funs(
        covariance_function, num_cov_params=hidden_dimension + 1
    )

    num_hidden_params = hidden_dimension * n_data
    total_num_params = num_params_layer1 + num_params_layer2 + num_hidden_params

    def unpack_all_params(all_params):
        layer1_params = all_params[:num_params_layer1]
        layer2_params = all_params[num_params_layer1 : num_params_layer1 + num_params_layer2]
        hiddens = all_params[num_params_layer1 + num_params_layer2 :]
        return layer1_params, layer2_params, hiddens

    def combined_predict_fun(all_params, X, y, xs):
        layer1_params, layer2_params, hiddens = unpack_all_params(all_params)
        h_star_mean, h_star_cov = predict_layer1(layer1_params, X, hiddens, xs)
        y_star_mean, y_star_cov = predict_layer2(
            layer2_params, np.atleast_2d(hiddens).T, y, np.atleast_2d(h_star_mean).T
        )
        return y_star_mean, y_star_cov

    def log_marginal_likelihood(all_params):
        layer1_params, layer2_params, h = unpack_all_params(all_params)
        return log_marginal_likelihood_layer1(layer1_params, X, h) + log_marginal_likelihood_layer2(
            layer2_params, np.atleast_2d(h).T, y
        )

    predict_layer_funcs = [predict_layer1, predict_layer2]

    return (
        total_num_params,
        log_marginal_likelihood,
        combined_predict_fun,
        unpack_all_params,
        predict_layer_funcs,
    )


# the script's __main__ block, up to the optimisation
n_data = 20
input_dimension = 1
hidden_dimension = 1
X, y = build_step_function_dataset(D=input_dimension, n_data=n_data)

(
    total_num_params,
    log_marginal_likelihood,
    combined_predict_fun,
    unpack_all_params,
    predict_layer_funcs,
) = build_deep_gp(input_dimension, hidden_dimension, rbf_covariance)


def callback(params):
    print("Log marginal likelihood {}".format(log_marginal_likelihood(params)))

    # Show posterior marginals.
    plot_xs = np.reshape(np.linspace(-5, 5, 300), (300, 1))
    pred_mean, pred_cov = combined_predict_fun(params, X, y, plot_xs)
    marg_std = np.sqrt(np.diag(pred_cov))
    return pred_mean, marg_std


def run(maxiter=None):
    # Initialize covariance parameters and hiddens.
    rs = npr.RandomState(0)
    init_params = 0.1 * rs.randn(total_num_params)

    print("Optimizing covariance parameters...")
    objective = lambda params: -log_marginal_likelihood(params)
    cov_params = minimize(
        value_and_grad(objective),
        init_params,
        jac=True,
        method="CG",
        callback=callback,
        options=None if maxiter is None else {"maxiter": maxiter},
    )
    return init_params, cov_params
