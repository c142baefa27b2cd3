"""Raises at import, before reading anything.

Expected: EOF; exit report CRASHED with exit code 1 and the traceback in the
stderr tail.
"""

raise RuntimeError("boom at import")
