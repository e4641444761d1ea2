"""Members a class still has through its bases: a method moved into a mixin the class now
inherits (`Configurator` gaining `ActionConfiguratorMixin`) is no member a reader lost.

    Bases(index, work, depth).members(shape) -> the public members of the class's bases
                                                 defined in the project, as the work tree
                                                 has them (bases of bases to `depth`)

    assigned(text, shape)                    -> the instance attributes its methods assign
                                                 (a property made a plain attribute)

A base defined outside the project (a dependency's class) is not read: what it provides is
not known here, so nothing is taken as inherited from it.
"""

from __future__ import annotations

import re

from helix.staledocs.history import WorkTree
from indexers.api import IndexReader
from indexers.def_shapes import DefShape
from indexers.symbols import CLASS_LIKE

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `self.renderer = ...` / `self.renderer: Renderer = ...` in a method: an instance attribute
_ASSIGNED = re.compile(r"\bself\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]+)?=(?!=)")
LOOKUPS = 5  # definitions of one base name read (a name defined in several files)


def base_names(shape: DefShape) -> list[str]:
    """The names in a class header after its own name (`class C ( A , m . B )` -> A, m, B):
    the bases, their modules and type arguments; only those that are classes are read."""
    own = shape.qualname.rsplit(".", 1)[-1]
    _, _, after = shape.signature.partition(f" {own} ")
    return list(dict.fromkeys(_NAME.findall(after)))


def assigned(text: str | None, shape: DefShape) -> frozenset[str]:
    """The instance attributes a class's methods assign (`self.renderer = renderer`): a
    property made a plain attribute is still a member a reader can use."""
    if text is None or shape.kind not in CLASS_LIKE:
        return frozenset()
    body = "\n".join(text.splitlines()[shape.start_line - 1:shape.end_line])
    return frozenset(_ASSIGNED.findall(body))


class Bases:
    def __init__(self, index: IndexReader, work: WorkTree, depth: int) -> None:
        self.index, self.work, self.depth = index, work, depth
        self._members: dict[str, frozenset[str]] = {}

    def members(self, shape: DefShape) -> frozenset[str]:
        """The public members `shape` (a class) gets from its bases in the project."""
        return self._of(shape, self.depth, frozenset({shape.qualname}))

    def _of(self, shape: DefShape, depth: int, seen: frozenset[str]) -> frozenset[str]:
        if depth <= 0 or shape.kind not in CLASS_LIKE:
            return frozenset()
        out: set[str] = set()
        for name in base_names(shape):
            out |= self._base(name, depth, seen)
        return frozenset(out)

    def _base(self, name: str, depth: int, seen: frozenset[str]) -> frozenset[str]:
        key = f"{name}/{depth}"
        if key not in self._members:
            found: set[str] = set()
            for d in self.index.find_definitions(name, limit=LOOKUPS):
                if d.kind not in CLASS_LIKE or d.name != name or d.qualname in seen:
                    continue
                shape = self.work.shapes(d.path).get(d.qualname)
                if shape is not None:
                    found |= set(shape.members) | self._of(shape, depth - 1,
                                                          seen | {d.qualname})
            self._members[key] = frozenset(found)
        return self._members[key]
