"""One hash function for all of Helix.

Every id, content hash and item hash comes from `canonical_json` + `digest`, so the same
inputs give the same hashes on any machine and in any process. Digests are tagged with their
algorithm (`sha256:<hex>`) so a future change of algorithm can never be confused with a value.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from typing import Any

ALGORITHM = "sha256"


def _is_model(obj: Any) -> bool:
    """A pydantic model (pydantic is not imported for this: a process that has not imported
    it holds no model; the model helper's early start hashes before anything imports it)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(obj, pydantic.BaseModel)


def _default(obj: Any) -> Any:
    if _is_model(obj):
        return obj.model_dump(mode="json")
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"not canonically serialisable: {type(obj).__name__}")


def canonical_json(obj: Any, *, indent: int | None = None) -> str:
    """Sorted keys, compact separators, UTF-8 kept as is; pydantic models dumped in JSON mode.
    `indent`: the same document laid out one value a line for people to read (a result file):
    the same keys and values, and the same bytes for the same object every time."""
    if _is_model(obj):
        obj = obj.model_dump(mode="json")
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":") if indent is None else (",", ": "),
        indent=indent, ensure_ascii=False, default=_default, allow_nan=False,
    )


def digest(data: bytes | str) -> str:
    """Tagged digest of raw bytes (or UTF-8 text): `sha256:<64 hex>`."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return f"{ALGORITHM}:{hashlib.sha256(data).hexdigest()}"


def digest_parts(parts: Iterable[bytes]) -> str:
    """`digest` of the concatenation of `parts` (never joined in memory)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return f"{ALGORITHM}:{h.hexdigest()}"


def digest_file(path: str | os.PathLike[str], block: int = 1 << 20) -> str:
    """`digest` of a file's bytes, read in blocks (a large file is never held whole)."""
    with open(path, "rb") as handle:
        return digest_parts(iter(lambda: handle.read(block), b""))


def hash_obj(obj: Any) -> str:
    """Digest of an object's canonical JSON."""
    return digest(canonical_json(obj))


def short_id(*parts: Any, length: int = 16) -> str:
    """A short stable id (hex, no tag) for use inside node/chunk ids."""
    return hash_obj(list(parts)).split(":", 1)[1][:length]
