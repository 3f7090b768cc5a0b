"""The local inspector page (``deltacore inspect``): Starlette + uvicorn, assets shipped in the package."""
