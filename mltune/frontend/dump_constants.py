"""Constants a dumped dispatch benchmark names but does not hold.

A dispatch that captures a constant tensor (a convolution's folded bias or batch-norm scale, in models exported
from PyTorch) reads it as `dense_resource<KEY>`, and IREE 3.13 dumps the benchmark without the resource blobs: the
dump parses but does not compile ("resource does not exist" when it is translated to LLVM IR). The profile only
needs the dispatch's time, which does not depend on such values (dense loads and arithmetic), so the missing blobs
are restored as zeros of the right size.
"""

from __future__ import annotations

import re
from math import prod
from pathlib import Path

_RESOURCE_USE = re.compile(r"dense_resource<([^>\s]+)>\s*:\s*tensor<([^>]*)>")
_ELEMENT_BITS = re.compile(r"^[a-z]+?(\d+)")
_BLOB_ALIGNMENT = 16  # the blob's leading 32-bit word: its alignment in bytes


def _element_bytes(element: str) -> int:
    """Bytes of one stored element (`f32` 4, `bf16` 2, `i1` and the f8 types 1)."""
    bits = _ELEMENT_BITS.match(element)
    if bits is None:
        raise ValueError(f"unknown element type {element}")
    return max(1, int(bits.group(1)) // 8)


def _zero_blob(tensor_type: str) -> str:
    """The hex blob of a zero tensor of `tensor_type` (`16x3xf32`, or `f32` for a scalar tensor)."""
    *dims, element = tensor_type.split("x")
    size = prod(int(d) for d in dims) * _element_bytes(element)
    return "0x" + _BLOB_ALIGNMENT.to_bytes(4, "little").hex() + "00" * size


def missing_resources(text: str) -> dict[str, str]:
    """The resources the module uses without holding them, each with its tensor type."""
    if "dialect_resources" in text:
        return {}
    return dict(_RESOURCE_USE.findall(text))


def restore_dropped_constants(bench: Path, out: Path) -> Path:
    """`bench`, or a copy at `out` holding a zero blob for every resource it names and lacks."""
    text = bench.read_text()
    missing = missing_resources(text)
    if not missing:
        return bench
    blobs = ",\n".join(f'      {key}: "{_zero_blob(tensor_type)}"' for key, tensor_type in missing.items())
    out.write_text(f"{text}\n{{-#\n  dialect_resources: {{\n    builtin: {{\n{blobs}\n    }}\n  }}\n#-}}\n")
    return out
