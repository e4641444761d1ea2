"""A value derived from one index revision, built on first use and kept in memory for the last
few revisions (a server's threads share it; two that build it at once build the same value)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from indexers.api import IndexReader

T = TypeVar("T")
KEPT = 4  # revisions kept: a server answering about a few repositories, one refresh behind


class PerRevision(Generic[T]):
    """`cache(index)`: `build(index)` once per `index.index_rev`; the oldest revision is
    dropped past `kept`."""

    def __init__(self, build: Callable[[IndexReader], T], kept: int = KEPT) -> None:
        self.build, self.kept = build, kept
        self.values: dict[str, T] = {}
        self._lock = threading.Lock()

    def __call__(self, index: IndexReader) -> T:
        value = self.values.get(index.index_rev)
        if value is None:
            value = self.build(index)
            with self._lock:
                while len(self.values) >= self.kept:
                    self.values.pop(next(iter(self.values)))
                self.values[index.index_rev] = value
        return value
