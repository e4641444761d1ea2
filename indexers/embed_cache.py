"""Per-user embedding cache shared by every index: (model key, text hash) -> float32 vector.

`CachedEmbedder` puts an embedder in front of it: texts embedded once (the answer contract's
exemplars) are read back by every later process.

One SQLite file in WAL mode with a busy timeout, so two processes (two `helix index` runs on
two checkouts of one project) can read and write it at once. A cache file that SQLite cannot
read is moved aside (`*.corrupt-<n>`) and recreated: losing a cache costs time, never a crash.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from helix.core.ports import Embedder
from indexers.locking import acquire

CACHE_FILE = "embeddings.sqlite"
BUSY_TIMEOUT_MS = 30_000
# SQLite's default host-parameter limit is 999 on old builds; stay under it per statement
_BATCH = 500
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS embeddings ("
    " model_key TEXT NOT NULL, text_hash TEXT NOT NULL, dim INTEGER NOT NULL,"
    " vector BLOB NOT NULL, PRIMARY KEY (model_key, text_hash)) WITHOUT ROWID"
)


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """Not a database / malformed image; a locked, read-only or full disk is not corruption."""
    return type(exc) is sqlite3.DatabaseError


INIT_LOCK_TIMEOUT_S = 30.0


class EmbeddingCache:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / CACHE_FILE
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        self.directory.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000,
                               isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone()  # reads a page
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> None:
        number = 0
        while True:
            target = self.path.with_name(f"{self.path.name}.corrupt-{number}")
            if not target.exists():
                break
            number += 1
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.unlink(missing_ok=True)
        if self.path.exists():
            self.path.replace(target)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            # Opening (WAL switch, schema) and the corruption verdict happen under an exclusive
            # lock: a second process creating the file at the same moment must never make this
            # one move a live cache aside.
            self.directory.mkdir(parents=True, exist_ok=True)
            release = acquire(self.path.with_name(self.path.name + ".lock"), INIT_LOCK_TIMEOUT_S)
            try:
                try:
                    self._conn = self._connect()
                except sqlite3.DatabaseError as exc:
                    if not _is_corruption(exc):
                        raise
                    self._move_aside()
                    self._conn = self._connect()
            finally:
                if release is not None:
                    release()
        return self._conn

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._connection()

    def _recover(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._move_aside()

    def get_many(self, model_key: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = sorted(set(text_hashes))
        try:
            return self._get(model_key, wanted)
        except sqlite3.DatabaseError as exc:
            if not _is_corruption(exc):
                raise
            with self._lock:
                self._recover()
            return {}

    def _get(self, model_key: str, wanted: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._db() as conn:
            for start in range(0, len(wanted), _BATCH):
                part = wanted[start:start + _BATCH]
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    "SELECT text_hash, dim, vector FROM embeddings"
                    f" WHERE model_key = ? AND text_hash IN ({marks})", (model_key, *part))
                for text_hash, dim, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape == (dim,):
                        found[text_hash] = vector
        return found

    def put_many(self, model_key: str, items: Mapping[str, np.ndarray]) -> None:
        rows = [(model_key, text_hash, int(vec.shape[0]),
                 np.ascontiguousarray(vec, dtype=np.float32).tobytes())
                for text_hash, vec in sorted(items.items())]
        if not rows:
            return
        try:
            self._put(rows)
        except sqlite3.DatabaseError as exc:
            if not _is_corruption(exc):
                raise
            with self._lock:
                self._recover()
            self._put(rows)

    def _put(self, rows: list[tuple[str, str, int, bytes]]) -> None:
        with self._db() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings (model_key, text_hash, dim, vector)"
                    " VALUES (?, ?, ?, ?)", rows)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):  # keep the original error, not this one
                        conn.execute("ROLLBACK")
                raise

    def count(self, model_key: str | None = None) -> int:
        with self._db() as conn:
            if model_key is None:
                row = conn.execute("SELECT count(*) FROM embeddings").fetchone()
            else:
                row = conn.execute("SELECT count(*) FROM embeddings WHERE model_key = ?",
                                   (model_key,)).fetchone()
        return int(row[0])

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class CachedEmbedder:
    """An embedder whose vectors are kept in the embedding cache (by model key and text hash);
    each missing text is embedded alone. A cache that cannot be read or written (a read-only
    $HELIX_HOME) costs time, never an answer."""

    embeds_each_alone = True  # a text's vector never depends on the others in the call

    def __init__(self, inner: Embedder, directory: Path) -> None:
        self._inner, self._directory = inner, directory

    @property
    def model_key(self) -> str:
        return self._inner.model_key

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from helix.core.hashing import digest

        key = self._inner.model_key
        hashes = [digest(text) for text in texts]
        found: dict[str, np.ndarray] = {}
        with suppress(sqlite3.Error, OSError), EmbeddingCache(self._directory) as cache:
            found = cache.get_many(key, hashes)
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        computed = {h: self._inner.embed([t])[0] for h, t in sorted(missing.items())}
        if computed:
            with suppress(sqlite3.Error, OSError), EmbeddingCache(self._directory) as cache:
                cache.put_many(key, computed)
        found.update(computed)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text_hash in enumerate(hashes):
            out[row] = found[text_hash]
        return out
