"""The router as tests call it: the default routing policy, passed in (product code passes
the configured one: `helix.core.config.RetrievalSettings.routing`)."""

from __future__ import annotations

from controller.route import RoutePlan
from controller.route import route_question as _route_question
from helix.core.policy import RoutingPolicy

ROUTING = RoutingPolicy()


def route_question(question: str, *, scope: str | None = None, sense: str | None = None,
                   routing: RoutingPolicy = ROUTING) -> RoutePlan:
    return _route_question(question, routing=routing, scope=scope, sense=sense)
