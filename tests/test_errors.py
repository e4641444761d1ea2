"""One errors module: every HelixError subclass is defined in helix.core.errors, and the tree
drawn in its docstring is the classes' own tree (names, parents, exit codes)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import controller
import evals
import helix
import indexers
from helix.core import errors

_ROW = re.compile(r"^(?P<indent>[ │├└─]*)(?P<name>[A-Z]\w+)(?: \((?P<code>\d)\))?")


def _drawn() -> dict[str, tuple[str | None, int | None]]:
    """name -> (parent, exit code if drawn) from the docstring's tree."""
    out: dict[str, tuple[str | None, int | None]] = {}
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        match = _ROW.match(line.removeprefix("    "))
        if not match or not match.group("name").endswith(("Error", "Error_")):
            continue
        depth = len(match.group("indent"))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        code = match.group("code")
        out[match.group("name")] = (stack[-1][1] if stack else None,
                                    int(code) if code else None)
        stack.append((depth, match.group("name")))
    return out


def _all_subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _all_subclasses(sub)
    return found


def test_the_drawn_tree_is_the_class_tree() -> None:
    drawn = _drawn()
    classes = {c.__name__: c for c in [errors.HelixError, *_all_subclasses(errors.HelixError)]
               if c.__module__ == errors.__name__}
    assert set(drawn) == set(classes)
    for name, (parent, code) in drawn.items():
        cls = classes[name]
        assert (cls.__bases__[0].__name__ if parent else None) == (parent if parent else None)
        if code is not None:
            assert cls.exit_code == code, name


def test_no_helix_error_is_defined_elsewhere() -> None:
    for package in (helix, indexers, controller, evals):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if module.name.endswith("__main__"):
                continue
            importlib.import_module(module.name)
    outside = sorted(f"{c.__module__}.{c.__name__}" for c in _all_subclasses(errors.HelixError)
                     if c.__module__ != errors.__name__ and not c.__module__.startswith("tests"))
    assert outside == []
