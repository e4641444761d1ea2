"""A session over a copy of the continuity fixture repository, for the conversation tests: dry
run, a fake clock, every controller question recorded, an optional recording fake model."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helix.core.config import HelixConfig, load_config
from helix.core.ports import FakeClock
from helix.session.runner import run_turn
from helix.session.store import ensure_schema, get_session
from helix.store.db import open_db
from helix.synthesis.fake_llm import FakeLLM

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
Q = "where is the BM25 index built?"


def copy_fixture(tmp: Path) -> Path:
    root = tmp / "repo"
    shutil.copytree(FIXTURE, root)
    return root


def built_indexes(root: Path, tmp: Path) -> Path:
    """`root` indexed once (as `Talk` indexes it, without embeddings) in a home of its own:
    its `indexes` directory, for `seed_home` to copy into each test's $HELIX_HOME."""
    import pytest

    from indexers.build import ensure_index

    with pytest.MonkeyPatch.context() as env:
        env.setenv("HELIX_HOME", str(tmp))
        ensure_index(root, config(root))
    return tmp / "indexes"


_BUILT: list[Path] = []  # this process's indexed copy of FIXTURE (its index directory)


def indexed_copy(tmp: Path) -> Path:
    """`copy_fixture`, and the fixture's index (built once per process, as `Talk` builds it)
    copied to where this copy's index lives in the test's $HELIX_HOME: the first turn finds
    it fresh (the same files: the same index_rev, nothing parsed) instead of building it;
    a test that changes a file gets the usual refresh."""
    import atexit
    import tempfile

    from helix.core.paths import index_dir_for

    root = copy_fixture(tmp)
    if not _BUILT:
        scratch = Path(tempfile.mkdtemp(prefix="helix-talk-index-"))
        atexit.register(shutil.rmtree, scratch, True)
        source = copy_fixture(scratch)
        built_indexes(source, scratch / "home")
        _BUILT.append(index_dir_for(source, env={"HELIX_HOME": str(scratch / "home")}))
    shutil.copytree(_BUILT[0], index_dir_for(root))
    return root


def seed_home(indexes: Path, home: Path) -> None:
    """A module's built index (`built_indexes`) copied into this test's home: the test's
    first turn finds it fresh (the same repository, unchanged) instead of building it again;
    a changed repository would be refreshed as usual."""
    shutil.copytree(indexes, home / "indexes")


def config(root: Path, **flags: object) -> HelixConfig:
    return load_config(root, flags={"index.embed_enabled": False, **flags})


def recording_llm(verdict: dict[str, Any] | None = None) -> FakeLLM:
    """The one fake model, answering each purpose plausibly (small talk, a named entity's
    answer, else the selection verdict); its `calls` and `models` record every call."""
    chosen = verdict or {"decision": "need_more_info"}

    def respond(model: str, messages: Sequence[dict[str, str]]) -> str:
        system = messages[0]["content"]
        if "small talk" in system:
            return "Hi! Ask me anything about this repository."
        if "named entity" in system:
            return json.dumps({"answer": "A written answer.", "confidence": 0.9})
        return json.dumps(chosen)

    return FakeLLM(respond=respond)


class Talk:
    """One session: `talk(text, reply_to=None)` runs a turn; `asked` holds every question the
    controller ran (question, scope, sense)."""

    def __init__(self, root: Path, cfg: HelixConfig | None = None, llm: Any = None,
                 name: str = "s") -> None:
        self.root, self.config, self.llm, self.name = root, cfg or config(root), llm, name
        self.clock = FakeClock(start=1_700_000_000.0, step=0.001)
        self.asked: list[tuple[str, str | None, str | None]] = []

    def __call__(self, text: str, reply_to: int | None = None) -> Any:
        from helix.session.runner import default_asker

        def asker(question: str, *, scope: str | None, sense: str | None) -> Any:
            self.asked.append((question, scope, sense))
            return default_asker(self.root, self.config, llm=None, dry_run=True,
                                 session_id="test", turn_number=0, clock=self.clock)(
                question, scope=scope, sense=sense)

        return run_turn(self.name, text, root=self.root, config=self.config,
                        reply_to=reply_to, llm=self.llm, clock=self.clock, dry_run=True,
                        asker=asker)

    def state(self) -> Any:
        db = open_db()
        ensure_schema(db)
        record = get_session(db, self.name)
        assert record is not None
        return record.state
