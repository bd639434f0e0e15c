"""Read a ``.safetensors`` file into numpy arrays without torch or the safetensors package.

The format is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian data."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import numpy.typing as npt

from anchormem.errors import EmbeddingError

_DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}
_MAX_HEADER = 100 * 1024 * 1024


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """Every tensor of ``path`` as a read-only numpy array (the file is memory-mapped)."""
    try:
        with path.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            if size > _MAX_HEADER:
                raise EmbeddingError(f"{path}: safetensors header of {size} bytes is implausible")
            header = json.loads(f.read(size))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    except (OSError, ValueError, struct.error) as exc:
        raise EmbeddingError(f"cannot read {path}: {exc}") from exc
    tensors: dict[str, npt.NDArray[np.generic]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<")
            start, end = (int(x) for x in spec["data_offsets"])
            shape = tuple(int(d) for d in spec["shape"])
            array = np.frombuffer(data[start:end], dtype=dtype).reshape(shape)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"{path}: cannot decode tensor {name!r} ({spec!r}): {exc}") from exc
        tensors[name] = array
    return tensors
