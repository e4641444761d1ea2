"""The seams: embedder, LLM and clock are handed in, never imported by pure code.

Deterministic fakes live here so tests and dry runs need no network and no model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from helix.core.hashing import digest
from helix.core.schemas import Frozen

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of shape (len(texts), dim)."""

    @property
    def model_key(self) -> str:
        """Identifies the model in cache keys (same key => same vectors)."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder: similar words => similar vectors.

    Good enough to test ranking plumbing; never used unless asked for.
    """

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim
        self.calls = 0
        self.texts_embedded = 0

    @property
    def model_key(self) -> str:
        return f"fake-hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                bucket = int(digest(word)[7:15], 16)
                out[row, bucket % self._dim] += 1.0 if (bucket >> 20) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


class Completion(Frozen):
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # the answer went on past the client's character cap: `text` is its first part, and
    # `read_chars` how much of it was read before reading stopped
    cut: bool = False
    read_chars: int = 0

    def capped(self, max_chars: int) -> Completion:
        """This completion with its text cut to `max_chars` characters (said: `cut`)."""
        if len(self.text) <= max_chars:
            return self
        return self.model_copy(update={"text": self.text[:max_chars], "cut": True,
                                       "read_chars": max(self.read_chars, len(self.text))})


@runtime_checkable
class LLM(Protocol):
    """One chat completion. Raises helix.core.errors.LLMError subclasses on failure.
    `on_text`, when given, receives the answer's text piece by piece as the model streams it
    (the Completion still holds the whole); a port that cannot stream calls it once."""

    def complete(self, messages: Sequence[dict[str, str]], *, model: str,
                 timeout_s: float, max_tokens: int, temperature: float,
                 api_base: str | None = None,
                 on_text: Callable[[str], None] | None = None) -> Completion: ...


@runtime_checkable
class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (wall clock, for records)."""
        ...

    def monotonic(self) -> float:
        """Seconds, for durations and budgets."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()



# A long task's progress: (stage, done, total); total 0 when unknown. The stage PROGRESS_DONE
# says the indexing is over (a bar drawn for it is taken down before the question is answered).
Progress = Callable[[str, int, int], None]
PROGRESS_DONE = "done"


class FakeClock:
    """A clock that only moves when told to (or by `step` on every read)."""

    def __init__(self, start: float = 1_700_000_000.0, step: float = 0.0) -> None:
        self._t = start
        self._step = step

    def advance(self, seconds: float) -> None:
        self._t += seconds

    def now(self) -> float:
        self._t += self._step
        return self._t

    def monotonic(self) -> float:
        return self.now()


# (model, seconds waited, the deadline in seconds): called about once a second while a model
# call runs past its notice delay, then once with seconds < 0 when the wait is over
Waiting = Callable[[str, float, float], None]
