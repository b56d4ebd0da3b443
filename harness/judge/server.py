"""Serving the judging page: loopback by default, a printed URL, and a clean stop on Ctrl-C.

The socket is bound here (so ``--port 0`` can pick a free port and the printed URL is the real
one) and handed to uvicorn. A non-loopback address is refused unless ``allow_remote`` is given:
the page writes files on this machine and has no login. uvicorn stops on Ctrl-C (SIGINT) after
the requests under way have finished, and every judgment is on disk before its request answers,
so stopping loses nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import sys

from harness import lazy
from harness.errors import DataError
from harness.judge.app import create_app

uvicorn = lazy.module("uvicorn")

__all__ = ["check_host", "bind", "serve"]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback address unless told (``--allow-remote``)."""
    if not _is_loopback(host) and not allow_remote:
        raise DataError(
            "--host",
            f"{host!r} is not a loopback address: the judging page would be reachable from other "
            "machines, with no login, and writes your qrels file. Use 127.0.0.1 (the default), or "
            "add --allow-remote if that is what you want",
        )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); a clear error when the port is taken."""
    if host == "localhost":
        host = "127.0.0.1"
    bare = host.strip("[]")
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(bare).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError as e:
        sock.close()
        raise DataError("--port", f"cannot listen on {host}:{port}: {e.strerror}; choose another --port") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _url_host(host: str) -> str:
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def serve(session, store, host: str = "127.0.0.1", port: int = 8765, allow_remote: bool = False, out=None) -> int:
    """Serve until Ctrl-C. Prints the URL (flushed) once the socket listens."""
    out = out or sys.stdout
    check_host(host, allow_remote)
    sock = bind(host, port)
    port = sock.getsockname()[1]
    names = {_url_host(host)}
    if _is_loopback(host):
        names |= {"127.0.0.1", "localhost", "[::1]"} if ":" not in host else {"[::1]", "localhost"}
    hosts = {f"{n}:{port}" for n in names}
    origins = {f"http://{h}" for h in hosts}
    app = create_app(session, store, hosts, origins)
    url = f"http://{_url_host('127.0.0.1' if host == 'localhost' else host)}:{port}/"
    print(f"judging page: {url}  (judgments go to {store.path}; Ctrl-C stops)", file=out, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled, after its graceful shutdown
        pass
    print(
        f"stopped; {sum(len(j) for j in store.judgments().values())} judgment(s) in {store.path}", file=out, flush=True
    )
    return 0
