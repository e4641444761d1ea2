"""The `helix` command: thin commands that parse, call one library function, and render."""
