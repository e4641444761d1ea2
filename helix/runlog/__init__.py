"""The run log: every `helix ask` run, stored in SQLite under HELIX_HOME (see `store`)."""

from helix.runlog.store import RunLog, RunRecord, RunSummary

__all__ = ["RunLog", "RunRecord", "RunSummary"]
