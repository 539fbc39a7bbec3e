import numpy as np, scipy.signal, ftransforms as ft
rng = np.random.default_rng(0)
x = rng.normal(size=(3, 17))
for mode in ("interp", "mirror", "constant", "nearest", "wrap"):
  for (wl, po, d, delta) in [(5,2,0,1.0),(7,3,1,0.5),(4,2,0,1.0),(9,2,3,1.0),(5,4,2,2.0),(1,0,0,1.0)]:
    for axis in (-1, 0):
        if mode=="interp" and wl > x.shape[axis]: continue
        o = ft.scipy.signal.savgol_filter(x, wl, po, d, delta, axis, mode, 0.5) if hasattr(ft, "scipy") else None
        import ftransforms.scipy.signal as fs
        o = fs.savgol_filter(x, wl, po, d, delta, axis, mode, 0.5)
        t = scipy.signal.savgol_filter(x, wl, po, d, delta, axis, mode, 0.5)
        err = np.abs(o-t).max()
        if err > 1e-10: print("BAD", mode, wl, po, d, axis, err)
W = rng.normal(size=x.shape)
g = ft.grad(lambda x: (scipy.signal.savgol_filter(x, 5, 2)*W).sum())(x)
J = np.stack([scipy.signal.savgol_filter(e.reshape(x.shape), 5, 2).ravel() for e in np.eye(x.size)])  # linear: exact Jacobian
print("grad", np.abs(g.ravel() - J @ W.ravel()).max())
print("vmap", np.abs(ft.vmap(lambda r: scipy.signal.savgol_filter(r, 7, 3, deriv=1))(x) - scipy.signal.savgol_filter(x, 7, 3, deriv=1)).max())
print(fs.savgol_coeffs(5,2,pos=1, use='dot') - scipy.signal.savgol_coeffs(5,2,pos=1,use='dot'))
print(fs.savgol_filter(x.astype(np.float32), 5, 2).dtype, fs.savgol_filter(np.arange(10), 5, 2).dtype)
