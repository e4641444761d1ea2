"""Commands added by feature areas: name -> ("module:attribute", short help)."""

from __future__ import annotations

EXTRA: dict[str, tuple[str, str]] = {}
EXTRA["eval"] = ("helix.cli.eval_cmd:command", "Run eval suites (dry runs): hit@k, MRR, A/B gates.")
EXTRA["log"] = ("helix.cli.log_cmd:log", "List past runs (the run log).")
EXTRA["show"] = ("helix.cli.log_cmd:show", "Reopen a past run: question, prompt, answer, tokens.")
EXTRA["export"] = ("helix.cli.export_cmd:export", "Export training records from the run log.")
EXTRA["ask"] = ("helix.cli.ask_cmd:ask", "Ask a question about a repository (--dry-run: no LLM).")
EXTRA["chat"] = ("helix.cli.chat_cmd:chat", "Talk about a repository: follow-ups, numbered lists.")
EXTRA["events"] = ("helix.cli.events_cmd:events", "Show continuity events (lanes, transitions).")
EXTRA["chunks"] = ("helix.cli.chunks_cmd:chunks", "Show how one file is chunked, and its symbols.")
EXTRA["search"] = ("helix.cli.search_cmd:search", "Search the index directly: BM25 and dense hits.")
