import importlib, pkgutil, jax, jax.scipy
import ftransforms as ft
mods = ["signal","stats","linalg","special","sparse.linalg","cluster.vq","fft","ndimage","integrate","optimize","spatial.transform","interpolate"]
for m in mods:
    try:
        jm = importlib.import_module("jax.scipy."+m)
    except Exception as e:
        print("nojax", m, e); continue
    try:
        fm = importlib.import_module("ftransforms.scipy."+m)
    except Exception as e:
        print("MISSING MODULE", m, e); continue
    miss = [n for n in dir(jm) if not n.startswith("_") and not hasattr(fm, n)]
    print(m, miss)
# stats submodules
import jax.scipy.stats as js
import ftransforms.scipy.stats as fs
for n in dir(js):
    sub = getattr(js, n)
    if type(sub).__name__ == "module":
        fsub = getattr(fs, n, None)
        if fsub is None: print("stats missing dist", n); continue
        miss = [k for k in dir(sub) if not k.startswith("_") and not hasattr(fsub, k)]
        if miss: print("stats", n, miss)
