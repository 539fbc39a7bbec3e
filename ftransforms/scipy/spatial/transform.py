"""``ftransforms.scipy.spatial.transform``: ``Rotation`` and ``Slerp`` on tracers (like
``jax.scipy.spatial.transform``), with ``scipy.spatial.transform``'s methods.

A ``Rotation`` holds unit quaternions ``(..., 4)``, scalar last, and is a pytree (its
quaternions are the leaf), so ``vmap``/``jit`` take and return it.  Every conversion is
an ``fnp`` composition vectorised over the leading axis, hence differentiable:
``from_matrix`` takes the best-conditioned of its four candidate quaternions by
``fnp.where`` (Shepperd's choice, as SciPy), ``as_euler`` follows Bernardes and Viollet's
quaternion-to-Euler method (SciPy's and JAX's), ``mean`` is the leading eigenvector of
``sum w q q^T``.  Sequences of Euler axes are ``'xyz'``-style (lower case: extrinsic)
or ``'XYZ'``-style (upper case: intrinsic), as in SciPy.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.spatial.transform import Rotation
    >>> r = Rotation.from_euler("z", 90, degrees=True)
    >>> np.round(r.apply(np.array([1.0, 0.0, 0.0])), 6).tolist()
    [0.0, 1.0, 0.0]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import random_keys
from ftransforms.numpy.ufuncs import float_input
from ftransforms.pytree import register_pytree_node
from ftransforms.random_keys import is_key

__all__ = ["Rotation", "Slerp"]


def _f(x: Any) -> Any:
    return float_input(fnp.asarray(x), None)


def _normalize(q: Any) -> Any:
    return q / fnp.sqrt(fnp.sum(q * q, axis=-1, keepdims=True))


def _compose(p: Any, q: Any) -> Any:
    """The quaternion product ``p q`` (scalar last): the rotation ``q`` then ``p``."""
    pv, pw = p[..., :3], p[..., 3:]
    qv, qw = q[..., :3], q[..., 3:]
    v = pw * qv + qw * pv + fnp.cross(pv, qv)
    w = pw * qw - fnp.sum(pv * qv, axis=-1, keepdims=True)
    return fnp.concatenate([v, w], axis=-1)


def _axes(seq: str, where: str) -> tuple[list[int], bool]:
    if not isinstance(seq, str) or not 1 <= len(seq) <= 3:
        raise ValueError(f"{where}: seq must be a string of 1 to 3 axes, got {seq!r}")
    extrinsic = seq.islower()
    if not (extrinsic or seq.isupper()) or set(seq.lower()) - set("xyz"):
        raise ValueError(
            f"{where}: seq must use the axes x, y, z all lower case (extrinsic) or all "
            f"upper case (intrinsic), got {seq!r}"
        )
    axes = ["xyz".index(a) for a in seq.lower()]
    if any(a == b for a, b in zip(axes, axes[1:])):
        raise ValueError(f"{where}: consecutive axes must differ, got {seq!r}")
    return axes, extrinsic


class Rotation:
    """Rotations in 3 dimensions (``scipy.spatial.transform.Rotation``): one, or a stack
    of them along a leading axis.  Build with ``from_quat``, ``from_matrix``,
    ``from_rotvec``, ``from_mrp``, ``from_euler``, ``identity``, ``random``,
    ``concatenate``; read with ``as_*``, ``magnitude``; use with ``apply``, ``*``
    (composition), ``inv``, ``mean``, indexing and ``len``.

    Example:
        >>> import numpy as np
        >>> r = Rotation.from_rotvec(np.array([0.0, 0.0, np.pi / 2]))
        >>> np.round(r.as_matrix(), 6).tolist()
        [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """

    def __init__(
        self, quat: Any, normalize: bool = True, copy: bool = True, *, scalar_first: bool = False
    ) -> None:
        q = _f(quat)
        if fnp.ndim(q) not in (1, 2) or fnp.shape(q)[-1] != 4:
            raise ValueError(
                f"Rotation: quaternions must have shape (4,) or (N, 4), got {fnp.shape(q)}"
            )
        if scalar_first:
            q = fnp.concatenate([q[..., 1:], q[..., :1]], axis=-1)
        self._quat = _normalize(q) if normalize else q

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_quat(cls, quat: Any, *, scalar_first: bool = False) -> Rotation:
        """From quaternions ``(x, y, z, w)`` (``(w, x, y, z)`` with ``scalar_first``),
        normalised.

        Example:
            >>> import numpy as np
            >>> Rotation.from_quat(np.array([0.0, 0.0, 0.0, 2.0])).as_quat().tolist()
            [0.0, 0.0, 0.0, 1.0]
        """
        return cls(quat, scalar_first=scalar_first)

    @classmethod
    def from_matrix(cls, matrix: Any) -> Rotation:
        """From rotation matrices ``(3, 3)`` or ``(N, 3, 3)``: a matrix that is not
        orthogonal is replaced by its polar factor (the nearest rotation) first, as SciPy
        does (JAX does not); the quaternion by Shepperd's choice of the largest of the
        trace and the diagonal.

        Example:
            >>> import numpy as np
            >>> np.round(Rotation.from_matrix(np.eye(3)).as_quat(), 6).tolist()
            [0.0, 0.0, 0.0, 1.0]
        """
        m = _f(matrix)
        if fnp.ndim(m) not in (2, 3) or fnp.shape(m)[-2:] != (3, 3):
            raise ValueError(
                f"Rotation.from_matrix: expected shape (3, 3) or (N, 3, 3), got {fnp.shape(m)}"
            )
        if bool(fnp.any(fnp.linalg.det(m) <= 0)):
            raise ValueError(
                "Rotation.from_matrix: a matrix has a non-positive determinant (a left-handed "
                "or degenerate frame); pass rotation matrices"
            )
        gram = fnp.matmul(m, fnp.swapaxes(m, -1, -2))
        if not bool(fnp.all(fnp.abs(gram - numpy.eye(3)) <= 1e-12)):
            # SciPy's: the nearest orthogonal matrix (the polar factor U V^T) first; only
            # when needed (the SVD's derivative is singular at an orthogonal matrix)
            u, _, vt = fnp.linalg.svd(m, full_matrices=False)
            m = fnp.matmul(u, vt)
        trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
        decision = fnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
        choice = fnp.argmax(decision, axis=-1)
        candidates = []
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            q = [None] * 4
            q[i] = 1.0 - trace + 2.0 * m[..., i, i]
            q[j] = m[..., j, i] + m[..., i, j]
            q[k] = m[..., k, i] + m[..., i, k]
            q[3] = m[..., k, j] - m[..., j, k]
            candidates.append(fnp.stack(q, axis=-1))
        candidates.append(
            fnp.stack(
                [
                    m[..., 2, 1] - m[..., 1, 2],
                    m[..., 0, 2] - m[..., 2, 0],
                    m[..., 1, 0] - m[..., 0, 1],
                    1.0 + trace,
                ],
                axis=-1,
            )
        )
        q = candidates[3]
        for c in range(3):
            q = fnp.where((choice == c)[..., None], candidates[c], q)
        return cls(q)

    @classmethod
    def from_rotvec(cls, rotvec: Any, degrees: bool = False) -> Rotation:
        """From rotation vectors (axis times angle; degrees with ``degrees``).

        Example:
            >>> import numpy as np
            >>> np.round(Rotation.from_rotvec(np.array([np.pi, 0, 0])).as_quat(), 6).tolist()
            [1.0, 0.0, 0.0, 0.0]
        """
        v = _f(rotvec)
        if fnp.ndim(v) not in (1, 2) or fnp.shape(v)[-1] != 3:
            raise ValueError(
                f"Rotation.from_rotvec: expected shape (3,) or (N, 3), got {fnp.shape(v)}"
            )
        if degrees:
            v = v * (math.pi / 180.0)
        angle2 = fnp.sum(v * v, axis=-1, keepdims=True)
        small = angle2 <= 1e-6
        safe2 = fnp.where(small, 1.0, angle2)
        angle = fnp.sqrt(safe2)
        series = 0.5 - angle2 / 48.0 + angle2 * angle2 / 3840.0
        scale = fnp.where(small, series, fnp.sin(angle / 2.0) / angle)
        w = fnp.where(small, 1.0 - angle2 / 8.0 + angle2 * angle2 / 384.0, fnp.cos(angle / 2.0))
        return cls(fnp.concatenate([scale * v, w], axis=-1), normalize=False)

    @classmethod
    def from_mrp(cls, mrp: Any) -> Rotation:
        """From modified Rodrigues parameters ``axis * tan(angle / 4)``.

        Example:
            >>> import numpy as np
            >>> np.round(Rotation.from_mrp(np.array([0.0, 0.0, 1.0])).magnitude(), 6).item()
            3.141593
        """
        p = _f(mrp)
        if fnp.ndim(p) not in (1, 2) or fnp.shape(p)[-1] != 3:
            raise ValueError(
                f"Rotation.from_mrp: expected shape (3,) or (N, 3), got {fnp.shape(p)}"
            )
        s = fnp.sum(p * p, axis=-1, keepdims=True)
        return cls(fnp.concatenate([2.0 * p, 1.0 - s], axis=-1) / (1.0 + s), normalize=False)

    @classmethod
    def from_euler(cls, seq: str, angles: Any, degrees: bool = False) -> Rotation:
        """From Euler angles about the axes of ``seq`` (``'xyz'`` extrinsic, ``'XYZ'``
        intrinsic); ``angles`` ``(len(seq),)`` or ``(N, len(seq))`` (a scalar or
        ``(N,)`` for one axis).

        Example:
            >>> import numpy as np
            >>> r = Rotation.from_euler("XY", np.array([90.0, 90.0]), degrees=True)
            >>> np.round(r.apply(np.array([0.0, 0.0, 1.0])), 6).tolist()  # as SciPy's
            [1.0, -0.0, 0.0]
        """
        where = "Rotation.from_euler"
        axes, extrinsic = _axes(seq, where)
        a = _f(angles)
        n = len(axes)
        if n == 1 and (fnp.ndim(a) == 0 or (fnp.ndim(a) == 1 and fnp.shape(a)[0] != 1)):
            a = a[..., None]  # a scalar, or (N,) angles about the one axis
        if fnp.ndim(a) not in (1, 2) or fnp.shape(a)[-1] != n:
            raise ValueError(
                f"{where}: angles must have shape ({n},) or (N, {n}) for seq {seq!r}, got "
                f"{fnp.shape(angles)}"
            )
        if degrees:
            a = a * (math.pi / 180.0)
        q = None
        for idx, axis in enumerate(axes):
            half = a[..., idx : idx + 1] / 2.0
            parts = [fnp.zeros_like(half)] * 3 + [fnp.cos(half)]
            parts[axis] = fnp.sin(half)
            e = fnp.concatenate(parts, axis=-1)
            q = e if q is None else (_compose(e, q) if extrinsic else _compose(q, e))
        return cls(q, normalize=False)

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Rotation:
        """The identity rotation (``num`` of them, stacked).

        Example:
            >>> len(Rotation.identity(3))
            3
        """
        q = numpy.zeros((4,) if num is None else (int(num), 4), dtype=dtype)
        q[..., 3] = 1.0
        return cls(q, normalize=False)

    @classmethod
    def random(cls, num: Any = None, random_state: Any = None, *, rng: Any = None) -> Rotation:
        """Uniformly random rotations: SciPy's form ``random(num=None, rng=None)`` (a
        seed, ``Generator`` or ``RandomState``; SciPy's draws for the same seed), or
        JAX's ``random(key, num=None)`` with an ``ft.random`` key first.

        Example:
            >>> len(Rotation.random(4, rng=0))
            4
        """
        if is_key(num):
            shape = (4,) if random_state is None else (int(random_state), 4)
            return cls(random_keys.normal(num, shape))
        seed = rng if rng is not None else random_state
        gen = (
            seed
            if isinstance(seed, (numpy.random.Generator, numpy.random.RandomState))
            else numpy.random.default_rng(seed)
        )
        q = gen.normal(size=(4,) if num is None else (int(num), 4))
        return cls(q)

    @classmethod
    def concatenate(cls, rotations: Sequence[Rotation]) -> Rotation:
        """One stack of the rotations of ``rotations``.

        Example:
            >>> len(Rotation.concatenate([Rotation.identity(), Rotation.identity(2)]))
            3
        """
        quats = [fnp.reshape(r._quat, (-1, 4)) for r in rotations]
        return cls(fnp.concatenate(quats, axis=0), normalize=False)

    # -- reading ------------------------------------------------------------------------

    @property
    def quat(self) -> Any:
        """The quaternions, scalar last (JAX's field).

        Example:
            >>> Rotation.identity().quat.tolist()
            [0.0, 0.0, 0.0, 1.0]
        """
        return self._quat

    @property
    def single(self) -> bool:
        """Whether this is one rotation (not a stack).

        Example:
            >>> Rotation.identity().single, Rotation.identity(1).single
            (True, False)
        """
        return fnp.ndim(self._quat) == 1

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len")
        return fnp.shape(self._quat)[0]

    def __getitem__(self, index: Any) -> Rotation:
        if self.single:
            raise TypeError("Single rotation is not subscriptable")
        return Rotation(self._quat[index], normalize=False)

    def __repr__(self) -> str:
        return f"Rotation.from_quat({self._quat!r})"

    def as_quat(self, canonical: bool = False, *, scalar_first: bool = False) -> Any:
        """The quaternions ``(x, y, z, w)`` (``w >= 0`` with ``canonical``; ``(w, x, y, z)``
        with ``scalar_first``).

        Example:
            >>> import numpy as np
            >>> Rotation.from_quat(np.array([0.0, 0.0, 0.0, -1.0])).as_quat(True).tolist()
            [-0.0, -0.0, -0.0, 1.0]
        """
        q = self._quat
        if canonical:
            w = q[..., 3:]
            flip = (w < 0) | ((w == 0) & _first_nonzero_negative(q[..., :3]))
            q = fnp.where(flip, -q, q)
        if scalar_first:
            q = fnp.concatenate([q[..., 3:], q[..., :3]], axis=-1)
        return q

    def as_matrix(self) -> Any:
        """The rotation matrices ``(3, 3)`` or ``(N, 3, 3)``.

        Example:
            >>> Rotation.identity().as_matrix().tolist()
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        """
        x, y, z, w = (self._quat[..., i] for i in range(4))
        rows = [
            [w * w + x * x - y * y - z * z, 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), w * w - x * x + y * y - z * z, 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), w * w - x * x - y * y + z * z],
        ]
        return fnp.stack([fnp.stack(r, axis=-1) for r in rows], axis=-2)

    def _canonical_w(self) -> Any:
        q = self._quat
        return fnp.where(q[..., 3:] < 0, -q, q)

    def as_rotvec(self, degrees: bool = False) -> Any:
        """The rotation vectors (axis times angle in ``[0, pi]``).

        Example:
            >>> import numpy as np
            >>> np.round(Rotation.from_euler("x", 1.0).as_rotvec(), 6).tolist()
            [1.0, 0.0, 0.0]
        """
        q = self._canonical_w()
        v, w = q[..., :3], q[..., 3:]
        vn2 = fnp.sum(v * v, axis=-1, keepdims=True)
        vn = fnp.sqrt(fnp.where(vn2 > 0, vn2, 1.0)) * (vn2 > 0)
        angle = 2.0 * fnp.arctan2(vn, w)
        small = angle <= 1e-3
        a2 = angle * angle
        series = 2.0 + a2 / 12.0 + 7.0 * a2 * a2 / 2880.0
        safe = fnp.where(small, 1.0, angle)
        scale = fnp.where(small, series, safe / fnp.sin(safe / 2.0))
        out = scale * v
        return out * (180.0 / math.pi) if degrees else out

    def as_mrp(self) -> Any:
        """The modified Rodrigues parameters (of the rotation angle in ``[0, pi]``).

        Example:
            >>> import numpy as np
            >>> np.round(Rotation.from_rotvec(np.array([0.0, 0.0, np.pi])).as_mrp(), 6).tolist()
            [0.0, 0.0, 1.0]
        """
        q = self._canonical_w()
        return q[..., :3] / (1.0 + q[..., 3:])

    def as_euler(self, seq: str, degrees: bool = False) -> Any:
        """The Euler angles about the axes of ``seq`` (three axes): the first and third
        in ``[-pi, pi]``, the second in ``[0, pi]`` (repeated axes) or ``[-pi/2, pi/2]``;
        at gimbal lock the third is set to 0 with a warning, as SciPy does.

        Example:
            >>> import numpy as np
            >>> r = Rotation.from_euler("zyx", np.array([0.3, -0.2, 0.1]))
            >>> np.round(r.as_euler("zyx"), 6).tolist()
            [0.3, -0.2, 0.1]
        """
        where = "Rotation.as_euler"
        axes, extrinsic = _axes(seq, where)
        if len(axes) != 3:
            raise ValueError(f"{where}: seq must have 3 axes, got {seq!r}")
        first, third = (0, 2) if extrinsic else (2, 0)
        i, j, k = axes if extrinsic else axes[::-1]
        symmetric = i == k
        if symmetric:
            k = 3 - i - j
        sign = float((i - j) * (j - k) * (k - i) // 2)
        q = self._quat
        if symmetric:
            a, b, c, d = q[..., 3], q[..., i], q[..., j], q[..., k] * sign
        else:
            a, b = q[..., 3] - q[..., j], q[..., i] + q[..., k] * sign
            c, d = q[..., j] + q[..., 3], q[..., k] * sign - q[..., i]
        middle = 2.0 * fnp.arctan2(fnp.hypot(c, d), fnp.hypot(a, b))
        eps = 1e-7
        at_zero = fnp.abs(middle) <= eps
        at_pi = fnp.abs(middle - math.pi) <= eps
        half_sum, half_diff = fnp.arctan2(b, a), fnp.arctan2(d, c)
        lock = at_zero | at_pi
        out = [None, middle, None]
        degenerate = fnp.where(
            at_zero, 2.0 * half_sum, 2.0 * half_diff * (-1.0 if extrinsic else 1.0)
        )
        out[first] = fnp.where(lock, degenerate, half_sum - half_diff)
        out[third] = fnp.where(lock, 0.0, half_sum + half_diff)
        if not symmetric:
            out[third] = out[third] * sign
            out[1] = out[1] - math.pi / 2.0
        if bool(fnp.any(lock)):
            warnings.warn(
                "Rotation.as_euler: gimbal lock detected; the third angle is set to zero",
                UserWarning,
                stacklevel=2,
            )
        angles = fnp.stack(out, axis=-1)
        angles = (angles + math.pi) % (2.0 * math.pi) - math.pi
        return angles * (180.0 / math.pi) if degrees else angles

    def magnitude(self) -> Any:
        """The rotation angles, in ``[0, pi]``.

        Example:
            >>> import numpy as np
            >>> round(float(Rotation.from_euler("y", 2.0).magnitude()), 6)
            2.0
        """
        q = self._quat
        v = q[..., :3]
        vn2 = fnp.sum(v * v, axis=-1)
        vn = fnp.sqrt(fnp.where(vn2 > 0, vn2, 1.0)) * (vn2 > 0)
        return 2.0 * fnp.arctan2(vn, fnp.abs(q[..., 3]))

    # -- using --------------------------------------------------------------------------

    def apply(self, vectors: Any, inverse: bool = False) -> Any:
        """The rotated vectors ``(3,)`` or ``(N, 3)`` (by the inverse with ``inverse``);
        one rotation and many vectors, or many and one, broadcast.

        Example:
            >>> import numpy as np
            >>> r = Rotation.from_euler("z", np.pi / 2)
            >>> np.round(r.apply(np.array([1.0, 0.0, 0.0]), inverse=True), 6).tolist()
            [0.0, -1.0, 0.0]
        """
        v = _f(vectors)
        if fnp.ndim(v) not in (1, 2) or fnp.shape(v)[-1] != 3:
            raise ValueError(f"Rotation.apply: vectors must be (3,) or (N, 3), got {fnp.shape(v)}")
        m = self.as_matrix()
        if inverse:
            m = fnp.swapaxes(m, -1, -2)
        return fnp.matmul(m, v[..., None])[..., 0]

    def __mul__(self, other: Rotation) -> Rotation:
        """``self * other``: ``other`` then ``self``."""
        if not isinstance(other, Rotation):
            return NotImplemented
        return Rotation(_compose(self._quat, other._quat), normalize=False)

    def __pow__(self, n: float, modulus: Any = None) -> Rotation:
        """The rotation about the same axis by ``n`` times the angle."""
        if modulus is not None:
            raise NotImplementedError("modular power is not supported for rotations")
        return Rotation.from_rotvec(n * self.as_rotvec())

    def inv(self) -> Rotation:
        """The inverse rotations.

        Example:
            >>> import numpy as np
            >>> r = Rotation.from_euler("x", 0.5)
            >>> np.round((r * r.inv()).magnitude(), 6).item()
            0.0
        """
        return Rotation(self._quat * numpy.array([-1.0, -1.0, -1.0, 1.0]), normalize=False)

    def mean(self, weights: Any = None) -> Rotation:
        """The rotation nearest (in the chordal sense) to the weighted stack: the leading
        eigenvector of ``sum w q q^T``.

        Example:
            >>> import numpy as np
            >>> r = Rotation.from_euler("z", np.array([0.2, 0.4]))
            >>> np.round(r.mean().magnitude(), 6).item()
            0.3
        """
        q = fnp.reshape(self._quat, (-1, 4))
        w = fnp.ones(fnp.shape(q)[:1]) if weights is None else _f(weights)
        if fnp.shape(w) != fnp.shape(q)[:1]:
            raise ValueError(
                f"Rotation.mean: weights must have one entry per rotation ({fnp.shape(q)[0]}), "
                f"got shape {fnp.shape(w)}"
            )
        k = fnp.matmul(fnp.transpose(w[:, None] * q), q)
        _, vectors = fnp.linalg.eigh(k)
        return Rotation(vectors[:, -1], normalize=False)


def _first_nonzero_negative(v: Any) -> Any:
    """Whether the first nonzero of ``v`` along the last axis is negative (``canonical``
    for ``w == 0``)."""
    x, y, z = v[..., 0:1], v[..., 1:2], v[..., 2:3]
    return fnp.where(x != 0, x < 0, fnp.where(y != 0, y < 0, z < 0))


register_pytree_node(Rotation, lambda r: ((r._quat,), None), lambda _, c: _rebuild(c[0]))


def _rebuild(quat: Any) -> Rotation:
    r = object.__new__(Rotation)
    r._quat = quat
    return r


class Slerp:
    """Spherical linear interpolation of ``rotations`` (a stack) at increasing ``times``
    (``scipy.spatial.transform.Slerp``): call it with times in their range.

    Example:
        >>> import numpy as np
        >>> s = Slerp(np.array([0.0, 1.0]), Rotation.from_euler("z", np.array([0.0, 1.0])))
        >>> np.round(s(np.array([0.25])).as_euler("zyx")[:, 0], 6).tolist()
        [0.25]
    """

    def __init__(self, times: Any, rotations: Rotation) -> None:
        if not isinstance(rotations, Rotation) or rotations.single or len(rotations) < 2:
            raise ValueError("Slerp: rotations must be a stack of at least 2 rotations")
        times = numpy.asarray(times, dtype=float)
        if times.ndim != 1 or times.shape[0] != len(rotations):
            raise ValueError(
                f"Slerp: times must be 1-d with one entry per rotation ({len(rotations)}), "
                f"got shape {times.shape}"
            )
        self.timedelta = numpy.diff(times)
        if numpy.any(self.timedelta <= 0):
            raise ValueError("Slerp: times must be in strictly increasing order")
        self.times = times
        self.rotations = rotations
        self.rotvecs = (rotations[:-1].inv() * rotations[1:]).as_rotvec()

    @classmethod
    def init(cls, times: Any, rotations: Rotation) -> Slerp:
        """``Slerp(times, rotations)`` (JAX's constructor's name).

        Example:
            >>> import numpy as np
            >>> len(Slerp.init(np.array([0.0, 1.0]), Rotation.identity(2)).times)
            2
        """
        return cls(times, rotations)

    def __call__(self, times: Any) -> Rotation:
        t = _f(times)
        scalar = fnp.ndim(t) == 0
        t = fnp.reshape(t, (-1,))
        values = numpy.asarray(fnp.peek(t))  # (which interval: read from the values)
        if numpy.any(values < self.times[0]) or numpy.any(values > self.times[-1]):
            raise ValueError(
                "Slerp: interpolation times must be within the range of the given times"
            )
        idx = numpy.clip(numpy.searchsorted(self.times, values) - 1, 0, len(self.times) - 2)
        alpha = (t - self.times[idx]) / self.timedelta[idx]
        step = Rotation.from_rotvec(self.rotvecs[idx] * alpha[:, None])
        out = self.rotations[idx] * step
        return out[0] if scalar else out
