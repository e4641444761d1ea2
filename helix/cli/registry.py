"""The product's commands, in one table: name -> ("module:attribute" of a click.Command, its
short help). Modules are imported only when their command runs. Commands from other installed
packages come through the `helix.commands` entry points (`helix.cli.main.commands`)."""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "index": ("helix.cli.index_cmd:index", "Index a repository (incremental)."),
    "status": ("helix.cli.index_cmd:status", "Say whether the index is fresh."),
    "find": ("helix.cli.index_cmd:find", "Look a symbol up: definitions and reference counts."),
    "ask": ("helix.cli.ask_cmd:ask", "Ask a question about a repository (--dry-run: no LLM)."),
    "chat": ("helix.cli.chat_cmd:chat", "Talk about a repository: follow-ups, numbered lists."),
    "search": ("helix.cli.search_cmd:search", "Search the index directly: BM25 and dense hits."),
    "chunks": ("helix.cli.chunks_cmd:chunks", "Show how one file is chunked, and its symbols."),
    "drift": ("helix.cli.drift_cmd:drift", "Re-run recorded questions at HEAD: what changed under "
                                           "them."),
    "log": ("helix.cli.log_cmd:log", "List past runs (the run log)."),
    "show": ("helix.cli.log_cmd:show", "Reopen a past run: question, prompt, answer, tokens."),
    "events": ("helix.cli.events_cmd:events", "Show continuity events (lanes, transitions)."),
    "export": ("helix.cli.export_cmd:export", "Export training records from the run log."),
    "mcp": ("helix.cli.mcp_cmd:mcp", "Serve Helix's tools to an MCP client (stdio or HTTP)."),
    "stale-docs": ("helix.cli.stale_docs_cmd:stale_docs",
                   "Documentation sections whose code changed after them."),
    "serve": ("helix.cli.serve_cmd:serve", "Serve Helix over HTTP (FastAPI; loopback, token)."),
    "repos": ("helix.cli.fleet_cmd:repos", "List the registered repositories and their groups."),
}
