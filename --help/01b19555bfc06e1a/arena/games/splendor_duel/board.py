"""The 5×5 token board: cell names, the spiral, and the straight lines.

A cell is the integer row*5 + col. Its name is chess-like: the column letter
a–e then the row number 1–5 (row 1 is the edge with the privilege icons, see
the data file). Every table here is computed once at import.
"""

from __future__ import annotations

from arena.games.splendor_duel.loader import DATA

SIZE = int(DATA["board_size"])
CELL_COUNT = SIZE * SIZE
CELLS = tuple(range(CELL_COUNT))
COLUMN_LETTERS = "abcde"[:SIZE]


def cell_name(cell: int) -> str:
    row, col = divmod(cell, SIZE)
    return f"{COLUMN_LETTERS[col]}{row + 1}"


CELL_NAMES: tuple[str, ...] = tuple(cell_name(c) for c in CELLS)
CELL_INDEX = {name: c for c, name in enumerate(CELL_NAMES)}
#: cells in the string order of their names (a1, a2, ..., e5)
CELLS_BY_NAME: tuple[int, ...] = tuple(sorted(CELLS, key=lambda c: CELL_NAMES[c]))
#: Board masks number their bits in name order (bit k = CELLS_BY_NAME[k]), so
#: a column is 5 adjacent bits and a mask's cells come out already sorted.
BIT: tuple[int, ...] = tuple(1 << CELLS_BY_NAME.index(c) for c in CELLS)


def board_masks(board: list[int], gold: int) -> tuple[int, int]:
    """(mask of cells holding a non-gold token, mask of cells holding gold)."""
    takeable = gold_mask = 0
    for c, t in enumerate(board):
        if t == gold:
            gold_mask |= BIT[c]
        elif t >= 0:
            takeable |= BIT[c]
    return takeable, gold_mask


def mask_cells(mask: int) -> list[int]:
    """The cells of a mask, in name order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CELLS_BY_NAME[low.bit_length() - 1])
        mask ^= low
    return out


#: RULES.md §2 and §6: tokens are placed on empty cells in this order
SPIRAL: tuple[int, ...] = tuple(r * SIZE + c for r, c in DATA["spiral_fill_order"])
assert sorted(SPIRAL) == list(CELLS)

# RULES.md §7.1: 1–3 tokens on consecutive cells of a row, column or diagonal.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _segments() -> list[tuple[int, ...]]:
    found: set[tuple[int, ...]] = {(c,) for c in CELLS}
    for row in range(SIZE):
        for col in range(SIZE):
            for dr, dc in _DIRECTIONS:
                run = [row * SIZE + col]
                for k in (1, 2):
                    r, c = row + dr * k, col + dc * k
                    if not (0 <= r < SIZE and 0 <= c < SIZE):
                        break
                    run.append(r * SIZE + c)
                    found.add(tuple(sorted(run, key=lambda x: CELL_NAMES[x])))
    return sorted(found)


#: every segment a take may use, its cells in name order (145 on a 5×5 board)
SEGMENTS: tuple[tuple[int, ...], ...] = tuple(_segments())


def segment_text(cells: tuple[int, ...]) -> str:
    return " ".join(CELL_NAMES[c] for c in cells)


def render_board(board: list[int], letters: tuple[str, ...]) -> list[str]:
    """Rows of the board as text lines, row 1 first ('.' = empty)."""
    lines = ["   " + " ".join(COLUMN_LETTERS)]
    for row in range(SIZE):
        cells = board[row * SIZE : (row + 1) * SIZE]
        lines.append(f"{row + 1}  " + " ".join(letters[t] if t >= 0 else "." for t in cells))
    return lines
