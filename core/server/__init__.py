"""What DeltaCore serves to the outside: the MCP server and the local inspector page.

Both sit above the engine and use only the :class:`~deltacore.DeltaCore` facade (like the
command line). Importing this package imports nothing optional: ``mcp_server`` needs the
``mcp`` extra, ``inspector`` the ``inspector`` extra (Starlette + uvicorn), and each says so
with :class:`~deltacore.errors.MissingExtraError` when it is missing.
"""
