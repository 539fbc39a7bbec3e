"""The compiled tier behind ``ftransforms.jit`` (optional: ``pip install
'ftransforms[compile]'`` brings numba).

NOTE [compiled tier]: a recorded program (``ftransforms/program.py``) is replayed as
straight-line NumPy; that costs one NumPy call (0.25-0.5 us) per equation and one pass
over memory per elementwise op.  The compiled tier reorders the program so that fusible
equations run together (``lowering.schedule``), then cuts it into *fusion groups*
(``lowering.py``): runs of elementwise arithmetic/math, sums/maxima/minima, axis-only
views, static slices (offset views; a slice of an array from outside a group is a NumPy
view taken before its kernel, so the steps of an unrolled loop share one kernel) and
their zero-padded transposes on float arrays become one loop nest each, whose
intermediate values stay in registers, inside one kernel per run (``numba_backend.py``:
explicit loops, operands cast to NumPy's computation dtype, ``error_model="numpy"``).
Everything else (BLAS, linear algebra, FFT, special functions, indexing with data, random
draws, control flow) stays the NumPy call it was (a ``concatenate`` of one kernel's
outputs that nothing else reads excepted: the kernel writes it in place; and a kernel's
outputs of one shape are one allocation, ``tier.mark_blocks``); a generated Python *driver*
(``program.generate`` with the kernels as pseudo-primitives) calls kernels and NumPy in
that order, and a control-flow node's sub-programs (a ``scan`` step, a ``while_loop``
body, ``cond`` branches) get drivers of their own, which the node looks up at every
replay (without the outputs a loop does not store: ``ControlNode.unread``).

When (``tier.py``): never on the first call, which records.  By default a program is
compiled in a background thread after ``HOT_CALLS`` replays (the replay goes on meanwhile;
numba holds the GIL for much of a compile, so the caller runs slower, not blocked), then
the two tiers are timed on alternate calls and the faster one is kept.
``jit(f, compile=True)`` compiles each recording at once in the background and uses it
when ready; ``jit(f).compile()`` compiles now, blocking; ``compile=False`` or
``FTRANSFORMS_JIT_COMPILE=never`` turns the tier off, ``FTRANSFORMS_JIT_COMPILE=always``
compiles every recording synchronously (the tests' setting).  Without numba nothing of
this runs, nothing is imported and nothing warns.  Kernel modules are written once to a
cache folder under a hash of their source and the versions (``cache.py``) and compiled
with numba's ``cache=True``, which keys by that file, numba's version and the CPU: a
later process loads them instead of compiling.

Programs on CuPy arrays go through the same policy but compile to CuPy kernels instead
(``ElementwiseKernel``/``ReductionKernel`` per fusion group, NOTE [CuPy kernels] in
``cupy_driver.py``), with or without numba.
"""
