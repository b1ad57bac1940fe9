"""``tokaido serve``'s application, through Starlette's test client (the page in a real
browser: test_browser.py): the wire format both ways, refusals, a reloaded page."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from tokaido_rules import new_game
from tokaido_rules.cli import main
from tokaido_rules.web import Table, create_app
from tokaido_rules.wire import decode_action, decode_view


def client(players: int = 3, seed: int = 5, seat: int = 1) -> tuple[TestClient, Table]:
    game = new_game(players, seed=seed, plugins=["base", "crossroads"])
    table = Table(game, seat, ["random"], seed)
    return TestClient(create_app(table, animate_ms=0), base_url="http://127.0.0.1"), table


def test_the_page_and_the_view() -> None:
    """The page is served; the view is the person's, in the wire format, with the
    actions to choose from; nothing is played until the person decides."""
    c, table = client()
    page = c.get("/")
    assert page.status_code == 200 and "api/action" in page.text
    doc = c.get("/api/view").json()
    assert doc["seat"] == 1 and doc["seq"] == table.game.state.seq
    assert table.game.current_player == 1
    view = decode_view(doc["view"], table.game.ruleset)
    assert view.seat == 1 and view.legal_actions
    assert [a["action"] for a in doc["actions"]] == doc["view"]["legal_actions"]
    assert doc["svg"].startswith("<svg") and "as seat 1 sees it" in doc["svg"]
    assert doc["steps"] == [] and doc["lines"] == []
    first = c.get("/api/view?since=0").json()
    assert first["lines"] and first["lines"][0]["seq"] == 0
    assert c.get("/api/view?since=x").status_code == 400
    rebound = TestClient(create_app(table), base_url="http://evil.example")
    assert rebound.get("/api/view").status_code == 400  # another site's name for 127.0.0.1


def test_refusals_leave_the_game_untouched() -> None:
    """Malformed actions (400), another seat's (403), a stale seq (409) and a wrong
    content type (415) are refused with a JSON error, and nothing changes."""
    c, table = client()
    doc = c.get("/api/view").json()
    action = doc["actions"][0]["action"]
    seq = doc["seq"]
    before = table.game

    def post(body: Any, **kw: Any) -> Any:
        return c.post("/api/action", json=body, **kw)

    for body, status in [
        ({"action": action}, 400),
        ({"action": {**action, "seat": "1"}, "expected_seq": seq}, 400),
        ({"action": {"type": "no.such"}, "expected_seq": seq}, 400),
        ({"action": {**action, "seat": 0}, "expected_seq": seq}, 403),
        ({"action": action, "expected_seq": seq - 1}, 409),
        ({"action": action, "expected_seq": True}, 400),
    ]:
        answer = post(body)
        assert answer.status_code == status, (body, answer.text)
        assert "error" in answer.json()
    assert c.post("/api/action", content=b"{", headers={
        "content-type": "application/json"}).status_code == 400
    assert c.post("/api/action", content=b"{}", headers={
        "content-type": "text/plain"}).status_code == 415
    assert table.game is before


def test_a_whole_game_over_http() -> None:
    """Choosing legal actions until the end: the bots play between the person's turns,
    the steps since the action come back in words, a reload gets the same view, and
    the scores come at the end."""
    c, table = client(players=3, seed=8, seat=0)
    doc = c.get("/api/view").json()
    turns = 0
    while not doc["over"]:
        assert turns < 500
        choice = doc["actions"][turns % len(doc["actions"])]["action"]
        decode_action(choice, table.game.ruleset)
        answer = c.post("/api/action", json={"action": choice, "expected_seq": doc["seq"]})
        assert answer.status_code == 200, answer.text
        new = answer.json()
        assert new["steps"] and all(s["seq"] > doc["seq"] for s in new["steps"])
        assert {line["seq"] for line in new["lines"]} == set(range(doc["seq"], new["seq"]))
        reloaded = c.get("/api/view").json()
        assert reloaded["view"] == new["view"] and reloaded["seq"] == new["seq"]
        doc = new
        turns += 1
    assert doc["actions"] == []
    assert {s["seat"]: s["total"] for s in doc["scores"]} == {
        s.seat: s.total for s in table.game.scores()}
    assert doc["steps"][-1]["words"].startswith("end of the journey")


def test_serve_command_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """Bad arguments are one error line and status 2, before anything listens."""
    for args in (["--bots", "nobody"], ["--human", "7"], ["--port", "0"],
                 ["--plugins", "no-such-plugin"]):
        assert main(["serve", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err


def test_serve_command_listens_on_this_machine_only(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """tokaido serve builds the game and its server and binds 127.0.0.1 unless told
    otherwise (uvicorn.run is replaced: nothing listens here)."""
    import uvicorn

    calls: list[dict[str, Any]] = []

    def run(app: Any, **kw: Any) -> None:
        calls.append({"app": app, **kw})

    monkeypatch.setattr(uvicorn, "run", run)
    assert main(["serve", "--players", "3", "--seed", "4", "--port", "8123",
                 "--plugins", "base,crossroads", "--bots", "random"]) == 0
    assert calls[0]["host"] == "127.0.0.1" and calls[0]["port"] == 8123
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    page = TestClient(calls[0]["app"], base_url="http://localhost").get("/api/view")
    assert page.status_code == 200 and page.json()["seat"] == 0
