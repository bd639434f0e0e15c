"""Just enough of ONNX's protobuf encoding to write the MiniLM graph, so the core install needs no
``onnx`` package (31 MB with protobuf and ml_dtypes) for a graph it builds once per user.

Messages are written field by field in protobuf's wire format, with the field numbers of ``onnx.proto``
(proto2: repeated numbers are written unpacked, which every parser reads). Only what
:mod:`anchormem.embed.bert_graph` uses is here: nodes with int, float and ints attributes, float32 and
int64 initializers, tensor inputs and outputs with named or fixed dimensions, one opset.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FLOAT = 1  # TensorProto.DataType
INT64 = 7
_DATA_TYPES = {np.dtype(np.float32): FLOAT, np.dtype(np.int64): INT64}
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7  # AttributeProto.AttributeType


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # int64 as protobuf writes it: two's complement, ten bytes when negative
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _bytes(field: int, value: bytes) -> bytes:
    return _key(field, 2) + _varint(len(value)) + value


def _str(field: int, value: str) -> bytes:
    return _bytes(field, value.encode("utf-8"))


def _float(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", value)


def attribute(name: str, value: int | float | Sequence[int]) -> bytes:
    """An AttributeProto: an int, a float or a list of ints."""
    body = _str(1, name)
    if isinstance(value, bool | int):
        body += _int(3, int(value)) + _int(20, _ATTR_INT)
    elif isinstance(value, float):
        body += _float(2, value) + _int(20, _ATTR_FLOAT)
    else:
        body += b"".join(_int(8, int(v)) for v in value) + _int(20, _ATTR_INTS)
    return body


def node(
    op_type: str, inputs: Sequence[str], outputs: Sequence[str], **attributes: int | float | Sequence[int]
) -> bytes:
    """A NodeProto of the default domain."""
    body = b"".join(_str(1, i) for i in inputs) + b"".join(_str(2, o) for o in outputs)
    body += _str(4, op_type)
    body += b"".join(_bytes(5, attribute(k, v)) for k, v in sorted(attributes.items()))
    return body


def tensor(name: str, array: npt.NDArray[np.generic]) -> bytes:
    """A TensorProto holding ``array`` (float32 or int64) as little-endian raw data."""
    kind = _DATA_TYPES.get(array.dtype)
    if kind is None:
        raise TypeError(f"no ONNX tensor type for {array.dtype}")
    data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return b"".join(_int(1, d) for d in array.shape) + _int(2, kind) + _str(8, name) + _bytes(9, data)


def value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> bytes:
    """A ValueInfoProto of a tensor; a dimension is a size or a name (``"batch"``)."""
    shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _str(2, d)) for d in dims)
    tensor_type = _int(1, elem_type) + _bytes(2, shape)
    return _str(1, name) + _bytes(2, _bytes(1, tensor_type))


def graph(
    nodes: Sequence[bytes], name: str, inputs: Sequence[bytes], outputs: Sequence[bytes], initializers: Sequence[bytes]
) -> bytes:
    """A GraphProto from encoded nodes, inputs, outputs and initializers."""
    body = b"".join(_bytes(1, n) for n in nodes) + _str(2, name)
    body += b"".join(_bytes(5, t) for t in initializers)
    body += b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs)
    return body


def model(graph_proto: bytes, *, opset: int, ir_version: int, producer: str) -> bytes:
    """A serialised ModelProto of one graph and one opset of the default domain."""
    opset_id = _str(1, "") + _int(2, opset)
    return _int(1, ir_version) + _str(2, producer) + _bytes(7, graph_proto) + _bytes(8, opset_id)
