"""A name spelled in prose ("the event class that handles WebSocket message errors") matches
many definitions by a close name; the ones whose name parts hold more of the question's other
words come first (`controller.channels.fuzzy_order`), through the symbol channel too."""

from __future__ import annotations

from controller.channels import Request, execute, fuzzy_order
from helix.core.policy import Pools
from helix.core.schemas import SymbolDef
from tests.controller_helpers import files_index


def _def(qualname: str, line: int) -> SymbolDef:
    return SymbolDef(name=qualname.rsplit(".", 1)[-1], qualname=qualname, kind="class",
                     path="net.py", start_line=line, end_line=line + 3, scope=None,
                     node_id=f"def:net.py::{qualname}")


def test_the_close_name_holding_the_other_words_comes_first() -> None:
    defs = [_def("WebSocketClosed", 1), _def("WebSocketFrame", 10),
            _def("WebSocketFrameError", 20)]
    ordered = fuzzy_order(defs, frozenset({"error", "messag", "event"}))
    assert [d.qualname for d in ordered] == ["WebSocketFrameError", "WebSocketFrame",
                                             "WebSocketClosed"]
    # no other word in common: shorter (closer) names first, then path and line
    assert [d.qualname for d in fuzzy_order(defs, frozenset())] == [
        "WebSocketFrame", "WebSocketClosed", "WebSocketFrameError"]


CLASSES = "".join(f"class WebSocket{name}:\n    \"\"\"A {name.lower()} event.\"\"\"\n\n\n"
                  for name in ("Closed", "Created", "Frame", "Request", "Response", "Sent"))


def test_the_symbol_channel_orders_fuzzy_hits_by_the_question() -> None:
    index = files_index({"net.py": CLASSES + "class WebSocketFrameError:\n    pass\n"})
    request = Request(channel="symbol", query="WebSocket", k=3, fuzzy=True,
                      context=("error", "event", "handl", "messag", "web", "socket"))
    found = execute(index, request, None, Pools()).found
    assert found[0].chunk.symbol == "WebSocketFrameError"
    old_way = execute(index, request, None, Pools(fuzzy_names=0)).found
    assert "WebSocketFrameError" not in [f.chunk.symbol for f in old_way]
