"""The model's answer on the terminal as it is written (`helix ask` with a model, on a tty).

The text is shown as it streams, every character a terminal would act on written out
(`helix.core.visible`), and the wait timer on standard error stops at the first piece (one lock:
the two never write over each other). The contract checks the whole answer afterwards; what is
then printed depends on the verdict (`after`):

    the checked answer is what was shown        nothing again (the citations follow)
    it differs (citations outside the evidence  a notice, then the checked answer
      removed), or it was refused or failed     a notice, then the answer printed as usual

Off a terminal, or with --json, nothing streams (the answer is printed once, as before).
"""

from __future__ import annotations

import threading
from typing import Any, TextIO

from helix.core.envelope import Envelope
from helix.core.ports import Waiting
from helix.core.visible import visible


class LiveAnswer:
    """`on_text` for the synthesis, and the wait timer it replaces once text arrives."""

    def __init__(self, out: TextIO, timer: Waiting | None) -> None:
        self.out = out
        self.timer = timer
        self.parts: list[str] = []
        self._lock = threading.Lock()
        self._model = ""

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def waiting(self, model: str, elapsed: float, deadline: float) -> None:
        with self._lock:
            self._model = model
            if self.timer is not None and not self.parts:
                self.timer(model, elapsed, deadline)

    def on_text(self, piece: str) -> None:
        with self._lock:
            if not self.parts and self.timer is not None:
                self.timer(self._model, -1.0, 0.0)  # the timer's line is cleared
            self.parts.append(piece)
            self.out.write(visible(piece))
            self.out.flush()

    def after(self, envelope: Envelope) -> bool:
        """Whether the answer still has to be printed; ends the streamed text's line and says
        why the answer printed next differs from it."""
        if not self.parts:
            return True
        self.out.write("\n")
        if envelope.answer_mode == "llm" and envelope.answer.strip() == self.text.strip():
            self.out.flush()
            return False
        why = (f"the contract refused it ({envelope.fallback_reason})"
               if envelope.answer_mode == "fallback" else
               "the contract changed it (citations outside the evidence removed)")
        self.out.write(f"\n[the answer above is not the one kept: {why}; the kept answer "
                       "follows]\n\n")
        self.out.flush()
        return True


def live_answer(out: Any, timer: Waiting | None, *, as_json: bool,
                dry_run: bool) -> LiveAnswer | None:
    """A LiveAnswer when the answer would stream to a terminal, else None."""
    if as_json or dry_run or not getattr(out, "isatty", lambda: False)():
        return None
    return LiveAnswer(out, timer)
