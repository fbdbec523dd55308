"""Draw the web app's icons (src/feltroom/server/static/icon-*.png): a felt-green square with
a white card and a spade, written as plain PNG (zlib, no imaging library). Run it again after
changing the drawing: ``python scripts/icons.py``."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "src" / "feltroom" / "server" / "static"
FELT = (21, 94, 58)
CARD = (247, 244, 236)
INK = (24, 24, 24)


def _inside_spade(x: float, y: float) -> bool:
    """The spade in a unit square: two lobes, a point on top and a stem."""
    lobe = 0.19
    left = (x - 0.31) ** 2 + (y - 0.58) ** 2 <= lobe**2
    right = (x - 0.69) ** 2 + (y - 0.58) ** 2 <= lobe**2
    top = 0.0 <= y <= 0.62 and abs(x - 0.5) <= y * 0.72
    stem = 0.6 <= y <= 1.0 and abs(x - 0.5) <= 0.03 + (y - 0.6) * 0.3
    return left or right or top or stem


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) of the unit square: the felt, the card on it, the spade on the card."""
    card = 0.2 <= x <= 0.8 and 0.12 <= y <= 0.88
    if not card:
        return FELT
    sx, sy = (x - 0.3) / 0.4, (y - 0.3) / 0.4  # the spade in the card's middle
    return INK if 0 <= sx <= 1 and 0 <= sy <= 1 and _inside_spade(sx, sy) else CARD


def png(size: int) -> bytes:
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel((i + 0.5) / size, (j + 0.5) / size)) for i in range(size))
        for j in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    for size in (192, 512):
        (STATIC / f"icon-{size}.png").write_bytes(png(size))
