"""The server (layer ``server``): the ASGI application behind ``feltroom serve``.

``create_app(runtime)`` serves the status page and ``GET /api/lobby`` for a running
``feltroom.room.runtime.RoomRuntime``; the next issue adds the protocol. The composition root that
wires a store into the room and the room into this application is ``feltroom.cli``.
"""

from feltroom.server.app import create_app, serve

__all__ = ["create_app", "serve"]
