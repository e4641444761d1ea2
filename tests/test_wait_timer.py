"""While waiting for the model: on a terminal, what is being waited for and for how long,
updated in place and cleared at the end; not a terminal: nothing on stderr."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence

from helpers_synthesis import envelope

from helix.cli.progress import wait_timer
from helix.core.config import SynthesisSettings
from helix.core.ports import Completion, FakeClock
from helix.synthesis.answer import synthesize


class SlowModel:
    def complete(self, messages: Sequence[dict[str, str]], *, model: str, timeout_s: float,
                 max_tokens: int, temperature: float,
                 api_base: str | None = None) -> Completion:
        time.sleep(2.3)
        return Completion(text="It is decided in decide_retry [E1].", model=model)


def test_the_wait_is_reported_about_once_a_second_then_closed() -> None:
    seen: list[tuple[str, float]] = []
    notices: list[str] = []
    done = synthesize(envelope(), llm=SlowModel(), settings=SynthesisSettings(model="slow-m"),
                      clock=FakeClock(), notice_s=0.2, notify=notices.append,
                      waiting=lambda model, elapsed, deadline: seen.append((model, elapsed)))
    assert done.envelope.answer_mode == "llm"
    ticks = [elapsed for _, elapsed in seen[:-1]]
    assert len(ticks) >= 2 and ticks == sorted(ticks) and ticks[0] >= 0.2
    assert seen[-1] == ("slow-m", -1.0)  # the wait is over: the line is cleared
    assert not [n for n in notices if "waiting" in n]  # the timer replaces the one-line notice


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_timer_writes_in_place_on_a_terminal_only() -> None:
    assert wait_timer(io.StringIO()) is None
    screen = Terminal()
    show = wait_timer(screen)
    assert show is not None
    show("gpt-4o-mini", 3.4, 90.0)
    show("gpt-4o-mini", -1.0, 90.0)
    assert screen.getvalue() == ("\r\x1b[Khelix: waiting for gpt-4o-mini: 3 s of up to 90 s"
                                 "\r\x1b[K")
