"""Byte plumbing shared by the backends: line reassembly with a size cap,
a bounded stderr tail, and the demultiplexer for Docker's attach stream.

Nothing here decodes or trusts the bot's bytes; callers get raw lines.
"""

from __future__ import annotations

import struct

STDOUT = 1
STDERR = 2
_HEADER = struct.Struct(">BxxxL")


class LineBuffer:
    """Collects stdout bytes and cuts them into lines of at most `max_bytes`
    (not counting the newline). Complete lines that arrived before an
    over-long one are still handed out; after that the buffer is
    `too_large` for good: the bot is to be stopped, nothing after is trusted."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._complete_end = 0  # offset just past the last newline in _buf
        self._overflowed = False
        self.total_bytes = 0

    @property
    def too_large(self) -> bool:
        return self._overflowed and self._complete_end == 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        if self._overflowed:
            return
        newline = data.rfind(b"\n")
        if newline >= 0:
            self._complete_end = len(self._buf) + newline + 1
        self._buf += data
        if len(self._buf) - self._complete_end > self.max_bytes:
            del self._buf[self._complete_end :]
            self._overflowed = True

    def pop_line(self) -> bytes | None:
        """The next complete line without its newline, or None."""
        if self._complete_end == 0:
            return None
        end = self._buf.find(b"\n")
        if end > self.max_bytes:
            self._buf.clear()
            self._complete_end = 0
            self._overflowed = True
            return None
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        self._complete_end -= end + 1
        return line


class Tail:
    """Keeps the last `max_bytes` of a stream; counts everything seen."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self.total_bytes = 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        if len(data) >= self.max_bytes:
            self._buf = bytearray(data[len(data) - self.max_bytes :])
            return
        self._buf += data
        excess = len(self._buf) - self.max_bytes
        if excess > 0:
            del self._buf[:excess]

    def text(self) -> str:
        return self._buf.decode("utf-8", errors="replace")


class FrameDemux:
    """Splits Docker's multiplexed attach stream (tty off): each frame is an
    8-byte header [stream, 0, 0, 0, size uint32 BE] then `size` payload bytes.
    Payloads are passed on as they arrive, so a frame may be split across
    reads and a line may be split across frames (LineBuffer joins them)."""

    def __init__(self) -> None:
        self._header = bytearray()
        self._stream = 0
        self._remaining = 0

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        out: list[tuple[int, bytes]] = []
        view = memoryview(data)
        pos = 0
        while pos < len(view):
            if self._remaining == 0:
                need = _HEADER.size - len(self._header)
                self._header += view[pos : pos + need]
                pos += min(need, len(view) - pos)
                if len(self._header) < _HEADER.size:
                    break
                self._stream, self._remaining = _HEADER.unpack(self._header)
                self._header.clear()
                continue
            take = min(self._remaining, len(view) - pos)
            out.append((self._stream, bytes(view[pos : pos + take])))
            self._remaining -= take
            pos += take
        return out
