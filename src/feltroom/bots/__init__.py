"""Network bots and the protocol client (layer ``bots``): programs that play the room over its
public protocol (docs/protocol.md) exactly as any other client does.

``feltroom.bots.client`` is the reusable asyncio client (HTTP accounts, the websocket, a small
client-side table state); ``feltroom.bots.runner`` runs a team of bot players with the strategy
layer's brains (``feltroom bots``).
"""

from feltroom.bots.client import (
    Client,
    ClientError,
    ConnectionLost,
    HttpError,
    RequestRefused,
    RequestTimeout,
    SeatState,
    TableState,
    endpoints,
)

__all__ = [
    "Client",
    "ClientError",
    "ConnectionLost",
    "HttpError",
    "RequestRefused",
    "RequestTimeout",
    "SeatState",
    "TableState",
    "endpoints",
]
