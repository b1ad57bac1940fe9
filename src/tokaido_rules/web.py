"""Play in the browser: ``tokaido serve``, a local web server where a person plays one
seat against bots (the ``web`` extra: Starlette and uvicorn).

The game lives on the server, so a reloaded page only asks for its view again. The page
and the server speak the JSON wire format (:mod:`tokaido_rules.wire`) over HTTP:

- ``GET /api/view?since=SEQ``: the person's view (:func:`~tokaido_rules.wire.encode_view`),
  the board as that seat sees it (SVG), its legal actions with their words, the lines of
  its copy of the log from ``SEQ`` on, the steps since ``SEQ`` in plain words (each with
  its picture, to play the other seats' turns back), and the scores once it is over;
- ``POST /api/action`` with ``{"action": <action>, "expected_seq": SEQ}``: the action is
  decoded by :func:`~tokaido_rules.wire.decode_action` (400 if malformed), refused for
  another seat (403) or a stale ``SEQ`` (409), applied (400 if illegal); then the bots
  play until the person's next decision, and the answer is the view as above, since
  ``SEQ``.

Nothing the seat may not see leaves the server: every answer is made from the seat's
:class:`~tokaido_rules.View` and its copy of the log. The server binds to 127.0.0.1
unless told otherwise.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .bots import BOTS, Bot, next_action
from .chance import bot_seed
from .engine import Game
from .errors import IllegalActionError, StaleActionError
from .log import LogFeed, load_seat_copy
from .render import describe_action, svg
from .viewer import step_words
from .wire import decode_action, encode_action, encode_view

__all__ = ["Table", "create_app", "serve", "LOCAL_HOSTS"]

MAX_BODY = 64_000
"""The largest request body accepted, in bytes (an action is a few dozen)."""


class Table:
    """One game on the server: the person's ``seat``, bots at the others, and the
    pictures of the steps the person has not been shown yet."""

    def __init__(self, game: Game, seat: int, bots: Sequence[str], seed: int) -> None:
        game.view(seat)  # an unknown seat is refused here
        self.game = game
        self.seat = seat
        self._lock = threading.Lock()
        self._bots: dict[int, Bot] = {
            s: BOTS[bots[n % len(bots)]](bot_seed(seed, s))
            for n, s in enumerate(s for s in range(game.players) if s != seat)}
        self._feed = LogFeed(game, viewer=seat)
        self._lines: list[str] = []
        self._pictures: dict[int, str] = {}
        with self._lock:
            self._advance()

    def _advance(self) -> None:
        """Let the bots play until the person decides (or the game ends), keeping the
        person's picture after each of their steps."""
        while not self.game.is_over and self.game.current_player != self.seat:
            seat = self.game.current_player
            assert seat is not None
            self.game = self.game.apply(next_action(self._bots[seat], self.game))
            self._pictures[self.game.state.seq] = svg(self.game.view(self.seat))
        self._lines += self._feed.new_lines(self.game)

    def document(self, since: int | None = None) -> dict[str, Any]:
        """What the page is told: the view, picture, actions, log lines and steps since
        ``since`` (default: now, nothing to play back), the scores when over."""
        with self._lock:
            return self._document(since)

    def _document(self, since: int | None) -> dict[str, Any]:
        game, seat = self.game, self.seat
        view = game.view(seat)
        seq = game.state.seq
        since = seq if since is None else max(0, min(since, seq))
        lines = [json.loads(line) for line in self._lines]
        copy = load_seat_copy("".join(self._lines))
        steps = [{"seq": end, "words": words, "svg": self._pictures.get(end)}
                 for end, words in step_words(copy) if end > since]
        doc: dict[str, Any] = {
            "seat": seat, "seq": seq, "over": game.is_over,
            "view": encode_view(view), "svg": svg(view),
            "actions": [{"words": describe_action(game.state, a), "action": encode_action(a)}
                        for a in view.legal_actions],
            "lines": [line for line in lines[1:] if line.get("seq", -1) >= since
                      and line.get("type") != "core.log_end"],
            "steps": steps,
            "scores": None,
        }
        if game.is_over:
            doc["scores"] = [{"seat": s.seat, "traveller": view.ruleset.registry.traveller_name(
                s.traveller or "?"), "total": s.total, "rank": s.rank} for s in game.scores()]
        return doc

    def act(self, body: object) -> tuple[int, dict[str, Any]]:
        """Play the person's action from a request body: (HTTP status, answer)."""
        if not isinstance(body, Mapping) or set(body) != {"action", "expected_seq"}:
            return 400, {"error": 'the body is {"action": {...}, "expected_seq": SEQ}'}
        expected = body["expected_seq"]
        if type(expected) is not int:
            return 400, {"error": "expected_seq must be an integer"}
        with self._lock:
            try:
                action = decode_action(body["action"], self.game.ruleset)
            except IllegalActionError as exc:
                return 400, {"error": str(exc)}
            if action.seat != self.seat:
                return 403, {"error": f"you play seat {self.seat}, not seat {action.seat}"}
            try:
                self.game = self.game.apply(action, expected_seq=expected)
            except StaleActionError as exc:
                return 409, {"error": str(exc), "seq": self.game.state.seq}
            except IllegalActionError as exc:
                return 400, {"error": str(exc)}
            self._pictures[self.game.state.seq] = svg(self.game.view(self.seat))
            self._advance()
            return 200, self._document(expected)


LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names a request may give as its ``Host`` by default: a page of another site that
rebinds its own name to 127.0.0.1 is refused (400)."""


def create_app(table: Table, *, animate_ms: int = 450,
               hosts: Sequence[str] = LOCAL_HOSTS) -> Any:
    """The Starlette application serving ``table``: the page and its two API routes.
    ``animate_ms``: how long the page shows each step of the other seats' turns;
    ``hosts``: the ``Host`` names accepted (``"*"``: any)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    page = _PAGE.replace("__ANIMATE__", str(max(0, int(animate_ms))))

    def index(request: Request) -> Response:
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    def view(request: Request) -> Response:
        raw = request.query_params.get("since")
        since: int | None = None
        if raw is not None:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 15):
                return JSONResponse({"error": "since must be a seq"}, status_code=400)
            since = int(raw)
        return JSONResponse(table.document(since))

    async def action(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"error": "send application/json"}, status_code=415)
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"error": "request too large"}, status_code=413)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        from starlette.concurrency import run_in_threadpool

        status, answer = await run_in_threadpool(table.act, data)
        return JSONResponse(answer, status_code=status)

    return Starlette(routes=[Route("/", index), Route("/api/view", view),
                             Route("/api/action", action, methods=["POST"])],
                     middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))])


def serve(game: Game, seat: int = 0, bots: Sequence[str] = ("greedy",), *,
          seed: int = 0, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``game`` with the person at ``seat`` until interrupted (``tokaido serve``);
    ``seed`` seeds the bots."""
    import uvicorn

    hosts = LOCAL_HOSTS if host in ("127.0.0.1", "localhost", "::1") else ("*",)
    app = create_app(Table(game, seat, bots, seed), hosts=hosts)
    print(f"Tokaido: you are seat {seat} of {game.players}; open http://{host}:{port}/ "
          "(Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tokaido</title>
<style>
body { font-family: Helvetica, Arial, sans-serif; margin: 0; background: #f6f1e6;
       color: #2b2b2b; }
main { max-width: 1240px; margin: 0 auto; padding: 8px 16px; }
#status { font-size: 16px; margin: 8px 0; font-weight: bold; }
#actions { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; }
#actions button { font-size: 14px; padding: 5px 10px; }
#events { font-size: 14px; background: #fffaf0; border: 1px solid #d8d2c4;
          border-radius: 8px; padding: 6px 12px; max-height: 9em; overflow: auto; }
#events p { margin: 2px 0; }
#board svg { width: 100%; height: auto; display: block; }
#error { color: #b00020; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border-bottom: 1px solid #d8d2c4; padding: 4px 10px; text-align: left; }
</style>
</head>
<body data-ready="no">
<main>
<div id="status">Loading…</div>
<div id="error"></div>
<div id="actions"></div>
<div id="scores"></div>
<div id="events"></div>
<div id="board"></div>
</main>
<script>
(function () {
  "use strict";
  var ANIMATE = __ANIMATE__, seq = null;
  var $ = function (id) { return document.getElementById(id); };
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function say(text) {
    var p = document.createElement("p"); p.textContent = text; $("events").appendChild(p);
    $("events").scrollTop = $("events").scrollHeight;
  }
  function scores(rows) {
    var t = document.createElement("table"), h = t.createTHead().insertRow();
    ["Rank", "Seat", "Traveller", "Points"].forEach(function (x) {
      var th = document.createElement("th"); th.textContent = x; h.appendChild(th);
    });
    var body = t.createTBody();
    rows.forEach(function (r) {
      var tr = body.insertRow(); tr.setAttribute("data-seat", String(r.seat));
      [r.rank, r.seat, r.traveller, r.total].forEach(function (x, i) {
        var td = tr.insertCell(); td.textContent = String(x);
        if (i === 3) { td.className = "points"; }
      });
    });
    $("scores").textContent = ""; $("scores").appendChild(t);
  }
  async function show(doc, animate) {
    document.body.setAttribute("data-ready", "no");
    $("actions").textContent = "";
    for (var i = 0; i < doc.steps.length; i++) {
      say(doc.steps[i].words);
      if (animate && ANIMATE > 0 && doc.steps[i].svg) {
        $("board").innerHTML = doc.steps[i].svg; await sleep(ANIMATE);
      }
    }
    seq = doc.seq;
    $("board").innerHTML = doc.svg;
    if (doc.over) {
      $("status").textContent = "The journey is over.";
      scores(doc.scores);
    } else {
      $("status").textContent = "Seat " + doc.seat + ": your decision";
      doc.actions.forEach(function (a) {
        var b = document.createElement("button"); b.textContent = a.words;
        b.className = "action";
        b.onclick = function () { send(a.action); };
        $("actions").appendChild(b);
      });
    }
    document.body.setAttribute("data-ready", doc.over ? "over" : "yes");
  }
  async function send(action) {
    document.body.setAttribute("data-ready", "no");
    $("error").textContent = "";
    var r = await fetch("api/action", {method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({action: action, expected_seq: seq})});
    var doc = await r.json();
    if (!r.ok) { $("error").textContent = doc.error; return load(); }
    await show(doc, true);
  }
  async function load() {
    var r = await fetch("api/view"); await show(await r.json(), false);
  }
  load();
})();
</script>
</body>
</html>
"""
