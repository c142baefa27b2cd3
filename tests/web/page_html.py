"""The pages' HTML as a tree, for the accessibility checks that need no
browser: which ids exist, what an element says (to a screen reader, too).
Standard library only (html.parser)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass(eq=False)
class Element:
    tag: str
    attrs: dict[str, str]
    parent: Element | None = None
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Element]:
        """This element and every element inside it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list:
        """Elements by tag, class and attribute values (`True` for any value); `_` in a
        name stands for `-` (aria_label=…), a trailing one is dropped (for_=…)."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag)
            and (cls is None or cls in e.classes)
            and all(
                name in e.attrs and (value is True or e.attrs[name] == value)
                for name, value in wanted.items()
            )
        ]

    def text(self, spoken: bool = False) -> str:
        """The text inside, whitespace collapsed; `spoken`: without what is
        aria-hidden (what a screen reader reads; titles are not text)."""
        parts: list[str] = []

        def walk(element: Element) -> None:
            if spoken and element.attrs.get("aria-hidden") == "true":
                return
            for child in element.children:
                parts.append(child) if isinstance(child, str) else walk(child)

        walk(self)
        return " ".join("".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v if v is not None else "" for k, v in attrs}, self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.current = self.current.parent

    def handle_endtag(self, tag: str) -> None:
        node = self.current
        while node is not self.root and node.tag != tag:  # tolerate unclosed <p>, <li>
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


class Page:
    """A parsed page: `page.root`, `page.by_id`, `page.find_all(...)`."""

    def __init__(self, markup: str | bytes) -> None:
        builder = _Builder()
        builder.feed(markup.decode() if isinstance(markup, bytes) else markup)
        builder.close()
        self.root = builder.root
        self.by_id = {e.attrs["id"]: e for e in self.root.iter() if "id" in e.attrs}

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list:
        return self.root.find_all(tag, cls, **attrs)

    def missing_references(self) -> list[str]:
        """Every aria-describedby / aria-labelledby / label-for id that names no element."""
        missing = []
        for element in self.root.iter():
            for name in ("aria-describedby", "aria-labelledby", "for"):
                if element.tag != "label" and name == "for":
                    continue
                for ref in element.attrs.get(name, "").split():
                    if ref not in self.by_id:
                        missing.append(f"<{element.tag} {name}={ref!r}>")
        return missing
