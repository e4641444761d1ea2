"""Conversations: the SQLite session store, the turn runner and the continuity scenarios.

`run_turn(session_name, text, root=..., config=...)` routes one turn through the continuity
router, runs the lane it chose (the controller for root questions, the index graph for object
follow-ups, the selection / semantic lanes, meta and recap over the stored session) and stores
the turn, the new continuity state and its events in one transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.continuity.turn import TurnResult as TurnResult
    from helix.session.runner import run_turn as run_turn


def __getattr__(name: str) -> Any:
    # lazy: `import helix.session` stays cheap for the CLI
    if name == "run_turn":
        from helix.session.runner import run_turn

        return run_turn
    if name == "TurnResult":
        from controller.continuity.turn import TurnResult

        return TurnResult
    raise AttributeError(name)
