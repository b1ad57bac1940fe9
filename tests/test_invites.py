"""Inviting friends, readable names and the rematch, through ``tokaido serve``'s
application (Starlette's test client): a seat is open (anyone may take it) or invited
(its link's secret is needed); the creator may be seated at once; the host sees the
invitations again; a finished table offers a rematch with the same people, each seat
moved on by one, each person keeping their token."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from tokaido_rules.store import TableStore
from tokaido_rules.tables import Lobby, Table
from tokaido_rules.web import create_app
from tokaido_rules.wire import encode_action

NAME = re.compile(r"^[a-z]+-[a-z]+-[0-9]{2,4}$")
"""Two words and a number: a name a person can read out."""


def _client(lobby: Lobby) -> TestClient:
    return TestClient(create_app(lobby, animate_ms=0), base_url="http://127.0.0.1")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_api_seats_nobody_unless_asked_and_keeps_its_answer() -> None:
    http = _client(Lobby())
    r = http.post("/api/tables", json={"players": 3, "bots": {"2": "greedy"}})
    assert r.status_code == 201
    made = r.json()
    before = {"table", "host_token", "players", "plugins", "options", "created", "seq",
              "over", "seats"}  # the answer of the previous version: nothing removed
    assert before <= set(made)
    assert [s["kind"] for s in made["seats"]] == ["open", "open", "bot"]
    assert made["token"] is None and made["seat"] is None and made["invites"] == {}
    assert NAME.match(made["name"])
    r = http.post(f"/api/tables/{made['table']}/join", json={"seat": 1})  # as before
    assert r.status_code == 201 and r.json()["token"]


def test_the_creator_is_seated_and_invited_seats_need_their_link() -> None:
    http = _client(Lobby())
    r = http.post("/api/tables", json={"players": 4, "bots": {"3": "random"}, "seat": 1,
                                       "invite": True})
    assert r.status_code == 201, r.text
    made = r.json()
    table, host = made["table"], made["host_token"]
    assert made["seat"] == 1
    assert [s["kind"] for s in made["seats"]] == ["invited", "human", "invited", "bot"]
    mine = http.get(f"/api/tables/{table}", headers=_bearer(made["token"])).json()
    assert mine["seat"] == 1
    assert set(made["invites"]) == {"0", "2"}
    join = f"/api/tables/{table}/join"
    # an uninvited person cannot take an invited seat, nor with another seat's secret
    assert http.post(join, json={"seat": 0}).status_code == 403
    assert http.post(join, json={"seat": 0, "invite": made["invites"]["2"]}).status_code == 403
    assert http.post(join, json={"seat": 0, "invite": 7}).status_code == 400
    # an invitation's secret is no token: it shows no seat's view
    assert http.get(f"/api/tables/{table}",
                    headers=_bearer(made["invites"]["0"])).status_code == 403
    # the host sees the invitations again; nobody else does
    again = http.get(f"/api/tables/{table}/invites", headers=_bearer(host))
    assert again.status_code == 200 and again.json()["invites"] == made["invites"]
    assert http.get(f"/api/tables/{table}/invites",
                    headers=_bearer(made["token"])).status_code == 403
    assert http.get(f"/api/tables/{table}/invites").status_code == 403
    r = http.post(join, json={"seat": 0, "invite": made["invites"]["0"]})
    assert r.status_code == 201
    friend = r.json()["token"]
    assert http.get(f"/api/tables/{table}", headers=_bearer(friend)).json()["seat"] == 0
    assert http.post(join, json={"seat": 0, "invite": made["invites"]["0"]}).status_code == 409
    assert set(http.get(f"/api/tables/{table}/invites",
                        headers=_bearer(host)).json()["invites"]) == {"2"}
    # the host hands the invited seat nobody took to a bot
    r = http.post(f"/api/tables/{table}/seats/2/bot", json={"bot": "greedy"},
                  headers=_bearer(host))
    assert r.status_code == 200 and r.json()["seats"][2]["kind"] == "bot"
    # its invitation's secret does not become a way to see the bot's seat
    assert http.get(f"/api/tables/{table}",
                    headers=_bearer(made["invites"]["2"])).status_code == 403


def test_bad_creation_bodies_are_refused() -> None:
    http = _client(Lobby())
    for body in ({"players": 3, "seat": 3}, {"players": 3, "seat": "0"},
                 {"players": 3, "bots": {"1": "greedy"}, "seat": 1},
                 {"players": 3, "invite": [0, 0, 7]}, {"players": 3, "invite": "all"},
                 {"players": 3, "seat": 0, "invite": [0]}):
        r = http.post("/api/tables", json=body)
        assert r.status_code == 400 and r.json()["error"], body
    assert Lobby().tables() == []


def test_names_are_readable_unique_and_work_in_addresses() -> None:
    lobby = Lobby()
    tables = [lobby.create(2, ["base"])[0] for _ in range(60)]
    names = [t.name for t in tables]
    assert all(NAME.match(n) for n in names) and len(set(names)) == len(names)
    http = _client(lobby)
    by_name = http.get(f"/api/tables/{tables[5].name}").json()
    assert by_name["table"] == tables[5].id and by_name["name"] == tables[5].name
    assert http.get(f"/t/{tables[5].name}").status_code == 200
    listed = {t["table"]: t["name"] for t in http.get("/api/tables").json()["tables"]}
    assert listed == {t.id: t.name for t in tables}


def _play_to_the_end(table: Table, seat: int) -> None:
    """Play ``seat``'s decisions (its first legal action) until the game ends; the bots
    play the others'."""
    for _ in range(500):
        game = table.game
        if game.is_over:
            return
        assert game.current_player == seat
        table.act(seat, {"action": encode_action(game.legal_actions()[0]),
                         "expected_seq": game.state.seq})
    raise AssertionError("the game does not end")


def test_a_rematch_has_the_same_people_with_the_seats_moved_on(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    lobby = Lobby(TableStore(path))
    http = _client(lobby)
    made = http.post("/api/tables", json={"players": 3, "bots": {"1": "random",
                                                                 "2": "greedy"},
                                          "seat": 0}).json()
    table = lobby.get(made["table"])
    url = f"/api/tables/{table.id}/rematch"
    assert http.post(url, headers=_bearer(made["token"])).status_code == 409  # not over
    _play_to_the_end(table, 0)
    assert http.post(url).status_code == 403  # a spectator
    r = http.post(url, headers=_bearer(made["token"]))
    assert r.status_code == 201, r.text
    again = r.json()
    assert again["seat"] == 1  # seat 0 plays seat 1 now
    assert [(s["kind"], s["bot"]) for s in again["seats"]] == [
        ("bot", "greedy"), ("human", None), ("bot", "random")]
    assert again["plugins"] == made["plugins"] and again["table"] != table.id
    # the person's token is theirs at the rematch; the host's token is the host's
    doc = http.get(f"/api/tables/{again['table']}", headers=_bearer(made["token"])).json()
    assert doc["seat"] == 1
    assert http.get(f"/api/tables/{again['table']}/invites",
                    headers=_bearer(made["host_token"])).status_code == 200
    # asked again, by the host or the person: the same rematch; the old table names it
    for token in (made["host_token"], made["token"]):
        r = http.post(url, headers=_bearer(token))
        assert r.status_code == 201 and r.json()["table"] == again["table"]
    assert http.get(f"/api/tables/{table.id}").json()["rematch"] == again["table"]
    # a restarted server knows the rematch, and each one's token
    assert lobby.store is not None
    lobby.store.close()
    resumed = Lobby(TableStore(path))
    assert resumed.get(table.id).rematch == again["table"]
    assert resumed.get(again["table"]).seat_for(made["token"]) == 1


def test_the_status_says_what_is_decided_and_the_end_who_placed_where() -> None:
    lobby = Lobby()
    http = _client(lobby)
    made = http.post("/api/tables", json={"players": 2, "bots": {"1": "greedy"},
                                          "seat": 0}).json()
    doc = http.get(f"/api/tables/{made['table']}", headers=_bearer(made["token"])).json()
    assert doc["deciding"] == {"seat": 0, "kind": "base.choose_traveller",
                               "words": "choose a traveller"}
    _play_to_the_end(lobby.get(made["table"]), 0)
    doc = http.get(f"/api/tables/{made['table']}", headers=_bearer(made["token"])).json()
    assert doc["deciding"] is None
    ranks = {row["seat"]: row["rank"] for row in doc["scores"]}
    assert sorted(ranks) == [0, 1] and all("tied" in row and "tiebreak" in row
                                           for row in doc["scores"])
    game = lobby.get(made["table"]).game
    assert [s for s, r in ranks.items() if r == 1] == list(game.winners())
