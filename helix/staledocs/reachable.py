"""The errors a function raises through what it calls: a `raise` moved into a helper the
function now calls (`fail_after` delegating to `fail_at`) is no error it stopped raising.

    Reach(index, work, depth).raises(shape, path) -> the bare names of the errors `shape`
                                                    raises itself or through the project's
                                                    functions it calls, to `depth` calls

A callee is looked for in the function's own file first (a method of its class, then a
function of the module), then in the project when exactly one definition has its name (a
name several definitions share proves nothing, as in the alignment). The work tree's
definitions are read: the code as it is.
"""

from __future__ import annotations

from helix.staledocs.history import WorkTree
from helix.staledocs.sections import test_code
from indexers.api import IndexReader
from indexers.def_shapes import DefShape

LOOKUPS = 2  # definitions of a callee's name read outside its file (one: it is bound)


def bare(name: str) -> str:
    """`errors.TimeoutError` -> `TimeoutError`."""
    return name.rsplit(".", 1)[-1]


class Reach:
    def __init__(self, index: IndexReader, work: WorkTree, depth: int) -> None:
        self.index, self.work, self.depth = index, work, depth
        self._raises: dict[tuple[str, str, int], frozenset[str]] = {}

    def raises(self, shape: DefShape, path: str) -> frozenset[str]:
        return self._of(shape, path, self.depth, frozenset({(path, shape.qualname)}))

    def _of(self, shape: DefShape, path: str, depth: int,
            seen: frozenset[tuple[str, str]]) -> frozenset[str]:
        key = (path, shape.qualname, depth)
        if key in self._raises:
            return self._raises[key]
        out = {bare(r) for r in shape.raises}
        if depth > 0:
            for name in shape.calls:
                found = self._callee(name, path, shape.qualname)
                if found is not None and (found[0], found[1].qualname) not in seen:
                    out |= self._of(found[1], found[0], depth - 1,
                                    seen | {(found[0], found[1].qualname)})
        self._raises[key] = frozenset(out)
        return self._raises[key]

    def _callee(self, name: str, path: str, caller: str) -> tuple[str, DefShape] | None:
        here = self.work.shapes(path)
        owner = caller.rsplit(".", 1)[0] if "." in caller else ""
        for qualname in (*((f"{owner}.{name}",) if owner else ()), name):
            if qualname in here:
                return path, here[qualname]
        defs = [d for d in self.index.find_definitions(name, limit=LOOKUPS) if d.name == name]
        if len(defs) != 1 or test_code(defs[0].path):
            return None
        shape = self.work.shapes(defs[0].path).get(defs[0].qualname)
        return (defs[0].path, shape) if shape is not None else None
