"""Embedded SQLite storage shared by the run log and the session store."""
