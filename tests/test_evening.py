"""Take-backs, clocks and leaving at a table (issue #40), through the API: a take-back
is allowed as the rule of :mod:`tokaido_rules.takeback` says, removes the stored lines
after its point (the rest still verifies), is recorded with who agreed, and every client
at a later seq is told; a clock or a departure hands the seat to the stand-in bot, whose
decisions say so; the deadline and the seats away survive a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from tokaido_rules import verify_log
from tokaido_rules.store import TableRules, TableStore
from tokaido_rules.tables import Lobby, Table
from tokaido_rules.web import create_app
from tokaido_rules.wire import encode_action


class Client:
    def __init__(self, lobby: Lobby, **rules: Any) -> None:
        self.lobby = lobby
        self.http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
        r = self.http.post("/api/tables", json={"players": 2, **rules})
        assert r.status_code == 201, r.text
        self.id = r.json()["table"]
        self.host = r.json()["host_token"]
        self.tokens = {}
        for seat in (0, 1):
            j = self.http.post(f"/api/tables/{self.id}/join", json={"seat": seat})
            self.tokens[seat] = j.json()["token"]

    @property
    def table(self) -> Table:
        return self.lobby.get(self.id)

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def doc(self, seat: int | None, query: str = "") -> dict[str, Any]:
        r = self.http.get(f"/api/tables/{self.id}{query}",
                          headers={} if seat is None else self.auth(seat))
        assert r.status_code == 200, r.text
        return dict(r.json())

    def post(self, path: str, seat: int, body: Any = None) -> Any:
        return self.http.post(f"/api/tables/{self.id}/{path}", headers=self.auth(seat),
                              json=body)

    def play_first(self) -> int:
        """The seat at hand plays its first action; that seat."""
        d = self.doc(None)
        seat = d["current_player"]
        mine = self.doc(seat)
        r = self.post("action", seat, {"action": mine["actions"][0]["action"],
                                       "expected_seq": mine["seq"]})
        assert r.status_code == 200, r.text
        return int(seat)

    def until(self, allowed: bool) -> tuple[int, dict[str, Any]]:
        """Play until the seat that just decided may (or may not) take back; that seat
        and its document."""
        for _ in range(200):
            seat = self.play_first()
            d = self.doc(seat)
            if d["takeback"] is not None and d["takeback"]["allowed"] is allowed:
                return seat, d
        raise AssertionError(f"no take-back {'allowed' if allowed else 'refused'} found")


def _full_log(store: TableStore, table_id: str) -> str:
    record = next(r for r in store.tables() if r.id == table_id)
    return "".join(line + "\n" for line in [record.header, *store.lines(table_id)])


def test_a_take_back_goes_back_removes_the_lines_and_is_recorded(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "t.db")
    c = Client(Lobby(store))
    seat, d = c.until(True)
    before = d["seq"]
    other = 1 - seat
    ahead = c.doc(other, f"?since={before}")
    r = c.post("takeback", seat)
    assert r.status_code == 200 and r.json()["done"] is True, r.text
    to = r.json()["to_seq"]
    assert to < before and c.table.game.state.seq == to
    # the stored lines stop at the point, and what is left verifies
    assert len(store.lines(c.id)) == to
    assert verify_log(_full_log(store, c.id), allow_unfinished=True).ok
    assert all(dec.seq < to for dec in store.decisions(c.id))
    listed = c.http.get(f"/api/tables/{c.id}/takebacks").json()["takebacks"]
    assert [(t["seat"], t["from_seq"], t["to_seq"], t["consent"]) for t in listed] == [
        (seat, before, to, [])]
    # a client at a later seq is told at once, with the whole log again
    told = c.doc(other, f"?since={ahead['seq']}&wait=5&takebacks=0")
    fresh = c.doc(other, "?since=0")
    assert told["reset"] is True and told["seq"] == to and told["takebacks"] == 1
    assert told["lines"] == fresh["lines"] and told["steps"] == fresh["steps"]
    # and a restart resumes at the point, the take-back listed
    again = Lobby(TableStore(tmp_path / "t.db"))
    assert again.get(c.id).game.state.seq == to
    assert again.get(c.id).takeback_list()[0]["to_seq"] == to


def test_a_refused_take_back_says_why_and_changes_nothing() -> None:
    c = Client(Lobby())
    seat, d = c.until(False)
    r = c.post("takeback", seat)
    assert r.status_code == 409 and d["takeback"]["reason"] in r.json()["error"]
    assert c.table.game.state.seq == d["seq"] and c.table.takebacks == []


def test_the_others_consent_when_the_rule_says_all() -> None:
    c = Client(Lobby(), takeback="all")
    seat, d = c.until(True)
    other = 1 - seat
    asked = c.post("takeback", seat).json()
    assert asked["done"] is False and asked["waiting"] == [other]
    assert c.doc(other)["takeback_request"]["seat"] == seat
    assert c.post("takeback/answer", seat, {"agree": True}).status_code == 409
    no = c.post("takeback/answer", other, {"agree": False}).json()
    assert no == {"done": False, "refused_by": other} and c.table.game.state.seq == d["seq"]
    c.post("takeback", seat)
    yes = c.post("takeback/answer", other, {"agree": True}).json()
    assert yes["done"] is True and c.table.takeback_list()[0]["consent"] == [other]


def test_a_take_back_waiting_for_consent_survives_a_restart(tmp_path: Path) -> None:
    """The take-back asked for is stored: a restarted server shows it and takes its
    answer; one that lapsed (the game moved on) stays lapsed after a restart."""
    path = tmp_path / "t.db"
    c = Client(Lobby(TableStore(path)), takeback="all")
    seat, d = c.until(True)
    other = 1 - seat
    asked = c.post("takeback", seat).json()
    assert asked["waiting"] == [other]
    resumed = Lobby(TableStore(path)).get(c.id)
    assert resumed.request == {"seat": seat, "from_seq": d["seq"], "to_seq": asked["to_seq"],
                               "agreed": [], "waiting": [other]}
    done = resumed.answer_take_back(other, True)
    assert done["done"] is True and resumed.game.state.seq == done["to_seq"] < d["seq"]
    assert resumed.takeback_list()[0]["consent"] == [other]

    c = Client(Lobby(TableStore(tmp_path / "u.db")), takeback="all")
    seat, d = c.until(True)
    c.post("takeback", seat)
    c.play_first()  # the game moves on: the request lapses
    assert c.table.request is None
    assert Lobby(TableStore(tmp_path / "u.db")).get(c.id).request is None


def test_off_refuses_every_take_back() -> None:
    c = Client(Lobby(), takeback="off")
    seat = c.play_first()
    assert c.doc(seat)["takeback"]["reason"] == "this table allows no take-backs"
    assert c.post("takeback", seat).status_code == 409


def test_bad_rules_are_refused() -> None:
    http = TestClient(create_app(Lobby(), animate_ms=0), base_url="http://127.0.0.1")
    for body in ({"takeback": "some"}, {"clock": 0}, {"clock": "5"}, {"stand_in": "x"},
                 {"away_after": -1}):
        r = http.post("/api/tables", json={"players": 2, **body})
        assert r.status_code == 400 and "error" in r.json(), body


def test_the_clock_hands_the_decision_to_the_stand_in(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "c.db")
    c = Client(Lobby(store), clock=30, stand_in="random")
    table = c.table
    assert table.deadline is not None
    seq, deadline = table.deadline
    seat = table.game.current_player
    assert c.doc(seat)["clock"]["seat"] == seat
    # the deadline survives a restart: the same, not 30 s from the restart
    assert Lobby(TableStore(tmp_path / "c.db")).get(c.id).deadline == (seq, deadline)
    table.keep(now=deadline - 1)
    assert table.game.state.seq == seq
    table.keep(now=deadline + 1)
    assert table.game.state.seq > seq
    played = c.http.get(f"/api/tables/{c.id}/decisions").json()["decisions"]
    assert played[-1] == {"seq": seq, "seat": seat, "played_by": "bot:random (clock)",
                          "hinted": False}
    assert table.deadline is not None and table.deadline[0] == table.game.state.seq


def test_leaving_and_returning() -> None:
    c = Client(Lobby(), stand_in="random")
    seat = c.table.game.current_player
    assert seat is not None
    assert c.post("leave", seat).json()["away"] == "left"
    # the stand-in plays every decision of the seat until its person returns
    assert c.table.game.current_player != seat or c.table.game.is_over
    played = [d.played_by for d in c.table.decisions() if d.seat == seat]
    assert played and set(played) == {"bot:random (left)"}
    assert c.post("return", seat).json()["away"] is None
    assert c.doc(seat)["away"] == {}


def test_a_seat_with_no_page_is_away_until_its_page_returns() -> None:
    c = Client(Lobby(), away_after=60, stand_in="random")
    table = c.table
    seat = table.game.current_player
    assert seat is not None
    table.keep(now=table.seen.get(seat, 0) or 1)  # first seen now
    table.keep(now=table.seen[seat] + 61)
    assert table.away.get(seat) == "absent"
    c.doc(seat)  # its page asks again: back
    assert seat not in table.away


def test_the_table_list_shows_progress() -> None:
    c = Client(Lobby())
    listed = c.http.get("/api/tables").json()["tables"][0]
    assert listed["progress"] == 0 and listed["takeback"] == "none"
    for _ in range(12):
        c.play_first()
    assert 0 < c.http.get("/api/tables").json()["tables"][0]["progress"] < 100


# --- take-backs and clocks with invitations and the rematch (both halves of issue 40) ---


def test_an_invited_seat_not_taken_has_no_say_in_take_backs() -> None:
    """An invited seat nobody has taken is no one's: its invitation's secret is not a
    seat's token (no take-back, no answer, no leaving), and its consent is not waited
    for; once joined by its link the seat is a person's like any other."""
    lobby = Lobby()
    http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
    made = lobby.open_table(3, ["base"], seed=1, seat=0, invite=[2], takeback="all")
    table = made.table
    secret = made.invites[2]
    friend = http.post(f"/api/tables/{table.id}/join", json={"seat": 1}).json()["token"]
    assert made.token is not None
    tokens = {0: made.token, 1: friend}
    for path, body in (("takeback", {}), ("takeback/answer", {"agree": True}),
                       ("leave", {}), ("return", {})):
        r = http.post(f"/api/tables/{table.id}/{path}", json=body,
                      headers={"Authorization": f"Bearer {secret}"})
        assert r.status_code == 403, (path, r.text)
    for _ in range(200):  # the people play until seat 0 may take back
        game = table.game
        seat = game.current_player
        assert seat in tokens, "the invited seat's turn came first"
        table.act(seat, {"action": encode_action(game.legal_actions()[0]),
                         "expected_seq": game.state.seq})
        if seat == 0 and table.take_back_check(0).allowed:
            break
    asked = http.post(f"/api/tables/{table.id}/takeback",
                      headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert asked["done"] is False and asked["waiting"] == [1]  # not the invited seat
    joined = http.post(f"/api/tables/{table.id}/join", json={"seat": 2, "invite": secret})
    assert joined.status_code == 201, joined.text
    late = {"Authorization": f"Bearer {joined.json()['token']}"}
    r = http.post(f"/api/tables/{table.id}/takeback/answer", json={"agree": True},
                  headers=late)
    assert r.status_code == 409  # asked before they came: not theirs to answer
    yes = http.post(f"/api/tables/{table.id}/takeback/answer", json={"agree": True},
                    headers={"Authorization": f"Bearer {tokens[1]}"}).json()
    assert yes["done"] is True and table.takeback_list()[0]["consent"] == [1]
    assert http.get(f"/api/tables/{table.id}", headers=late).json()["seat"] == 2


def test_a_rematch_has_the_table_rules_of_the_old_table(tmp_path: Path) -> None:
    """The rematch plays by the same rules: the take-back rule, the clock, the stand-in
    (as the host last named it) and the away-after, stored with it; the old table's
    take-backs stay the old table's."""
    path = tmp_path / "r.db"
    lobby = Lobby(TableStore(path))
    http = TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")
    made = http.post("/api/tables", json={
        "players": 2, "seat": 0, "bots": {"1": "greedy"}, "takeback": "all",
        "clock": 90, "stand_in": "random", "away_after": 120}).json()
    table = lobby.get(made["table"])
    host = {"Authorization": f"Bearer {made['host_token']}"}
    assert http.post(f"/api/tables/{table.id}/stand-in", json={"bot": "greedy"},
                     headers=host).status_code == 200
    for _ in range(200):
        game = table.game
        if game.state.seq and table.take_back_check(0).allowed:
            break
        table.act(0, {"action": encode_action(game.legal_actions()[0]),
                      "expected_seq": game.state.seq})
    done = http.post(f"/api/tables/{table.id}/takeback",
                     headers={"Authorization": f"Bearer {made['token']}"}).json()
    assert done["done"] is True  # nobody else at the table to ask
    for _ in range(500):
        game = table.game
        if game.is_over:
            break
        table.act(0, {"action": encode_action(game.legal_actions()[0]),
                      "expected_seq": game.state.seq})
    r = http.post(f"/api/tables/{table.id}/rematch", headers=host)
    assert r.status_code == 201, r.text
    again = r.json()
    assert (again["takeback"], again["clock"]) == ("all", 90)
    rematch = lobby.get(again["table"])
    wanted = TableRules("all", 90, "greedy", 120)
    assert rematch.rules == wanted and rematch.takebacks == []
    assert rematch.deadline is not None  # its clock runs for the person's first decision
    assert len(table.takebacks) == 1
    assert lobby.store is not None
    lobby.store.close()
    resumed = Lobby(TableStore(path))
    assert resumed.get(again["table"]).rules == wanted
    assert resumed.get(table.id).rematch == again["table"]
    assert len(resumed.get(table.id).takebacks) == 1
