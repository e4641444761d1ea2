"""An unchanged file's rows are copied from the previous generation in SQL (never decoded):
the database has the bytes `add` would have written, whatever runs of files are copied, and a
refresh after adds, edits and removals in the middle of the path order equals a fresh build."""

from __future__ import annotations

from pathlib import Path

from helix.core.config import HelixConfig, IndexSettings
from helix.core.hashing import digest_file
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Chunk, FileRecord
from indexers.build import build_index
from indexers.formats import RefRow
from indexers.parse import parse_file
from indexers.row_store import RowReader
from indexers.row_writer import RowWriter
from indexers.walker import walk

CONFIG = HelixConfig(index=IndexSettings(embed_enabled=False))
Parsed = tuple[FileRecord, list[Chunk], list, list]


def _module(n: int, extra: str = "") -> str:
    return (f'"""Module {n}."""\nimport mod_{(n + 1) % 12:02d}\n\n\n'
            f"def work_{n}(value):\n    return mod_{(n + 1) % 12:02d}.work_{(n + 1) % 12}(value)\n"
            f"\n\nclass Thing{n}:\n    def run(self):\n        return self.step() + work_{n}(1)\n"
            f"\n    def step(self):\n        return {n}\n{extra}")


def _repo(root: Path, count: int = 12) -> Path:
    for n in range(count):
        path = root / f"mod_{n:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_module(n), encoding="utf-8")
    (root / "README.md").write_text("# Things\n\nSee `work_3` and `Thing4`.\n", "utf-8")
    (root / ".git").mkdir()
    return root


def _parse(root: Path) -> list[Parsed]:
    out = []
    for wf in walk(root, CONFIG.index).files:
        parsed = parse_file(wf.record, wf.text, CONFIG.index)
        chunks = sorted(parsed.chunks, key=lambda c: (c.path, c.start_line, c.id))
        refs = [RefRow(r.name, r.kind, r.path, r.line, r.scope, r.module, r.receiver)
                for r in parsed.refs]
        out.append((wf.record, chunks, list(parsed.defs), refs))
    return sorted(out, key=lambda p: p[0].path)


def _write(path: Path, files: list[Parsed], source: Path | None = None,
           copied: frozenset[str] | set[str] = frozenset()) -> None:
    spans = RowReader(source).file_spans() if source else {}
    writer = RowWriter(path, source=source)
    run: list[FileRecord] = []
    for record, chunks, defs, refs in files:
        if record.path in copied:
            run.append(record)
            continue
        if run:
            writer.copy(run, [spans[r.path] for r in run])
            run = []
        writer.add(record, chunks, defs, refs)
    if run:
        writer.copy(run, [spans[r.path] for r in run])
    writer.close()


def test_copied_rows_have_the_bytes_add_writes(tmp_path: Path) -> None:
    files = _parse(_repo(tmp_path / "repo"))
    assert len(files) == 13
    _write(tmp_path / "old.sqlite", files)
    paths = [f[0].path for f in files]
    # runs at the start, in the middle, at the end; one file between two runs written by add
    for copied in ({*paths[:4], *paths[5:9], *paths[11:]}, set(paths), set(paths[1:2])):
        out = tmp_path / f"new-{len(copied)}.sqlite"
        _write(out, files, source=tmp_path / "old.sqlite", copied=copied)
        assert digest_file(out) == digest_file(tmp_path / "old.sqlite")
        reader = RowReader(out)
        assert reader.all_refs() == [r for f in files for r in f[3]]
        assert reader.all_chunks() == [c for f in files for c in f[1]]


def test_a_copy_skips_rows_of_files_gone_from_the_middle(tmp_path: Path) -> None:
    files = _parse(_repo(tmp_path / "repo"))
    _write(tmp_path / "old.sqlite", files)
    kept = files[:3] + files[4:]  # the fourth file removed: its rows must not come along
    _write(tmp_path / "new.sqlite", kept, source=tmp_path / "old.sqlite",
           copied={f[0].path for f in kept})
    _write(tmp_path / "fresh.sqlite", kept)
    assert digest_file(tmp_path / "new.sqlite") == digest_file(tmp_path / "fresh.sqlite")


def test_a_refresh_after_adds_edits_and_removals_equals_a_fresh_build(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    build_index(root, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    (root / "mod_05.py").unlink()
    (root / "mod_07.py").write_text(_module(7, "\n\ndef extra_7():\n    return Thing8()\n"),
                                    encoding="utf-8")
    (root / "mod_03b.py").write_text(_module(13), encoding="utf-8")
    incremental = build_index(root, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    fresh = build_index(root, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    assert incremental.files_parsed == 2 and fresh.files_parsed == 13
    assert incremental.index_rev == fresh.index_rev
    # an edit alone: the graph is updated in place, the rest copied
    (root / "mod_09.py").write_text(_module(9, "\n\ndef extra_9():\n    return 9\n"), "utf-8")
    incremental = build_index(root, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    fresh = build_index(root, CONFIG, index_dir=tmp_path / "fresh2", embedder=FakeEmbedder())
    assert incremental.files_parsed == 1 and incremental.graph_updated
    assert incremental.index_rev == fresh.index_rev


def test_a_call_through_a_module_qualified_class_is_re_resolved(tmp_path: Path) -> None:
    """`mod_07.Thing7.build()`: the edit changes what `Thing7` is (its base goes); the files
    whose references can name it are looked up in the rows, and the refresh equals a fresh
    build."""
    root = _repo(tmp_path / "repo")
    (root / "base.py").write_text("class Base:\n    def build(self):\n        return 1\n", "utf-8")
    with_base = ("from base import Base\n\n\nclass Thing7(Base):\n"
                 "    def step(self):\n        return 7\n")
    (root / "mod_07.py").write_text(with_base, encoding="utf-8")
    (root / "user.py").write_text("import mod_07\n\n\ndef use():\n"
                                  "    return mod_07.Thing7.build()\n", encoding="utf-8")
    first = build_index(root, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    assert first.graph_edges.get("calls", 0) > 0
    (root / "mod_07.py").write_text(with_base.replace("(Base)", "").replace(
        "from base import Base\n\n\n", "import base\n\n\n"), encoding="utf-8")
    incremental = build_index(root, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    fresh = build_index(root, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    assert incremental.graph_updated and incremental.files_parsed == 1
    assert incremental.graph_edges == fresh.graph_edges
    assert incremental.index_rev == fresh.index_rev
