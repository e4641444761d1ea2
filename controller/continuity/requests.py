"""What a continuity lane asks for, and the loop that answers it.

A lane step is a generator: it reads the turn (plan, state, stored turns: plain data), yields a
request whenever it needs the outside world, receives the result (or has the failure raised at
the `yield`), and returns its outcome. It never holds a port, so it is pure: the same inputs
and the same results give the same outcome, and a test drives it with scripted results.

    request      result                               failure raised at the yield
    Retrieve     the controller's `Envelope`          `HelixError`
    LoadGraph    the index graph                      `HelixError`
    OpenSpan     an `OpenedSpan` (inside the root)    `BadPathError` / `OSError`
    ModelCall    the model's text                     `LLMError`
    CheckDrift   a `QuestionDrift`: an earlier answer     `HelixError`
                 re-run now, compared with its evidence

`drive` is the one loop that runs a step against a `perform` function; the session's
(`helix.session.lane_driver.LanePorts.perform`) is the only place the lanes' I/O happens.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from helix.core.errors import HelixError

Purpose = Literal["selection_advisory", "semantic_answer", "small_talk"]
T = TypeVar("T")


@dataclass(frozen=True)
class Retrieve:
    """Run the controller (and synthesis) on a question, in a scope, with a sense."""

    question: str
    scope: str | None = None
    sense: str | None = None


@dataclass(frozen=True)
class LoadGraph:
    """The index graph of the session's repository (no vectors needed)."""


@dataclass(frozen=True)
class OpenSpan:
    """Read `target`'s lines (a `TargetRef`), at most `max_lines`, inside the repository."""

    target: Any
    max_lines: int


@dataclass(frozen=True)
class ModelCall:
    """One bounded call to the lane model configured for `purpose`."""

    purpose: Purpose
    messages: tuple[Mapping[str, str], ...]


@dataclass(frozen=True)
class CheckDrift:
    """Re-run an earlier answer's question now (a dry run) and compare it with the evidence
    it had (`helix drift` of one turn): "did anything change since I asked about X?"."""

    envelope: Any  # the earlier answer's `Envelope`


Request = Retrieve | LoadGraph | OpenSpan | ModelCall | CheckDrift
Steps = Generator[Request, Any, T]
FAILURES = (HelixError, OSError)  # raised into the step at its yield; others propagate


def drive(steps: Steps[T], perform: Callable[[Request], Any]) -> T:
    """Run `steps` to its outcome, answering each request with `perform`."""
    try:
        request = next(steps)
        while True:
            try:
                result = perform(request)
            except FAILURES as exc:
                request = steps.throw(exc)
            else:
                request = steps.send(result)
    except StopIteration as stop:
        return stop.value


def at_once(decide: Callable[..., T]) -> Callable[..., Steps[T]]:
    """A rung that needs nothing from outside, as a lane step (one ladder, one kind of rung)."""
    return lambda *args: returns(decide(*args))


def returns(value: T) -> Steps[T]:
    """A step that needs nothing from outside: `value` at once."""
    return value
    yield  # pragma: no cover - makes this a generator
