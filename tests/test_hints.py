"""Hints at the table (issue #42): a seat asks ``POST /api/tables/ID/hint`` at its own
decision and gets the analysis of that decision from its own view; the host turns
hints off (at creation, or later); a decision taken after a hint is recorded as such,
stored on both backends, and a database of layout 4 is migrated (the page in Chromium:
test_browser.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from starlette.testclient import TestClient

from tokaido_rules import Game, IllegalActionError, new_game
from tokaido_rules.analysis import hint
from tokaido_rules.cli import main
from tokaido_rules.events import decisions
from tokaido_rules.ruleset import Ruleset
from tokaido_rules.store import SCHEMA, TableRules, TableStore
from tokaido_rules.store_pg import PG_SCHEMA, open_store
from tokaido_rules.tables import Lobby, Table, TableError
from tokaido_rules.testing import twins
from tokaido_rules.web import create_app
from tokaido_rules.wire import encode_action

CHEAP = {"ismcts": {"iterations": 16}}
"""The hint bot's budget in these tests: a cheap search (the figures are its own)."""


class Client:
    """A test client on one table of a lobby, with the tokens of its seats."""

    def __init__(self, lobby: Lobby, players: int = 3, **rules: Any) -> None:
        self.lobby = lobby
        self.http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
        r = self.http.post("/api/tables", json={"players": players, "plugins": ["base"],
                                                **rules})
        assert r.status_code == 201, r.text
        self.created: dict[str, Any] = r.json()
        self.id, self.host = self.created["table"], self.created["host_token"]
        self.tokens = {s: self.http.post(f"/api/tables/{self.id}/join",
                                         json={"seat": s}).json()["token"]
                       for s in range(players)}

    @property
    def table(self) -> Table:
        return self.lobby.get(self.id)

    def auth(self, token: str | None) -> dict[str, str]:
        return {} if token is None else {"Authorization": f"Bearer {token}"}

    def hint(self, seat: int | None, token: str | None = None) -> Any:
        given = token if token is not None or seat is None else self.tokens[seat]
        return self.http.post(f"/api/tables/{self.id}/hint", headers=self.auth(given))

    def seat(self) -> int:
        seat = self.table.game.current_player
        assert seat is not None
        return seat

    def act(self, choose: int = 0) -> int:
        """Play the seat at hand's action ``choose``; the seq it was played at."""
        game = self.table.game
        seat, seq = self.seat(), game.state.seq
        actions = game.legal_actions()
        r = self.http.post(f"/api/tables/{self.id}/action", headers=self.auth(
            self.tokens[seat]), json={"action": encode_action(actions[choose % len(actions)]),
                                      "expected_seq": seq})
        assert r.status_code == 200, r.text
        return seq

    def decisions(self) -> list[dict[str, Any]]:
        return list(self.http.get(f"/api/tables/{self.id}/decisions").json()["decisions"])

    def document(self, seat: int | None = None) -> dict[str, Any]:
        token = None if seat is None else self.tokens[seat]
        return dict(self.http.get(f"/api/tables/{self.id}", headers=self.auth(token)).json())


def _to_a_choice(c: Client) -> None:
    """Play on until the decision at hand has more than one action."""
    while len(c.table.game.legal_actions()) < 2:
        c.act()


def test_the_hint_is_the_analysis_of_the_seats_own_view_and_the_same_when_asked_again(
        ) -> None:
    c = Client(Lobby(bot_options=CHEAP))
    _to_a_choice(c)
    seat, game = c.seat(), c.table.game
    r = c.hint(seat)
    assert r.status_code == 200, r.text
    found = r.json()
    expected = hint(game.view(seat), "ismcts", seed=game.seed,
                    options=CHEAP["ismcts"]).document()
    assert found == {**expected, "bot": "ismcts"}
    assert found["seq"] == game.state.seq and found["seat"] == seat
    assert len(found["actions"]) == len(game.legal_actions()) >= 2
    assert 0 <= found["best"] < len(found["actions"])
    for item in found["actions"]:
        assert item["label"] and 0 <= item["win"] <= 1
        assert item["margin_low"] <= item["margin"] <= item["margin_high"]
    assert c.hint(seat).json() == found  # deterministic: the same figures again


def test_a_hint_is_only_for_the_seat_at_its_own_decision() -> None:
    c = Client(Lobby(bot_options=CHEAP))
    seat = c.seat()
    other = (seat + 1) % 3
    refused = c.hint(other)
    assert refused.status_code == 409 and "not seat" in refused.json()["error"]
    spectator = c.hint(None)
    assert spectator.status_code == 403 and "token" in spectator.json()["error"]
    assert c.hint(None, token="not-a-token").status_code == 403
    assert c.http.post(f"/api/tables/{c.id}/hint", headers=c.auth(c.tokens[seat]),
                       json={"x": 1}).status_code == 400
    # a seat a bot plays has no hint (its person handed it over)
    assert c.http.post(f"/api/tables/{c.id}/seats/{seat}/bot", headers=c.auth(c.host),
                       json={"bot": "greedy"}).status_code == 200
    while not c.table.game.is_over and c.seat() != seat:
        if c.table.seats[c.seat()].kind == "human":
            c.act()
    if not c.table.game.is_over:
        assert c.table.game.current_player != seat  # the bot played it at once
    # the game over: no hint for anyone
    for s in range(3):
        if c.table.seats[s].kind == "human":
            c.http.post(f"/api/tables/{c.id}/seats/{s}/bot", headers=c.auth(c.host),
                        json={"bot": "greedy"})
    assert c.table.game.is_over
    over = c.hint(other)
    assert over.status_code == 409 and "over" in over.json()["error"]


def test_the_host_turns_hints_off_at_creation_or_later() -> None:
    lobby = Lobby(bot_options=CHEAP)
    off = Client(lobby, hints=False)
    assert off.created["hints"] is False
    assert off.document(0)["rules"]["hints"] is False
    refused = off.hint(off.seat())
    assert refused.status_code == 403 and "off" in refused.json()["error"]
    bad = off.http.post("/api/tables", json={"players": 3, "hints": "no"})
    assert bad.status_code == 400 and "hints" in bad.json()["error"]

    on = Client(lobby)
    assert on.created["hints"] is True and on.document(None)["rules"]["hints"] is True
    switch = f"/api/tables/{on.id}/hints"
    seat_token = on.auth(on.tokens[0])
    assert on.http.post(switch, headers=seat_token, json={"on": False}).status_code == 403
    assert on.http.post(switch, headers=on.auth(on.host), json={"on": "no"}).status_code == 400
    r = on.http.post(switch, headers=on.auth(on.host), json={"on": False})
    assert r.status_code == 200 and r.json() == {"hints": False}
    assert on.hint(on.seat()).status_code == 403
    assert on.document(0)["rules"]["hints"] is False
    assert on.http.post(switch, headers=on.auth(on.host), json={"on": True}).json() == {
        "hints": True}
    assert on.hint(on.seat()).status_code == 200


def test_a_decision_taken_after_a_hint_is_recorded_and_counted_at_the_end() -> None:
    c = Client(Lobby(bot_options=CHEAP))
    _to_a_choice(c)
    seat = c.seat()
    assert c.hint(seat).status_code == 200
    hinted = c.act(1)
    plain = c.act()  # the next decision, without a hint
    records = {d["seq"]: d for d in c.decisions()}
    assert records[hinted] == {"seq": hinted, "seat": seat, "played_by": "human",
                               "hinted": True}
    assert records[plain]["hinted"] is False
    assert sum(d["hinted"] for d in records.values()) == 1
    assert c.document(None)["hints_taken"] is None  # told at the end
    for s in range(3):
        c.http.post(f"/api/tables/{c.id}/seats/{s}/bot", headers=c.auth(c.host),
                    json={"bot": "greedy"})
    assert c.table.game.is_over
    for audience in (None, 0, 1, 2):
        assert c.document(audience)["hints_taken"] == {str(seat): 1}


def test_a_hint_asked_then_not_followed_by_the_seats_move_is_not_recorded() -> None:
    """Only the seat's own decision at the seq of its hint is marked: a bot that plays
    the seat after the hint (its person handed it over) is not."""
    c = Client(Lobby(bot_options=CHEAP))
    _to_a_choice(c)
    seat, seq = c.seat(), c.table.game.state.seq
    assert c.hint(seat).status_code == 200
    c.http.post(f"/api/tables/{c.id}/seats/{seat}/bot", headers=c.auth(c.host),
                json={"bot": "greedy"})
    record = next(d for d in c.decisions() if d["seq"] == seq)
    assert record["played_by"] == "bot:greedy" and record["hinted"] is False


def _twin_games(game: Game, count: int) -> list[tuple[Game, Game]]:
    """Pairs (the game, a twin) at their start, the twin differing in one hidden chance
    outcome of ``game``'s (:func:`tokaido_rules.testing.twins`)."""
    ruleset = Ruleset.build(game.ruleset.ids)
    setup = game.state.rules.setup
    pairs = []
    for twin in twins(game, game.seed)[:count]:
        other = evolve(setup, chance={**setup.chance, **twin.chance})
        pairs.append((new_game(game.players, seed=game.seed, plugins=ruleset, setup=setup),
                      new_game(game.players, seed=game.seed, plugins=ruleset, setup=other)))
    return pairs


def test_twin_tables_that_differ_in_hidden_facts_give_the_same_hints() -> None:
    """The hint is made from the seat's view only: at every decision where the seat's
    view is the same at two tables whose games differ in a hidden fact, the hints are
    the same, though the full states differ."""
    lobby = Lobby(bot_options=CHEAP)
    c = Client(lobby)
    for _ in range(14):
        c.act()
    played = decisions(c.table.game.events)
    compared = hidden_differs = 0
    for mine, theirs in _twin_games(c.table.game, 4):
        for action in played:
            seat = mine.current_player
            if (seat is not None and seat == theirs.current_player
                    and len(mine.legal_actions()) > 1
                    and mine.view(seat) == theirs.view(seat)):
                record = evolve(c.table.record, seats=c.table.seats)  # joined
                tables = [Table(record, g, None) for g in (mine, theirs)]
                for t in tables:
                    t.bot_options = CHEAP
                assert tables[0].hint(seat) == tables[1].hint(seat)
                compared += 1
                hidden_differs += mine.state != theirs.state
            mine = mine.apply(action)
            try:
                theirs = theirs.apply(action)
            except IllegalActionError:  # not legal in the twin: its walk ends
                break
    assert compared >= 8 and hidden_differs >= 8


# --- stored on both backends, and the migration from layout 4 ------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "t.db")
    return str(request.getfixturevalue("pg_url"))


def _play_to_a_choice(table: Table) -> tuple[int, int]:
    """Play each seat's first action until the decision at hand has more than one;
    its seat and seq."""
    while len(table.game.legal_actions()) < 2:
        seat = table.game.current_player
        assert seat is not None
        table.act(seat, {"action": encode_action(table.game.legal_actions()[0]),
                         "expected_seq": table.game.state.seq})
    seat = table.game.current_player
    assert seat is not None
    return seat, table.game.state.seq


def test_the_hints_rule_and_the_hinted_flag_are_stored(where: str) -> None:
    lobby = Lobby(open_store(where), bot_options=CHEAP)
    table, _ = lobby.create(2, ["base"], seed=4)
    table.join(0)
    table.join(1)
    seat, seq = _play_to_a_choice(table)
    table.hint(seat)
    table.act(seat, {"action": encode_action(table.game.legal_actions()[0]),
                     "expected_seq": seq})
    table.set_hints(False)
    quiet, _ = lobby.create(2, ["base"], seed=4, hints=False)
    again = Lobby(open_store(where))
    resumed = again.get(table.id)
    assert [d.seq for d in resumed.decisions() if d.hinted] == [seq]
    assert resumed.rules.hints is False and again.get(quiet.id).rules.hints is False
    assert again.store is not None  # the operator's overview counts them
    assert {r["table"]: r["hinted"] for r in again.store.overview()} == {
        table.id: 1, quiet.id: 0}
    with pytest.raises(TableError) as refused:
        resumed.hint(resumed.game.current_player or 0)
    assert refused.value.status == 403


def test_a_move_after_a_hint_is_hinted_whichever_process_makes_it(where: str) -> None:
    """Two servers on one database (on SQLite, one after the other): a seat asks its
    hint at one and makes its move at the other; the decision is recorded hinted."""
    first = Lobby(open_store(where), bot_options=CHEAP)
    table, _ = first.create(2, ["base"], seed=4)
    tokens = [table.join(0), table.join(1)]
    seat, seq = _play_to_a_choice(table)
    table.hint(seat)
    if not where.startswith("postgresql"):  # one process at a time on an SQLite file:
        assert first.store is not None       # the next one, after a restart
        first.store.close()
    other = Lobby(open_store(where), bot_options=CHEAP).get(table.id)
    assert other.seat_for(tokens[seat]) == seat
    other.act(seat, {"action": encode_action(other.game.legal_actions()[0]),
                     "expected_seq": seq})
    assert [d.seq for d in other.decisions() if d.hinted] == [seq]
    assert other.hints_taken() == {seat: 1}


def _stored_game(lobby: Lobby) -> Table:
    table, _ = lobby.create(2, ["base"], seed=9, takeback="all", stand_in="random")
    table.join(0)
    table.join(1)
    for _ in range(3):
        seat = table.game.current_player
        assert seat is not None
        table.act(seat, {"action": encode_action(table.game.legal_actions()[0]),
                         "expected_seq": table.game.state.seq})
    return table


def test_an_sqlite_database_of_layout_4_gains_hints_on(tmp_path: Path) -> None:
    """A database of layout 4, made as that version made it (no ``hints`` rule, no
    ``hinted`` flag), is brought to layout 5: its tables offer hints and their
    decisions were taken without one."""
    path = tmp_path / "tables.db"
    lobby = Lobby(TableStore(path))
    table = _stored_game(lobby)
    assert lobby.store is not None
    lobby.store.close()
    with sqlite3.connect(path) as db:  # as the version of layout 4 left it
        db.execute("ALTER TABLE table_rules DROP COLUMN hints")
        db.execute("ALTER TABLE decisions DROP COLUMN hinted")
        db.execute("DROP TABLE takeback_requests")  # layout 6's
        db.execute("DROP TABLE hint_asks")
        db.execute("PRAGMA user_version = 4")
    again = Lobby(TableStore(path))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA == 6
    resumed = again.get(table.id)
    assert resumed.rules == TableRules("all", None, "random", None, True)
    assert resumed.decisions() == table.decisions()
    assert len(resumed.decisions()) == 3 and not any(d.hinted for d in resumed.decisions())


def test_a_postgres_database_of_layout_1_gains_hints_on(pg_url: str) -> None:
    """The PostgreSQL layout 1 (the SQLite layout 4) is brought to layout 2 (5) alike."""
    import psycopg

    lobby = Lobby(open_store(pg_url))
    table = _stored_game(lobby)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as layout 1 left it
        conn.execute("ALTER TABLE table_rules DROP COLUMN hints")
        conn.execute("ALTER TABLE decisions DROP COLUMN hinted")
        conn.execute("DROP TABLE takeback_requests")  # layout 3's
        conn.execute("DROP TABLE hint_asks")
        conn.execute("DROP TABLE seen")
        conn.execute("UPDATE tokaido_schema SET version = 1")
    resumed = Lobby(open_store(pg_url)).get(table.id)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT version FROM tokaido_schema").fetchone()
        assert row is not None and row[0] == PG_SCHEMA == 3
        assert conn.execute("SELECT count(*) FROM seen").fetchone() == (0,)  # layout 3's
    assert resumed.rules == TableRules("all", None, "random", None, True)
    assert resumed.decisions() == table.decisions()
    assert not any(d.hinted for d in resumed.decisions())


def test_serve_refuses_a_hint_bot_that_cannot_analyse(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", ":memory:", "--hint-bot", "greedy"]) == 2
    err = capsys.readouterr().err
    assert "--hint-bot" in err and "greedy" in err and len(err.strip().splitlines()) == 1
