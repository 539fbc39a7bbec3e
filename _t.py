import numpy as np, scipy.ndimage as nd, ftransforms as ft
rng = np.random.default_rng(0); x = rng.normal(size=(5, 6))
angs = np.array([20.0, 33.0, -10.0])
for rs in (False, True):
    try:
        o = ft.vmap(lambda a: nd.rotate(x, a, reshape=rs, order=1))(angs[:2] if rs else angs)
        t = np.stack([nd.rotate(x, a, reshape=rs, order=1) for a in (angs[:2] if rs else angs)])
        print(rs, np.abs(o-t).max())
    except Exception as e: print(rs, type(e).__name__, e)
print(np.abs(ft.vmap(lambda a: nd.rotate(x, a, order=1))(np.array([20.0, 21.0])) - np.stack([nd.rotate(x, a, order=1) for a in (20.0, 21.0)])).max())
g = ft.grad(lambda a: nd.rotate(x, a, order=1).sum())(20.0); e = 1e-6
print(g - (nd.rotate(x, 20+e, order=1).sum() - nd.rotate(x, 20-e, order=1).sum())/(2*e))
