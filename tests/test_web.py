"""``tokaido serve``'s application through Starlette's test client: tables and seats with
tokens, spectators, updates since a seq, refusals, persistence (the real server, its
limits and kill -9: test_serve.py; the pages in a real browser: test_browser.py)."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tokaido_rules import load_log, verify_log
from tokaido_rules.log import load_seat_copy
from tokaido_rules.store import StoreError, TableStore
from tokaido_rules.tables import PICTURES_KEPT, Lobby
from tokaido_rules.viewer import step_words
from tokaido_rules.web import GZIP_FROM, MAX_BODY, create_app
from tokaido_rules.wire import decode_view, encode_action


class Seats:
    """A test client on a lobby, with the tokens of the seats it joined."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
        self.tokens: dict[int, str] = {}
        self.table = ""
        self.host = ""

    def create(self, players: int = 3, bots: dict[str, str] | None = None,
               plugins: tuple[str, ...] = ("base",)) -> dict[str, Any]:
        r = self.http.post("/api/tables", json={"players": players, "plugins": list(plugins),
                                                 "bots": bots or {}})
        assert r.status_code == 201, r.text
        doc: dict[str, Any] = r.json()
        self.table, self.host = doc["table"], doc["host_token"]
        return doc

    def join(self, seat: int) -> str:
        r = self.http.post(f"/api/tables/{self.table}/join", json={"seat": seat})
        assert r.status_code == 201, r.text
        self.tokens[seat] = r.json()["token"]
        return self.tokens[seat]

    def auth(self, seat: int | None) -> dict[str, str]:
        return {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}

    def doc(self, seat: int | None, since: int | None = None) -> dict[str, Any]:
        query = "" if since is None else f"?since={since}"
        r = self.http.get(f"/api/tables/{self.table}{query}", headers=self.auth(seat))
        assert r.status_code == 200, r.text
        return dict(r.json())

    def act(self, seat: int, action: Any, seq: int) -> Any:
        return self.http.post(f"/api/tables/{self.table}/action", headers=self.auth(seat),
                              json={"action": action, "expected_seq": seq})

    def play(self, decisions: int, choose: int = 0) -> None:
        """Play ``decisions`` decisions of the joined seats (bots play theirs)."""
        for _ in range(decisions):
            game = self.lobby.get(self.table).game
            if game.is_over:
                return
            seat = game.current_player
            assert seat in self.tokens
            d = self.doc(seat)
            choice = d["actions"][choose % len(d["actions"])]["action"]
            assert self.act(seat, choice, d["seq"]).status_code == 200


def test_a_table_has_open_seats_and_bots_and_waits_for_a_person() -> None:
    """A new table lists its seats (open, or the bot that plays it); the bots play the
    decisions before a person's, and who played each is recorded."""
    c = Seats(Lobby())
    doc = c.create(4, {"1": "random", "3": "greedy"})
    assert [(s["seat"], s["kind"], s["bot"]) for s in doc["seats"]] == [
        (0, "open", None), (1, "bot", "random"), (2, "open", None), (3, "bot", "greedy")]
    table = c.lobby.get(c.table)
    assert table.game.current_player in (0, 2)
    listed = c.http.get("/api/tables").json()
    assert [t["table"] for t in listed["tables"]] == [c.table] and "base" in listed["plugins"]
    by = {d.seat: d.played_by for d in table.decisions()}
    assert set(by) <= {1, 3} and set(by.values()) <= {"bot:random", "bot:greedy"}


def test_joining_a_seat_gives_its_secret_token_once() -> None:
    """Joining an open seat answers a fresh, unguessable token; the seat is then taken
    (409), a bot's seat cannot be joined, and the server keeps only the token's hash."""
    c = Seats(Lobby(TableStore(":memory:")))
    c.create(3, {"2": "random"})
    token = c.join(0)
    assert len(token) >= 40 and token != c.join(1)
    for seat, status in [(0, 409), (2, 409), (3, 400), ("0", 400)]:
        r = c.http.post(f"/api/tables/{c.table}/join", json={"seat": seat})
        assert r.status_code == status, (seat, r.text)
        assert set(r.json()) == {"error"}
    stored = c.lobby.store.tables()[0].seats  # type: ignore[union-attr]
    assert token not in repr(stored) and stored[0].token_hash


def test_every_seat_request_needs_the_seats_token() -> None:
    """An action without a token, with a wrong one, with another seat's or the host's
    is refused (403) and changes nothing; a wrong token cannot read a view either."""
    c = Seats(Lobby())
    c.create(3, {"2": "random"})
    c.join(0)
    c.join(1)
    game = c.lobby.get(c.table).game
    seat = game.current_player
    assert seat in (0, 1)
    d = c.doc(seat)
    action, seq = d["actions"][0]["action"], d["seq"]
    other = 1 - seat
    url = f"/api/tables/{c.table}/action"
    body = {"action": action, "expected_seq": seq}
    for headers in [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic x"},
                    c.auth(other), {"Authorization": f"Bearer {c.host}"}]:
        r = c.http.post(url, json=body, headers=headers)
        assert r.status_code == 403, headers
    assert c.lobby.get(c.table).game is game
    assert c.http.get(f"/api/tables/{c.table}",
                      headers={"Authorization": "Bearer nope"}).status_code == 403
    assert c.act(seat, action, seq).status_code == 200


def test_refusals_are_4xx_with_one_line_and_leave_the_game_untouched() -> None:
    """Malformed, illegal, stale, oversized, non-JSON and non-text bodies are refused
    with a one-line JSON error, and the game stays as it was."""
    c = Seats(Lobby())
    c.create(2)
    c.join(0)
    c.join(1)
    seat = c.lobby.get(c.table).game.current_player
    assert seat is not None
    d = c.doc(seat)
    action, seq = d["actions"][0]["action"], d["seq"]
    before = c.lobby.get(c.table).game
    url = f"/api/tables/{c.table}/action"
    headers = c.auth(seat)
    cases: list[tuple[dict[str, Any], int]] = [
        ({"json": {"action": action}}, 400),
        ({"json": {"action": {**action, "seat": str(seat)}, "expected_seq": seq}}, 400),
        ({"json": {"action": {"type": "no.such"}, "expected_seq": seq}}, 400),
        ({"json": {"action": {**action, "seat": 1 - seat}, "expected_seq": seq}}, 403),
        ({"json": {"action": action, "expected_seq": seq - 1}}, 409),
        ({"json": {"action": action, "expected_seq": 1.5}}, 400),
        ({"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 400),
        ({"content": b'{"action": "\\ud800", "expected_seq": 1}',
          "headers": {"Content-Type": "application/json"}}, 400),
        ({"content": b"\xff\xfe", "headers": {"Content-Type": "application/json"}}, 400),
        ({"content": json.dumps({"action": action, "expected_seq": seq}).encode(),
          "headers": {"Content-Type": "text/plain"}}, 415),
        ({"content": b"[" * (MAX_BODY + 1), "headers": {"Content-Type": "application/json"}},
         413),
    ]
    for kwargs, status in cases:
        extra = kwargs.pop("headers", {})
        r = c.http.post(url, headers={**headers, **extra}, **kwargs)
        assert r.status_code == status, (kwargs, r.text)
        error = r.json()["error"]
        assert isinstance(error, str) and "\n" not in error
        assert c.lobby.get(c.table).game is before
    for path, status in [("/api/tables/nope", 404), (f"/api/tables/{c.table}?since=x", 400),
                         (f"/api/tables/{c.table}?wait=-1", 400), ("/nowhere", 404),
                         ("/t/nope", 404)]:
        r = c.http.get(path)
        assert r.status_code == status, path
        assert "error" in r.json()
    assert c.http.delete(url).status_code == 405
    assert c.http.post("/api/tables", json={"players": 9}).status_code == 400
    assert c.http.post("/api/tables", json={"players": 3, "plugins": ["no-such"]}
                       ).status_code == 400
    assert c.http.post("/api/tables", json={"players": 3, "bots": {"7": "greedy"}}
                       ).status_code == 400
    rebound = TestClient(create_app(c.lobby), base_url="http://evil.example")
    assert rebound.get("/api/tables").status_code == 400  # another site's name for 127.0.0.1


def test_updates_since_a_seq_hold_only_what_came_after() -> None:
    """Asked with ``since``, a seat is sent its copy's lines from that seq on and the
    steps after it, in words: the same words as its whole copy read at once."""
    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "greedy"})
    c.join(0)
    first = c.doc(0)
    assert first["lines"] == [] and first["steps"] == []
    c.play(6)
    now = c.doc(0, since=first["seq"])
    assert now["lines"] and all(line["seq"] >= first["seq"] for line in now["lines"])
    assert [line["seq"] for line in now["lines"]] == list(range(first["seq"], now["seq"]))
    game = c.lobby.get(c.table).game
    from tokaido_rules import dump_log

    told = step_words(load_seat_copy(dump_log(game, viewer=0)))
    assert [(s["seq"], s["words"]) for s in now["steps"]] == [
        (end, words) for end, words in told if end > first["seq"]]
    assert now["steps"][-2]["svg"].startswith("<svg")  # recent steps keep a picture
    assert now["steps"][0]["svg"] is None or len(now["steps"]) <= PICTURES_KEPT
    assert now["steps"][-1]["svg"] is None  # the picture of now is "svg", sent once
    assert c.doc(0, since=now["seq"])["lines"] == []
    whole = c.doc(0, since=0)
    assert [line["seq"] for line in whole["lines"]] == list(range(now["seq"]))
    # a first request tells the story at once: the picture of now, none per step
    assert whole["steps"] and all(s["svg"] is None for s in whole["steps"])
    assert whole["svg"].startswith("<svg")


def test_answers_are_gzipped_when_asked() -> None:
    """A client that accepts gzip gets the document compressed."""
    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "random"})
    c.join(0)
    r = c.http.get(f"/api/tables/{c.table}?since=0",
                   headers={**c.auth(0), "Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"
    assert int(r.headers["content-length"]) < len(r.content) / 3
    assert json.loads(r.content)["seat"] == 0
    assert gzip.compress(r.content)  # the client decoded it


def test_only_answers_long_enough_to_pay_are_gzipped() -> None:
    """An answer of GZIP_FROM bytes or more is gzipped for a client that accepts gzip;
    a shorter one (a move's answer, an update of a few kB) is sent as it is."""
    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "random"})
    c.join(0)
    c.play(12)
    seq = c.doc(0)["seq"]
    sizes = []
    for since in range(seq + 1):
        r = c.http.get(f"/api/tables/{c.table}?since={since}&form=update",
                       headers={**c.auth(0), "Accept-Encoding": "gzip"})
        assert r.status_code == 200
        gzipped = r.headers.get("content-encoding") == "gzip"
        assert gzipped == (len(r.content) >= GZIP_FROM), (since, len(r.content))
        sizes.append(len(r.content))
    # both kinds were asked: the first update is long, and a few kB are sent as they are
    assert max(sizes) >= GZIP_FROM
    assert any(1400 <= n < GZIP_FROM for n in sizes)


def test_a_spectator_sees_the_public_view_and_no_actions() -> None:
    """Without a token the table answers its public view: no seat, no actions, none of
    the cards any one seat sees alone, and the public copy's lines."""
    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "random"})
    c.join(0)
    c.play(4)
    game = c.lobby.get(c.table).game
    d = c.doc(None, since=0)
    assert d["seat"] is None and d["actions"] == []
    view = decode_view(d["view"], game.ruleset)
    assert view == game.public_view()
    text = json.dumps(d)
    public = {card for cards in view.zones.values() for card in cards}
    for seat in range(3):
        own = game.view(seat)
        secret = {card for zone, cards in own.zones.items() if zone not in view.zones
                  for card in cards} - public  # a card of two copies may be public too
        assert not [card for card in secret if f'"{card}"' in text], seat
    assert str(game.seed) not in text


def test_a_seats_scene_is_its_pictures_data_and_board_js_draws_it() -> None:
    """``GET /api/tables/ID/scene`` answers the scene of the seat's picture (the public
    one without a token), valid against the wire format's schema, as the seat's view
    draws it: the seat's own cards named, no other seat's, none at all for a
    spectator; an old seq no longer kept is a 404. ``/board.js`` is served, cached for
    good at the address the table page names."""
    from jsonschema import Draft202012Validator

    from tokaido_rules import schemas
    from tokaido_rules.render import scene_json

    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "random"})
    c.join(0)
    c.play(6)
    game = c.lobby.get(c.table).game
    check = Draft202012Validator({**schemas(game.ruleset), "$ref": "#/$defs/scene"})
    mine = c.http.get(f"/api/tables/{c.table}/scene", headers=c.auth(0))
    assert mine.status_code == 200 and mine.headers["cache-control"] == "no-store"
    check.validate(mine.json())
    assert mine.json() == scene_json(game.view(0))
    assert [p.get("cards") is not None for p in mine.json()["pieces"]] == [
        p.seat == 0 for p in game.state.pieces]
    public = c.http.get(f"/api/tables/{c.table}/scene?seq={game.state.seq}")
    assert public.json() == scene_json(game.public_view())
    assert public.json()["spectator"] and all("cards" not in p
                                              for p in public.json()["pieces"])
    check.validate(public.json())
    assert c.http.get(f"/api/tables/{c.table}/scene?seq=0").status_code == 404
    assert c.http.get(f"/api/tables/{c.table}/scene?seq=x").status_code == 400
    assert c.http.get(f"/api/tables/{c.table}/scene",
                      headers={"Authorization": "Bearer nobody"}).status_code == 403
    page = c.http.get(f"/t/{c.table}").text
    address = re.search(r'<script src="(/board\.js\?v=[0-9a-f]+)"></script>', page)
    assert address is not None
    script = c.http.get(address.group(1))
    assert script.status_code == 200 and "TokaidoBoard" in script.text
    assert script.headers["content-type"].startswith("text/javascript")
    assert "immutable" in script.headers["cache-control"]
    again = c.http.get("/board.js", headers={"If-None-Match": script.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"


def test_a_seat_handed_to_a_bot_is_played_by_it_and_recorded() -> None:
    """The seat's player (or the host) hands it to a bot: the bot plays its decisions
    from then on, the record says who played each, and the token still reads the seat's
    view but can no longer act."""
    c = Seats(Lobby())
    c.create(2)
    c.join(0)
    c.join(1)
    c.play(4)
    url = f"/api/tables/{c.table}/seats/1/bot"
    assert c.http.post(url, json={"bot": "greedy"}).status_code == 403
    assert c.http.post(url, json={"bot": "greedy"}, headers=c.auth(0)).status_code == 403
    assert c.http.post(url, json={"bot": "nobody"}, headers=c.auth(1)).status_code == 400
    handed_at = c.lobby.get(c.table).game.state.seq
    assert c.http.post(url, json={"bot": "greedy"}, headers=c.auth(1)).status_code == 200
    assert c.http.post(url, json={"bot": "greedy"},
                       headers={"Authorization": f"Bearer {c.host}"}).status_code == 409
    table = c.lobby.get(c.table)
    for _ in range(12):
        c.play(1)
    d = c.doc(1)
    assert d["actions"] == [] and d["seats"][1] == {"seat": 1, "kind": "bot", "bot": "greedy",
                                                      "traveller": d["seats"][1]["traveller"]}
    decisions = c.http.get(f"/api/tables/{c.table}/decisions").json()["decisions"]
    assert {x["played_by"] for x in decisions if x["seat"] == 1 and x["seq"] >= handed_at} \
        == {"bot:greedy"}
    assert {x["played_by"] for x in decisions if x["seat"] == 1 and x["seq"] < handed_at} \
        <= {"human"}
    assert [x["seq"] for x in decisions] == sorted(x["seq"] for x in decisions)
    assert len(decisions) == len(table.decisions())


def test_the_log_download_is_the_seats_copy_then_the_full_log() -> None:
    """While the game goes on, a seat downloads its copy and a spectator the public
    copy; once it is over, the full log, which verifies."""
    c = Seats(Lobby())
    c.create(2, {"1": "random"})
    c.join(0)
    c.play(3)
    url = f"/api/tables/{c.table}/log"
    mine = c.http.get(url, headers=c.auth(0))
    assert 'filename="tokaido-' in mine.headers["content-disposition"]
    assert load_seat_copy(mine.text).viewer == 0
    public = c.http.get(url)
    assert json.loads(public.text.splitlines()[0])["viewer"] == "public"
    with pytest.raises(Exception, match="seat"):
        load_log(public.text)
    c.play(500)
    full = c.http.get(url).text
    assert load_log(full).is_over and verify_log(full).ok


def test_a_restarted_lobby_resumes_every_table(tmp_path: Path) -> None:
    """A new lobby on the same database resumes each table at the seq it had, with its
    seats, tokens and record of who played; play then goes on to the end, and the full
    log verifies."""
    path = tmp_path / "tables.db"
    c = Seats(Lobby(TableStore(path)))
    c.create(3, {"2": "random"})
    c.join(0)
    c.join(1)
    c.play(7)
    other = Seats(c.lobby)
    other.create(2, {"0": "greedy", "1": "random"})  # bots only: played out at once
    before = {t.id: (t.game.state, t.seats, t.decisions()) for t in c.lobby.tables()}
    c.lobby.store.close()  # type: ignore[union-attr]
    again = Lobby(TableStore(path))
    assert {t.id: (t.game.state, t.seats, t.decisions()) for t in again.tables()} == before
    assert again.get(other.table).game.is_over
    c.lobby = again
    c.http = TestClient(create_app(again, animate_ms=0), base_url="http://127.0.0.1")
    c.play(1000)
    assert again.get(c.table).game.is_over
    assert verify_log(c.http.get(f"/api/tables/{c.table}/log").text).ok


def test_the_store_refuses_a_database_that_is_not_its_own(tmp_path: Path) -> None:
    """A file that is no database, or a database of another program, is a StoreError
    naming it."""
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"junk\.db"):
        TableStore(junk)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(StoreError, match="not a tokaido-rules database"):
        TableStore(foreign)


# --- kept alive, or not: bots left to play, expiry, deletion ----------------------


def test_a_bot_move_that_fails_is_played_at_the_next_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault while the bots play (here their move itself fails, once) leaves the
    table waiting on a bot; the lobby's next round of play_bots, which the server's
    keeper runs every few seconds without any request, plays it, and the stored log is
    the game's."""
    import tokaido_rules.tables as tables
    from tokaido_rules import bots

    store = TableStore(":memory:")
    lobby = Lobby(store)
    table, _ = lobby.create(3, bots={"1": "random", "2": "random"}, seed=5)
    table.join(0)
    real = bots.next_action
    faults = [RuntimeError("the disk is full")]

    def failing(bot: Any, game: Any, *name: Any) -> Any:
        if faults:
            raise faults.pop()
        return real(bot, game, *name)

    monkeypatch.setattr(tables, "next_action", failing)
    view = table.game.view(0)
    with pytest.raises(RuntimeError):
        table.act(0, {"action": encode_action(view.legal_actions[0]),
                      "expected_seq": table.game.state.seq})
    assert table.waits_on_bot
    assert lobby.play_bots() == {}
    assert not table.waits_on_bot and table.game.current_player == 0
    stored = load_log("".join(line + "\n" for line in [table.record.header,
                                                       *store.lines(table.id)]))
    assert stored.events == table.game.events


def test_tables_expire_after_their_time_and_the_clocks_survive_a_restart(
        tmp_path: Path) -> None:
    """expire(finished, abandoned, now): a finished table after ``finished`` seconds of
    no activity, an unfinished one after ``abandoned``; a table with a seat's request
    under way never; 0 never. The activity is stored (save_activity), so a new lobby on
    the same database expires by the same clocks."""
    db = tmp_path / "t.db"
    lobby = Lobby(TableStore(db))
    over, _ = lobby.create(2, bots={"0": "random", "1": "random"}, seed=1)
    idle, _ = lobby.create(2, seed=2)
    busy, _ = lobby.create(2, seed=3)
    assert over.game.is_over
    start = max(t.active for t in lobby.tables())
    busy.touch(start + 500)
    lobby.save_activity()
    again = Lobby(TableStore(db))
    assert again.expire(0, 0, now=start + 10_000) == []
    assert again.expire(100, 1000, now=start + 200) == [over.id]
    again.get(idle.id).connected = 1  # a seat's page is waiting on it
    assert again.expire(100, 1000, now=start + 1200) == []
    again.get(idle.id).connected = 0
    assert again.expire(100, 1000, now=start + 1200) == [idle.id]
    assert again.expire(100, 1000, now=start + 1499) == []
    assert again.expire(100, 1000, now=start + 1500) == [busy.id]
    assert again.tables() == [] and TableStore(db).tables() == []


def test_the_host_deletes_the_table() -> None:
    """DELETE /api/tables/ID: the host's token only (a seat's, or none: 403), then the
    table is gone (404), in memory and in the store."""
    store = TableStore(":memory:")
    c = Seats(Lobby(store))
    c.create(2)
    c.join(0)
    url = f"/api/tables/{c.table}"
    assert c.http.delete(url).status_code == 403
    assert c.http.delete(url, headers=c.auth(0)).status_code == 403
    r = c.http.delete(url, headers={"Authorization": f"Bearer {c.host}"})
    assert r.status_code == 200 and r.json() == {"table": c.table, "deleted": True}
    assert c.http.get(url).status_code == 404
    assert store.tables() == [] and store.lines(c.table) == []


def _secrets_of_others(game: Any, seat: int | None) -> set[str]:
    """The cards another seat sees that ``seat`` (``None``: a spectator) may not."""
    mine = game.public_view() if seat is None else game.view(seat)
    known = {card for cards in mine.zones.values() for card in cards}
    out: set[str] = set()
    for other in range(game.state.players):
        if other == seat:
            continue
        own = game.view(other)
        out |= {card for zone, cards in own.zones.items() if zone not in mine.zones
                for card in cards} - known
    return out


def test_updates_tell_each_audience_only_what_it_may_see_and_its_own_actions() -> None:
    """An update (``form=update``: what is new since a seq), to each seat and to a
    spectator, holds the actions of that seat's view only (none for a spectator or a
    seat not to decide), no card another seat sees alone, and the same seq, lines and
    steps as the document of that audience; a move's update answer carries its seq."""
    c = Seats(Lobby())
    c.create(3)
    for seat in range(3):
        c.join(seat)
    c.play(5)
    game = c.lobby.get(c.table).game
    for audience in (0, 1, 2, None):
        r = c.http.get(f"/api/tables/{c.table}?since=0&form=update", headers=c.auth(audience))
        assert r.status_code == 200, r.text
        update, doc = r.json(), c.doc(audience, since=0)
        assert update["form"] == "update" and update["seat"] == audience
        assert (update["seq"], update["over"], update["current_player"]) == (
            doc["seq"], doc["over"], doc["current_player"])
        assert update["lines"] == doc["lines"]
        assert [(s["seq"], s["words"]) for s in update["steps"]] == [
            (s["seq"], s["words"]) for s in doc["steps"]]
        legal = [] if audience is None or audience != game.current_player else \
            [encode_action(a) for a in game.view(audience).legal_actions]
        assert [a["action"] for a in update["actions"]] == legal
        text = r.text
        assert not [card for card in _secrets_of_others(game, audience) if f'"{card}"' in text]
        assert str(game.seed) not in text and "svg" not in update and "view" not in update
    mover = game.current_player
    assert mover is not None
    update = c.http.get(f"/api/tables/{c.table}?since=0&form=update",
                        headers=c.auth(mover)).json()
    r = c.http.post(f"/api/tables/{c.table}/action?form=update", headers=c.auth(mover),
                    json={"action": update["actions"][0]["action"],
                          "expected_seq": update["seq"]})
    assert r.status_code == 200, r.text
    moved = r.json()
    assert moved["form"] == "update" and moved["seq"] > update["seq"]
    assert moved["since"] == update["seq"] and moved["lines"]
    assert all(line["seq"] >= update["seq"] for line in moved["lines"])


def test_the_picture_is_the_audiences_own() -> None:
    """``/picture`` is the SVG of the token's seat (the public one without a token),
    the same as the document's; an unknown seq is a 404."""
    c = Seats(Lobby())
    c.create(3, {"1": "random", "2": "random"})
    c.join(0)
    for audience in (0, None):
        doc = c.doc(audience, since=0)
        r = c.http.get(f"/api/tables/{c.table}/picture?seq={doc['seq']}",
                       headers=c.auth(audience))
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg")
        assert r.text == doc["svg"]
    assert c.http.get(f"/api/tables/{c.table}/picture?seq=999").status_code == 404


def test_the_lobby_page_offers_every_registered_bot_by_name() -> None:
    """The seats' and the stand-in's bot choices are the registry's names (the ISMCTS
    ladder included), not a list kept in the page; a table with a ladder bot is made."""
    from tokaido_rules.bots import BOTS

    c = Seats(Lobby())
    page = c.http.get("/").text
    offered = json.loads(re.search(r"var BOTS = (\[.*?\]);", page).group(1))  # type: ignore[union-attr]
    assert offered == list(BOTS)
    assert {"ismcts-fast", "ismcts", "ismcts-strong"} <= set(offered)
    made = c.http.post("/api/tables", json={"players": 3, "bots": {"1": "ismcts-fast"}})
    assert made.status_code == 201, made.text
    assert made.json()["seats"][1]["bot"] == "ismcts-fast"


def _patched(scene: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any]:
    """A scene with an update's patch applied, as the table page applies it."""
    if entry["base"] is None:
        return dict(entry["patch"])
    assert scene is not None
    out: dict[str, Any] = json.loads(json.dumps(scene))
    for path, value in entry["patch"].items():
        key, _, item = path.partition("/")
        if not item:
            out[key] = value
        elif isinstance(out[key], list):
            out[key][int(item)] = value
        else:
            out[key][item] = value
    return out


def test_updates_carry_each_audiences_scene_as_patches_of_the_one_before() -> None:
    """The scenes in the updates, applied one after the other from the first (whole)
    one, give each audience's scene of its own view at every seq it is told (a seat's,
    a spectator's), the steps' included; the chain starts at the client's ``since``;
    a push channel's update leaves out what did not change and keeps what must be in."""
    from tokaido_rules.render import scene_json

    c = Seats(Lobby())
    c.create(3, {"2": "random"})
    for seat in (0, 1):
        c.join(seat)
    table = c.lobby.get(c.table)
    kept: dict[int | None, tuple[int, dict[str, Any]]] = {}
    for audience in (0, 1, None):
        first = c.http.get(f"/api/tables/{c.table}?since=0&form=update",
                           headers=c.auth(audience)).json()
        assert [e["base"] for e in first["scenes"]] == [None]
        scene = _patched(None, first["scenes"][0])
        game = table.game
        assert scene == scene_json(game.public_view() if audience is None
                                   else game.view(audience))
        kept[audience] = (first["seq"], scene)
    for _ in range(12):
        c.play(1)
        game = table.game
        for audience in (0, 1, None):
            since, scene = kept[audience]
            update = c.http.get(f"/api/tables/{c.table}?since={since}&form=update",
                                headers=c.auth(audience)).json()
            bases = [e["base"] for e in update["scenes"]]
            assert bases == [since, *[e["seq"] for e in update["scenes"][:-1]]]
            assert update["scenes"][-1]["seq"] == update["seq"] == game.state.seq
            for entry in update["scenes"]:
                scene = _patched(scene, entry)
                at = table._recent[entry["seq"]]
                assert scene == scene_json(at.public_view() if audience is None
                                           else at.view(audience)), (audience, entry["seq"])
            kept[audience] = (update["seq"], scene)
    said: dict[str, str] = {}
    full = json.loads(table.update(0, 0, None, said))
    again = json.loads(table.update(0, full["seq"], None, said))
    assert {"seq", "over", "current_player", "seat", "actions", "takebacks",
            "clock", "lines", "steps", "scenes"} <= set(again)
    assert "seats" in full and "seats" not in again and "rules" not in again


@pytest.mark.parametrize(("plugins", "players", "seed"), [
    (("base",), 4, 3), (("base", "crossroads"), 3, 5), (("base", "new-encounters"), 4, 7),
    (("base", "pilgrim", "tea-ceremony"), 3, 2), (("base", "crossroads", "pilgrim"), 2, 9)])
def test_each_audiences_scene_is_its_own_views_at_every_seq(
        plugins: tuple[str, ...], players: int, seed: int) -> None:
    """Whatever a table shares between its audiences' scenes (the entries shown alike,
    their texts), each seat's scene and the spectators', patch after patch, is the
    scene of that audience's own view at every seq, made afresh from a game of its own
    (another ruleset: nothing of the table's shared): games with hidden cards, private
    draws and the plugins' notes, played to the end by every seat."""
    import random

    from tokaido_rules import Ruleset, new_game
    from tokaido_rules.render import scene_json
    from tokaido_rules.wire import encode_action

    lobby = Lobby()
    table, _ = lobby.create(players, list(plugins), seed=seed)
    for seat in range(players):
        table.join(seat)
    fresh = new_game(players, seed=table.game.seed, plugins=Ruleset.build(plugins, {}),
                     setup=table.game.state.rules.setup)
    rng = random.Random(seed)
    audiences: list[int | None] = [*range(players), None]
    kept: dict[int | None, tuple[int, dict[str, Any] | None]] = dict.fromkeys(
        audiences, (0, None))
    checked = 0
    while True:
        for audience in audiences:
            since, scene = kept[audience]
            update = json.loads(table.update(audience, since))
            for entry in update["scenes"]:
                scene = _patched(scene, entry)
            assert update["seq"] == fresh.state.seq
            assert scene == json.loads(json.dumps(scene_json(
                fresh.public_view() if audience is None else fresh.view(audience)))), (
                audience, update["seq"])
            kept[audience] = (update["seq"], scene)
            checked += 1
        if fresh.is_over:
            break
        mover = table.game.current_player
        assert mover is not None
        actions = table.game.view(mover).legal_actions
        action = actions[rng.randrange(len(actions))]
        table.act(mover, {"action": encode_action(action),
                         "expected_seq": table.game.state.seq})
        fresh = fresh.apply(action)
    assert checked > 20 * (players + 1)
