"""Behind a reverse proxy: the client's address is the one the trusted proxy forwards
(``--forwarded-allow-ips``), so the limits by address count real clients, not the
proxy; and the invitations' links start with ``--public-url``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tokaido_rules.tables import Lobby
from tokaido_rules.web import _proxies, bind, make_server


def _create(url: str, forwarded: str | None) -> tuple[int, Any]:
    request = urllib.request.Request(url + "/api/tables", data=json.dumps(
        {"players": 2, "seat": 0, "invite": True}).encode())
    request.add_header("Content-Type", "application/json")
    if forwarded:
        request.add_header("X-Forwarded-For", forwarded)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def proxied() -> Iterator[str]:
    """A server that trusts 127.0.0.1 as its proxy, one table a minute per client, its
    public address https://tokaido.example.org."""
    running = make_server(Lobby(), bind("127.0.0.1", 0), animate_ms=0,
                          creates_per_minute=1, forwarded_allow_ips="127.0.0.1",
                          public_url="https://tokaido.example.org/").start()
    try:
        yield running.url
    finally:
        running.stop()


def test_the_limits_count_the_clients_a_trusted_proxy_forwards(proxied: str) -> None:
    """One table a minute per client: two clients behind the proxy make one each, and
    the first is refused a second (429): the proxy's own address is not the count."""
    assert _create(proxied, "203.0.113.5")[0] == 201
    assert _create(proxied, "198.51.100.7")[0] == 201
    status, refused = _create(proxied, "203.0.113.5")
    assert status == 429 and "a minute" in refused["error"]


def test_invitation_links_start_with_the_public_url(proxied: str) -> None:
    status, made = _create(proxied, "192.0.2.1")
    assert status == 201
    request = urllib.request.Request(f"{proxied}/api/tables/{made['table']}/invites")
    request.add_header("Authorization", f"Bearer {made['host_token']}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        invites = json.loads(answer.read())
    assert invites["links"] == {
        "1": f"https://tokaido.example.org/t/{made['table']}#seat=1&invite="
             + invites["invites"]["1"]}


def test_which_addresses_are_trusted_proxies() -> None:
    trusted = _proxies("10.0.0.0/8, 192.0.2.1")
    assert trusted("10.1.2.3") and trusted("192.0.2.1")
    assert not trusted("192.0.2.2") and not trusted("not an address")
    assert _proxies("*")("198.51.100.1")
    assert not _proxies(None)("127.0.0.1")
