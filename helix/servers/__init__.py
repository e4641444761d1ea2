"""Long-running surfaces: the MCP server and the HTTP API, over one `Workspace`."""
