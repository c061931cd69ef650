"""The model's large arrays are backed by ordinary memory pages while it computes them.

On Linux, NumPy advises the kernel to back every array of 4 MB or more with transparent huge pages (2 MB), when
the system's policy is `madvise` ("madvise hugepage on Linux", https://numpy.org/doc/stable/reference/global_state.html;
the switch came with numpy/numpy#15769). An estimate over 10^6 scenarios writes a few hundred MB of fresh arrays,
and on a virtual machine that hands freed memory back to its host, backing fresh huge pages cost from nothing to
1.5 s from one process to the next (`make bench`, the first call: 0.45–2.4 s on the project's 2-core machine), for
a steady gain of about 0.05 s. `ordinary_pages()` turns the advice off while a call of the model runs and restores
what the caller had: a user's own arrays are left as NumPy would make them. Nested and concurrent calls keep it off
until the last one leaves.
"""
from __future__ import annotations

import contextlib
import threading

try:                                    # NumPy >= 2
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:                     # NumPy 1.x
    try:
        from numpy.core.multiarray import _set_madvise_hugepage
    except ImportError:                 # a build without the switch: nothing to turn off
        _set_madvise_hugepage = None

_lock = threading.Lock()
_depth = 0
_caller_setting = True


@contextlib.contextmanager
def ordinary_pages():
    """Inside the block (or the decorated function) NumPy does not ask for huge pages; the caller's setting after."""
    global _depth, _caller_setting
    if _set_madvise_hugepage is None:
        yield
        return
    with _lock:
        if _depth == 0:
            _caller_setting = bool(_set_madvise_hugepage(False))
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _set_madvise_hugepage(_caller_setting)
