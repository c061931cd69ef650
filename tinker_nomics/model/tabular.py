"""An Estimate's nested result (`Estimate.tree()`) as strict JSON (`json_tree`) or as one table (`frame`).

JSON has no NaN or Infinity: a number that is not computed becomes null (the Estimate's notes say why).
The table has one row per scenario and a flat dotted column per key (`tinker.total_usd`); it is built from
the arrays, column by column, without a Python object per scenario.
"""
from __future__ import annotations

import numpy as np

from .. import fmt

SKIPPED = ("notes",)   # lists of sentences: the frame keeps them in `frame.attrs["notes"]`


def json_tree(value):
    """A nested dict of arrays and scalars as JSON-ready Python values (lists, floats, None for NaN)."""
    if isinstance(value, dict):
        return {k: json_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_tree(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return fmt.json_value(value.item())
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return np.where(np.isfinite(value), value, None).tolist()
        return value.tolist()
    return fmt.json_value(value)


def flatten(tree: dict, prefix: str = "") -> dict:
    """{"tinker": {"total_usd": x}} -> {"tinker.total_usd": x}; lists of notes are left out."""
    out = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if key in SKIPPED:
            continue
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        elif value is not None:
            out[name] = value
    return out


def frame(tree: dict, notes=()):
    """One row per scenario (the broadcast shape, flattened in C order), one column per dotted key."""
    import pandas as pd

    columns = flatten(tree)
    shape = np.broadcast_shapes(*(np.shape(v) for v in columns.values() if isinstance(v, np.ndarray)))
    n = int(np.prod(shape)) if shape else 1
    data = {}
    for name, value in columns.items():
        if isinstance(value, str):    # one text for every row: a categorical column costs one byte a row
            data[name] = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value])
            continue
        array = np.asarray(value)
        if array.dtype.kind in "US":
            data[name] = _categorical(np.broadcast_to(array, shape).reshape(n))
        else:
            data[name] = np.broadcast_to(array, shape).reshape(n)
    out = pd.DataFrame(data, copy=False)
    out.attrs["notes"] = list(notes)
    return out


def _categorical(values: np.ndarray, most: int = 16):
    """A text column with few distinct values (`cheaper`: tinker or self_hosted) as a categorical, found by one
    vectorized comparison per value instead of hashing every row; many distinct values go to pandas."""
    import pandas as pd

    codes = np.full(len(values), -1, dtype=np.int8)
    categories = []
    while len(categories) < most:
        left = np.flatnonzero(codes < 0)
        if not len(left):
            return pd.Categorical.from_codes(codes, categories=categories)
        value = values[left[0]]
        codes[values == value] = len(categories)
        categories.append(str(value))
    return pd.Categorical(values)
