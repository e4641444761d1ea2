"""Built indexes kept for the test session: a module that indexes the same repository under the
same configuration test after test (`pytestmark = pytest.mark.usefixtures("cached_builds")`)
builds it once; every later build from nothing of that repository's content is a copy of that
build's index directory, and returns that build's report (naming the root and the directory
asked for). Nothing in a generation ties it to its root's path (the walk's stat cache names
its root and starts again elsewhere): a copy checked against another root with the same files
is current (tests/test_index_copy.py), the index a build there would write.

Served from the cache only what a build from nothing under the same inputs gives: no current
generation in the directory, not forced, no progress callback. Kept only a build that embedded
every vector it selects before it returned, or none (one that left vectors to the dense worker
is built again each time). The key is everything the build reads: every file under the root
(the index directory excepted), the git revision (HEAD, and whether the work tree differs),
the whole configuration and the embedder's model. Each test gets its own copy, so no test sees
another's changes. Tests whose subject is building (incremental refreshes, atomic writes,
staleness, the report of a build, what was embedded) do not ask for the cache.

The copies are kept under the session's shared temporary directory (one per key, written under
a file lock, so the two xdist workers build a repository once between them)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HITS: list[str] = []  # keys served from the cache in this process (tests/test_index_copy.py)


def content_digest(root: Path, skip: Path) -> str:
    """Every file under `root` but `.git` and the index directory `skip`: path, kind, bytes."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames
                             if d != ".git" and (here / d).resolve() != skip)
        for name in sorted(filenames + [d for d in dirnames if (here / d).is_symlink()]):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                digest.update(b"L" + rel.encode() + b"\0" + os.readlink(path).encode() + b"\0")
            elif path.is_file():
                data = path.read_bytes()
                digest.update(b"F" + rel.encode() + b"\0" + str(len(data)).encode() + b"\0")
                digest.update(data)
        if here != root and not dirnames and not filenames:
            digest.update(b"D" + here.relative_to(root).as_posix().encode() + b"\0")
    return digest.hexdigest()


def build_key(root: Path, config: Any, store_dir: Path, embedder: Any) -> str:
    from helix.core.git import repo_revision

    parts = {
        "files": content_digest(root, store_dir.resolve()),
        "git": repo_revision(root),
        "config": hashlib.sha256(config.model_dump_json().encode()).hexdigest(),
        "embedder": (None if embedder is None
                     else f"{type(embedder).__qualname__}:{embedder.model_key}"),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


@contextlib.contextmanager
def _key_lock(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class BuildCache:
    """Index directories of finished builds, one per `build_key`, in `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def build(self, real: Any, root: Path, config: Any, store: Any, embedder: Any,
              progress: Any, force: bool, parts: Any = None, dense: str = "wait",
              embed_all: bool = False, parse_map: Any = None) -> Any:
        """`indexers.build._build_locked`, from the cache when the build is one from nothing
        under the same inputs."""
        from indexers.reports import BuildReport

        def build() -> Any:
            return real(root, config, store, embedder, progress, force, parts, dense=dense,
                        embed_all=embed_all, parse_map=parse_map)

        if (force or progress is not None or embed_all or parse_map is not None
                or store.current_dir() is not None):
            return build()
        key = build_key(root, config, store.directory, embedder)
        held = self.directory / key
        with _key_lock(held):
            saved = held / "report.json"
            if not saved.is_file():
                report = build()
                if report.dense_state is None or report.dense_state.get("complete"):
                    shutil.copytree(store.directory, held / "index", symlinks=True,
                                    ignore=shutil.ignore_patterns("lock"))
                    saved.write_text(report.model_dump_json(), encoding="utf-8")
                return report
            _copy_into(held / "index", store.directory)
        HITS.append(key)
        report = json.loads(saved.read_text(encoding="utf-8"))
        report.update(root=str(root), index_dir=str(store.directory))
        return BuildReport.model_validate(report)


def _copy_into(source: Path, directory: Path) -> None:
    """The cached index directory's entries into `directory` (which holds the lock file and
    the marker the store wrote when it claimed it)."""
    for entry in sorted(source.iterdir()):
        target = directory / entry.name
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True, dirs_exist_ok=True)
        elif not target.exists():
            shutil.copy2(entry, target, follow_symlinks=False)


def shared_directory(factory: pytest.TempPathFactory) -> Path:
    """The session's temporary directory all xdist workers share (each has its own below)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def networkx_tree(directory: Path) -> Path:
    """The installed networkx package without its tests (nor bytecode) at `directory`/networkx:
    real code nobody here wrote, the same files wherever it is copied, so that the tests
    indexing it under the evals' configuration (`evals.runner.eval_config`, no vectors) share
    one build a session."""
    import networkx

    root = directory / "networkx"
    shutil.copytree(Path(networkx.__file__).resolve().parent, root,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "tests"))
    return root
