"""`helix eval` and its sub-commands: the product reaches them through the `helix.commands`
entry point (pyproject.toml), never by importing `evals`."""
