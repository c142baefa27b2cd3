"""Page-number pagination shared by the list endpoints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet

from ladder.api.schemas import PageQuery


def paginate(queryset: QuerySet, query: PageQuery, build: Callable[[Any], dict]) -> dict:
    """{"count", "page", "page_size", "results"}; a page past the end is empty."""
    start = (query.page - 1) * query.page_size
    rows = queryset[start : start + query.page_size]
    return {
        "count": queryset.count(),
        "page": query.page,
        "page_size": query.page_size,
        "results": [build(row) for row in rows],
    }
