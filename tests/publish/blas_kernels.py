"""Which OpenBLAS kernels ``OPENBLAS_CORETYPE`` loads on this CPU, and how numpy is made to run
the loops of its oldest CPU.

The determinism and build tests execute chapters under other kernel families than this CPU's
own: a family that loads the same kernels as another, or as this CPU picks itself, adds nothing.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

_PROBE = "import numpy as np; a = np.ones((64, 64)); print(float((a @ a)[0, 0]))"


@functools.lru_cache(maxsize=None)
def kernel_of(family: str | None) -> str | None:
    """The OpenBLAS core whose kernels ``OPENBLAS_CORETYPE=family`` loads on this CPU (None: the
    one it picks itself), or None when this CPU cannot run them (the probe dies of an illegal
    instruction)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update({"OPENBLAS_VERBOSE": "2", **({"OPENBLAS_CORETYPE": family} if family else {})})
    proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None
    cores = [line.split(":", 1)[1].strip() for line in (proc.stdout + proc.stderr).splitlines()
             if line.startswith("Core:")]
    return cores[0] if cores else family


def numpy_baseline() -> dict[str, str]:
    """The environment that makes numpy run its baseline loops (x86-64-v2 for the locked numpy),
    as on the oldest CPU it supports: ``NPY_DISABLE_CPU_FEATURES`` naming every target numpy
    dispatches to at run time that this CPU has. Empty where this CPU has none of them.

    numpy picks its element-wise loops (exp, log, log1p, …) by CPU as OpenBLAS picks its kernels,
    and its AVX-512 ones differ from the others in the last bits (seen: ``share_time_sufficient_servers``).
    """
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    targets = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(targets)} if targets else {}
