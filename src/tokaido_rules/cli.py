"""The ``tokaido`` command line.

Bad input prints one line ``error: ...`` on stderr and exits with status 2; so does any
failure, even an unexpected one (status 1 means only that ``replay --verify`` found a
log that does not verify). Ctrl-C prints ``Aborted!`` and exits with status 130; SIGTERM
to a batch on worker processes ends them and exits with status 143. ``play`` saves the
game before it stops on Ctrl-C, SIGTERM or SIGHUP (status 128 + the signal's number:
130, 143, 129) or at the end of its input (status 0, or 2 if the game could not be
saved).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import json
import os
import shutil
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import attrs

from . import __version__
from .analysis import DEFAULT_BOT, make_evaluator
from .bots import (
    BOTS,
    bot_factory,
    bot_spec,
    check_options,
    look_ahead_on,
    make_bot,
    parse_bot_options,
)
from .chance import EVENT, KEYINGS, new_seed
from .engine import Game, initial_state, new_game, replay
from .errors import SetupError, TokaidoError
from .events import Action, GameOver
from .fast import FastGame, ViewableGame
from .log import MAX_LINE, SeatCopy, SeatLine, dump_log, load_log, load_seat_copy, verify_log
from .model import GameState, collection_zone
from .registry import Registry
from .render import (
    Grid,
    describe_action,
    describe_effects,
    journey_lines,
    outcome,
    score_rows,
    score_table,
    table,
    text,
)
from .ruleset import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Ruleset,
    installed_plugins,
    is_player_count,
    load_plugin,
    plugin_info,
)
from .simulate import (
    ENGINES,
    GameResult,
    Summary,
    Tally,
    choose_engine,
    decide,
    decision_count,
    decision_kinds,
    fast_bot,
    play_fast,
    play_games,
    tune_jit,
)
from .views import View
from .wire import encode_seed, schema_text

BOT_SALT = 0x5EED_B075
INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT, as shells report it)."""
TERMINATED = 143
"""The exit status of a batch ended by SIGTERM (128 + SIGTERM)."""


class _Terminated(BaseException):
    """SIGTERM during a batch on worker processes."""


def _on_sigterm(signum: int, frame: object) -> NoReturn:
    raise _Terminated


def _worker_init() -> None:
    """A batch's worker process: Ctrl-C at the terminal reaches the whole process group,
    and only the parent answers it (it ends the workers); SIGTERM ends a worker, which
    does not inherit the parent's handler."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    tune_jit()


def _end_executor(executor: Any, client: Any, stopped: bool) -> None:
    """A run's end: close the Dask ``client``, or end the process pool: at once when the
    run was ``stopped`` (:func:`_stop_workers`), else its queued tasks cancelled."""
    if client is not None:
        client.close()
    elif executor is not None:
        if stopped:
            _stop_workers(executor)
        else:
            executor.shutdown(cancel_futures=True)


def _batch_plugins(args: argparse.Namespace) -> tuple[list[str], dict[str, object]]:
    """A batch's ``--plugins`` (at least one) and ``--option`` values; ``--plot``
    without its extra is refused first, before any game."""
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise _UsageError("--plot needs the plot extra: pip install '.[plot]' in a clone, or the "
                          "wheel with [plot]")
    plugins = _plugin_ids(args.plugins)
    if not plugins:
        raise _UsageError("--plugins needs at least one plugin id")
    return plugins, _parse_options(args.option)


def _stop_workers(executor: Any) -> None:
    """End a process pool's workers now: queued games are dropped, running ones killed."""
    processes = list(getattr(executor, "_processes", None) or {})
    workers = [executor._processes[pid] for pid in processes]
    executor.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(5)
        if worker.is_alive():
            worker.kill()
            worker.join(5)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _plugin_ids(text: str) -> list[str]:
    """The plugin ids of a ``--plugins`` value, each with the plugins it requires
    (before it, transitively): on the command line, ``crossroads`` means
    ``base,crossroads``. (:func:`~tokaido_rules.new_game` enables only what it is
    given.)"""
    given = [p.strip() for p in text.split(",") if p.strip()]
    resolved: list[str] = []

    def add(pid: str, seen: tuple[str, ...]) -> None:
        if pid in resolved or pid in seen:
            return
        for required in plugin_info(load_plugin(pid)).requires:
            add(required, (*seen, pid))
        resolved.append(pid)

    for pid in given:
        add(pid, ())
    return resolved


def _parse_options(items: Sequence[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _UsageError(f"--option takes PLUGIN.NAME=VALUE, got {item!r}")
        options[name] = value
    return options


def _rule_options(parser: argparse.ArgumentParser) -> None:
    """``--option PLUGIN.NAME=VALUE``, as every command that makes games takes it."""
    parser.add_argument("--option", action="append", default=[], metavar="PLUGIN.NAME=VALUE",
                        help="a rule option (repeatable)")


def _bot_options(parser: argparse.ArgumentParser) -> None:
    """``--bot-option BOT.KEY=VALUE``, as every command that seats bots takes it."""
    parser.add_argument("--bot-option", action="append", default=[], metavar="BOT.KEY=VALUE",
                        help="an option of a bot in play, e.g. search.samples=4 (repeatable; "
                             "tokaido bots lists them)")


def _width_option(parser: argparse.ArgumentParser) -> None:
    """``--width COLUMNS`` of a command's text output."""
    parser.add_argument("--width", type=int, metavar="COLUMNS",
                        help="text output's width (default: the terminal's, else 80)")


def _build_parser() -> _Parser:
    parser = _Parser(prog="tokaido", description="Play and inspect games of Tokaido.",
                     epilog="Exit status: 0 ok, 1 replay --verify disagrees, 2 bad input "
                            "or usage, 130 interrupted (Ctrl-C), 143 a batch or play "
                            "ended by SIGTERM, 129 play ended by SIGHUP.")
    parser.add_argument("--version", action="version", version=f"tokaido-rules {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help="one of:")

    def command(name: str, help: str) -> _Parser:
        made: _Parser = sub.add_parser(name, help=help, description=help[0].upper() + help[1:]
                                       + ".")
        return made

    sim = command("simulate", "play games with bots: one game's journey and scores, or "
                              "a batch's statistics")
    sim.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    sim.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    sim.add_argument("--plugins", default="base", help="comma-separated plugin ids")
    _rule_options(sim)
    sim.add_argument("--format", choices=("text", "json", "csv"), default="text",
                     help="output: text, json, or (with --games) csv")
    sim.add_argument("--games", type=int, default=None,
                     help="play a batch of games and print statistics (default 1)")
    sim.add_argument("--bots", default="random", metavar="BOT,...",
                     help="bots by seat, cycled: registered names (tokaido bots lists "
                          "them; default random)")
    _bot_options(sim)
    sim.add_argument("--random-decisions", default="", metavar="KIND,...",
                     help="decision kinds taken at random instead of by the bots, e.g. "
                          "base.choose_traveller to deal travellers by chance")
    sim.add_argument("--engine", choices=ENGINES, default="auto",
                     help="the engine that plays: auto (the fast simulator for the base "
                          "game with random bots, else the reference), fast or reference; "
                          "the games are the same (default auto)")
    sim.add_argument("--chance", choices=KEYINGS, default=EVENT,
                     help="how chance is keyed: event (by the event count, the default) or "
                          "purpose (by what is drawn and how often before, so games of one "
                          "seed share their luck whatever the decisions; in the log header)")
    sim.add_argument("--jobs", type=int, default=None,
                     help="with --games: worker processes (default 1)")
    sim.add_argument("--dask", metavar="ADDRESS",
                     help="run the batch on a Dask cluster (extra tokaido-rules[dask])")
    sim.add_argument("--out", metavar="DIR", help="with --games: write every game's log")
    sim.add_argument("--plot", metavar="FILE.png",
                     help="with --games: plot score distributions by traveller "
                          "(extra tokaido-rules[plot])")
    sim.add_argument("--log", metavar="FILE", help="write the game's event log (JSON Lines)")
    sim.add_argument("--view", type=int, metavar="SEAT",
                     help="with --log: write that seat's copy (hidden facts withheld)")
    _width_option(sim)
    ply = command("play", "play against bots in the terminal")
    ply.add_argument("--players", type=int, default=None, help="2 to 5 (default 4)")
    ply.add_argument("--human", type=int, default=0, help="your seat (default 0)")
    ply.add_argument("--bots", default="greedy", metavar="BOT,...",
                     help="the other seats' bots, cycled (tokaido bots lists them; the "
                          "difficulty ladder: ismcts-fast, ismcts, ismcts-strong)")
    _bot_options(ply)
    ply.add_argument("--hint-bot", default=DEFAULT_BOT, metavar="BOT",
                     help="the bot that scores your options when you type 'hint' (one "
                          f"with evaluate; default {DEFAULT_BOT})")
    ply.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    ply.add_argument("--plugins", default=None,
                     help="comma-separated plugin ids (default base)")
    _rule_options(ply)
    ply.add_argument("--resume", metavar="FILE", help="continue a game saved with 'save'")
    ply.add_argument("--width", type=int, metavar="COLUMNS",
                     help="the board's width (default: the terminal's, else 80)")
    ply.add_argument("--save-to", metavar="FILE",
                     help="where Ctrl-C, SIGTERM, SIGHUP or the end of the input "
                          "save the game's log (default: tokaido-game-SEQ.jsonl in the "
                          "current directory)")
    srv = command("serve", "host tables in the browser: people, bots and spectators "
                           "(the web extra)")
    srv.add_argument("--db", default="tokaido-tables.db", metavar="FILE|URL",
                     help="the SQLite database of the tables, resumed at start (default "
                          "tokaido-tables.db; ':memory:' keeps nothing), or a "
                          "postgresql://... URL that any number of server processes "
                          "share (the postgres extra)")
    srv.add_argument("--players", type=int, default=None,
                     help="start a new table of 2 to 5 players, with your seat (default: "
                          "none; tables are made in the lobby)")
    srv.add_argument("--human", type=int, default=0, help="your seat at it (default 0)")
    srv.add_argument("--open", default="", metavar="SEAT,...",
                     help="seats left open for other people to join (default none)")
    srv.add_argument("--bots", default="greedy", metavar="BOT,...",
                     help="the other seats' bots, cycled (tokaido bots lists them)")
    _bot_options(srv)
    srv.add_argument("--hint-bot", default=DEFAULT_BOT, metavar="BOT",
                     help="the bot whose analysis a seat's hint shows (one with evaluate; "
                          f"default {DEFAULT_BOT}; its options from --bot-option)")
    srv.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    srv.add_argument("--plugins", default="base", help="comma-separated plugin ids")
    _rule_options(srv)
    srv.add_argument("--host", default="127.0.0.1",
                     help="the address to listen on (default 127.0.0.1: this machine only)")
    srv.add_argument("--port", type=int, default=8000,
                     help="the port to listen on (default 8000)")
    srv.add_argument("--max-connections", type=int, default=None, metavar="N",
                     help="the most connections open at once (default 512; each page "
                          "keeps one open)")
    srv.add_argument("--db-timeout", type=float, default=None, metavar="SECONDS",
                     help="how long a write waits for the database when another process "
                          "holds it before the action is refused with 503 (default 5)")
    srv.add_argument("--max-connections-per-address", type=int, default=None, metavar="N",
                     help="the most connections open at once from one client address "
                          "(default 64; 0: no bound; behind a proxy, raise it)")
    srv.add_argument("--tables-per-minute", type=int, default=None, metavar="N",
                     help="the most tables one client address creates in a minute "
                          "(default 20; 0: no bound)")
    srv.add_argument("--max-tables", type=int, default=None, metavar="N",
                     help="the most tables the server holds (default 2000)")
    srv.add_argument("--forwarded-allow-ips", default=None, metavar="IP,...",
                     help="the reverse proxies trusted: their X-Forwarded-For is the "
                          "client's address (addresses or networks, comma-separated; "
                          "'*': any; default 127.0.0.1,::1)")
    srv.add_argument("--public-url", default=None, metavar="URL",
                     help="where people reach the server behind a proxy, e.g. "
                          "https://tokaido.example.org: the links it prints and the "
                          "invitations' links start with it")
    srv.add_argument("--expire-finished-days", type=float, default=None, metavar="DAYS",
                     help="delete a finished table this long after its last action or "
                          "visit (default 7; 0: never)")
    srv.add_argument("--expire-abandoned-days", type=float, default=None, metavar="DAYS",
                     help="delete an unfinished table with no action and no seat's page "
                          "connected for this long (default 3; 0: never)")
    bts = command("bots", "list the installed bots and their options")
    bts.add_argument("--format", choices=("text", "json"), default="text",
                     help="output: text or json")
    _width_option(bts)
    trn = command("tournament", "rate bots against each other: every line-up, seats "
                                "rotated; ratings, win rates, scores, head to head")
    trn.add_argument("--bots", required=True, metavar="BOT,...",
                     help="the bots entered (two or more distinct names)")
    _bot_options(trn)
    trn.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    trn.add_argument("--games", type=int, default=None,
                     help="games in all, spread over the line-ups and seat rotations "
                          "(default: one round of them)")
    trn.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    trn.add_argument("--duplicate", action="store_true",
                     help="duplicate format: each line-up's seat rotations share one seed, "
                          "chance keyed by purpose, so luck cancels (--games rounded up to "
                          "whole groups)")
    trn.add_argument("--plugins", default="base", help="comma-separated plugin ids")
    _rule_options(trn)
    trn.add_argument("--engine", choices=ENGINES, default="auto",
                     help="auto, fast or reference (default auto; the same games)")
    trn.add_argument("--jobs", type=int, default=None,
                     help="worker processes (default 1; the same output)")
    trn.add_argument("--dask", metavar="ADDRESS",
                     help="run the games on a Dask cluster (extra tokaido-rules[dask]; the "
                          "same output)")
    trn.add_argument("--format", choices=("text", "json", "csv"), default="text",
                     help="output: text, json or csv (default text)")
    trn.add_argument("--plot", metavar="FILE.png",
                     help="plot the ratings with their intervals (extra tokaido-rules[plot])")
    trn.add_argument("--progress", action="store_true",
                     help="show a progress bar and the time taken on stderr (off by "
                          "default: the output is the same whatever the machine)")
    _width_option(trn)
    tbl = command("tables", "list or delete the tables of a tokaido serve database")
    tbl_sub = tbl.add_subparsers(dest="tables_command", metavar="ACTION", help="one of:")
    said = "list the tables: id, created, last active, seats, seq, over"
    tls = tbl_sub.add_parser("list", help=said, description=said[0].upper() + said[1:] + ".")
    tls.add_argument("--db", required=True, metavar="FILE|URL", help="the database")
    tls.add_argument("--format", choices=("text", "json"), default="text",
                     help="output: text or json")
    said = "delete tables: all of them, or none if one is unknown"
    tdl = tbl_sub.add_parser("delete", help=said, description=said[0].upper() + said[1:] + ".")
    tdl.add_argument("--db", required=True, metavar="FILE|URL", help="the database")
    tdl.add_argument("ids", nargs="+", metavar="ID", help="the tables to delete")
    sch = command("schema", "print the JSON Schemas of the wire format")
    sch.add_argument("--plugins", default="base", help="comma-separated plugin ids")
    sch.add_argument("--players", type=int, metavar="N",
                     help="narrow seats and travellers to a game of N players")
    plg = command("plugins", "list the installed plugins")
    plg.add_argument("--format", choices=("text", "json"), default="text",
                     help="output: text or json")
    _width_option(plg)
    bld = command("build-fast", "compile the fast simulator with mypyc for more speed "
                                "(optional; needs the mypyc extra and a C compiler)")
    bld.add_argument("--remove", action="store_true",
                     help="remove the compiled build instead (back to pure Python)")
    ana = command("analyse", "score every decision of one seat of a logged game: each "
                             "legal action's expected final margin and win probability, "
                             "the best action and the points lost by the one played")
    ana.add_argument("file", metavar="LOG", help="a full log (JSON Lines)")
    ana.add_argument("--seat", type=int, metavar="S", help="the seat whose decisions are "
                     "analysed, each from its view only (required)")
    ana.add_argument("--bot", default=DEFAULT_BOT, metavar="B",
                     help="a registered bot that scores actions (has evaluate; default "
                          f"{DEFAULT_BOT})")
    ana.add_argument("--bot-option", action="append", default=[], metavar="B.KEY=VALUE",
                     help="an option of the analysing bot (repeatable; tokaido bots lists "
                          "them)")
    ana.add_argument("--seed", type=int, default=0,
                     help="seeds the analysing bot, a stream per decision (default 0)")
    ana.add_argument("--format", choices=("text", "json"), default="text",
                     help="output: text (a line per decision) or json (per-action figures)")
    ana.add_argument("--html", metavar="OUT.html",
                     help="also write the replay viewer page with the analysis's marks "
                          "(only what the seat saw)")
    rep = command("replay", "replay a full event log")
    rep.add_argument("file", metavar="FILE", help="the log (JSON Lines)")
    rep.add_argument("--to", type=int, metavar="SEQ", help="stop after event SEQ")
    rep.add_argument("--view", type=int, metavar="SEAT", help="show what SEAT sees")
    rep.add_argument("--verify", action="store_true",
                     help="play the log again under the current rules, chance drawn again "
                          "from the seed; exit 1 at the first difference or if the game "
                          "is not over")
    rep.add_argument("--allow-unfinished", action="store_true",
                     help="with --verify: accept a log of a game that is not over")
    rep.add_argument("--format", choices=("text", "json"), default="text",
                     help="output: text or json")
    _width_option(rep)
    rep.add_argument("--html", metavar="OUT.html",
                     help="write a self-contained replay viewer page (FILE may be a "
                          "seat's copy of a log)")
    rep.add_argument("--seat", type=int, metavar="SEAT",
                     help="with --html: only what SEAT saw (default: every seat of a "
                          "full log)")
    rep.add_argument("--analysis", metavar="ANALYSIS.json",
                     help="with --html: show the marks and per-action figures of an "
                          "analysis (tokaido analyse --format json) at its seat's steps")
    return parser


def _width(args: argparse.Namespace) -> int:
    """The width of text output: ``--width``, else the terminal's (80 when not a
    terminal)."""
    if args.width is not None:
        if args.width < 20:
            raise _UsageError("--width must be at least 20")
        return int(args.width)
    return max(20, shutil.get_terminal_size((80, 24)).columns)


def play_bots(game: Game, seed: int, names: Sequence[str] = ("random",),
              random_decisions: Collection[str] = (),
              bot_options: Mapping[str, Mapping[str, object]] | None = None) -> Game:
    """Play to the end with the named bots (cycled over the seats, each made with its
    options in ``bot_options``); decisions of the kinds in ``random_decisions`` are
    taken at random instead. A bot that fails raises :class:`~tokaido_rules.BotError`."""
    seats = [names[seat % len(names)] for seat in range(game.players)]
    bots = _seat_bots(seed, seats, bot_options)
    look_ahead_on(bots, "reference")  # the reference engine throughout
    asked = 0
    while not game.is_over:
        game = game.apply(decide(game, bots, random_decisions, seed, asked, seats))
        asked += 1
    return game


def _seat_bots(seed: int, seats: Sequence[str],
               bot_options: Mapping[str, Mapping[str, object]] | None) -> list[Any]:
    given = bot_options or {}
    return [make_bot(name, seed ^ BOT_SALT ^ (seat * 0x9E3779B9), given.get(name))
            for seat, name in enumerate(seats)]


def play_fast_bots(game: FastGame, seed: int, names: Sequence[str] = ("random",),
                   random_decisions: Collection[str] = (),
                   bot_options: Mapping[str, Mapping[str, object]] | None = None) -> FastGame:
    """:func:`play_bots` on the fast simulator (in place): the same bots, seeded alike,
    make the same game. A bot that reads views needs a game that builds them without a
    replay (a :class:`~tokaido_rules.fast.ViewableGame`:
    :func:`~tokaido_rules.simulate.fast_game`)."""
    seats = [names[seat % len(names)] for seat in range(game.players)]
    return play_fast(game, _seat_bots(seed, seats, bot_options), random_decisions, seed,
                     seats)


def _bot_args(text: str, items: Sequence[str], also: Sequence[str] = ()
              ) -> tuple[list[str], dict[str, dict[str, object]]]:
    """``--bots`` and ``--bot-option``, checked: the names (each registered) and each
    named bot's options, typed (options may name the bots of ``also`` too: ``play``'s
    hint bot). A bad name or option is one line (UnknownBotError)."""
    names = [b.strip() for b in text.split(",") if b.strip()]
    if not names:
        raise _UsageError(f"--bots takes registered bot names (tokaido bots lists them), "
                          f"got {text!r}")
    try:
        for name in names:
            bot_factory(name)
    except TokaidoError as exc:
        raise _UsageError(f"--bots: {exc}") from None
    try:
        given = parse_bot_options(items, [*names, *also])
        return names, {n: check_options(n, o) for n, o in given.items()}
    except TokaidoError as exc:
        raise _UsageError(f"--bot-option: {exc}") from None


def _kinds(args: argparse.Namespace) -> list[str]:
    return [k.strip() for k in args.random_decisions.split(",") if k.strip()]


def _executor(dask: str | None, jobs: int) -> tuple[Any, Any]:
    """Where a batch's games run: a Dask cluster's executor (and its client, to close),
    a pool of ``jobs`` processes, or ``None`` (here, one after another)."""
    if dask:
        try:
            from dask.distributed import Client
        except ImportError:
            raise _UsageError("--dask needs the dask extra: pip install '.[dask]' in a clone, or "
                              "the wheel with [dask]") from None
        try:
            client: Any = Client(dask, timeout="10s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as exc:
            raise _UsageError(f"cannot reach the Dask cluster at {dask}: {exc}") from None
        return client.get_executor(), client
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(jobs, initializer=_worker_init), None
    return None, None


def _batch(args: argparse.Namespace, plugins: list[str], options: dict[str, object],
           bots: list[str], registry: Registry) -> int:
    if args.games < 1 or args.jobs < 1:
        raise _UsageError("--games and --jobs must be at least 1")
    tune_jit()
    executor, client = _executor(args.dask, args.jobs)
    if args.out:
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as exc:
            raise _UsageError(f"cannot create {args.out}: {exc.strerror}") from None
    progress = _progress_bar(args.games)
    tally = Tally()
    rows = _GameRows(args.format)
    stopped = True  # until the batch ends normally
    old_sigterm: Any = None
    if executor is not None and client is None:
        with contextlib.suppress(ValueError):  # not the main thread: leave SIGTERM be
            old_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        results = play_games(args.games, args.players, plugins, bots, args.seed, options,
                             executor=executor, keep_logs=bool(args.out),
                             random_decisions=_kinds(args), engine=args.engine,
                             bot_options=args.bot_opts, chance=args.chance)
        start = time.perf_counter()
        with progress as bar:
            task = bar.add_task("games", total=args.games)
            for result in results:
                tally.add(result)
                rows.write(result)
                if args.out:
                    _write(os.path.join(args.out, log_name(result.index, args.games)),
                           result.log or "")
                bar.update(task, completed=tally.games)
        summary = tally.summary(time.perf_counter() - start)
        stopped = False
    finally:
        _end_executor(executor, client, stopped)
        if old_sigterm is not None:
            signal.signal(signal.SIGTERM, old_sigterm)
    if args.plot:
        _plot(summary, args.plot, registry)
    if args.format == "text":
        _print_summary(summary, args, registry)
    else:
        rows.close(summary)
    return 0


def log_name(index: int, games: int) -> str:
    """The file name of game ``index``'s log in ``--out``: numbered with enough digits
    (at least five) that the names of a batch of ``games`` sort in game order."""
    return f"game-{index:0{max(5, len(str(games - 1)))}d}.jsonl"


class _GameRows:
    """Per-game output of a batch (``--format json`` or ``csv``), written as each game
    finishes, so that a batch of millions never sits in memory; the JSON document ends
    with the summary."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.games = 0
        self.categories: list[str] = []
        self.csv = csv.writer(sys.stdout, lineterminator="\n")

    def write(self, r: GameResult) -> None:
        first = self.games == 0
        self.games += 1
        if self.fmt == "json":
            game = {"index": r.index, "seed": encode_seed(r.seed), "decisions": r.decisions,
                    "events": r.events,
                    "players": [{"seat": x.seat, "bot": x.bot, "traveller": x.traveller,
                                 "score": x.score, "rank": x.rank, "win": x.win,
                                 "categories": x.categories} for x in r.seats]}
            sys.stdout.write(('{"games": [\n' if first else ",\n") + json.dumps(game))
        elif self.fmt == "csv":
            if first:
                self.categories = list(r.seats[0].categories)
                self.csv.writerow(["game", "seed", "seat", "bot", "traveller", "score", "rank",
                                   "win", *self.categories])
            for x in r.seats:
                self.csv.writerow([r.index, r.seed, x.seat, x.bot, x.traveller, x.score,
                                   x.rank, f"{x.win:.4f}",
                                   *[x.categories[c] for c in self.categories]])

    def close(self, summary: Summary) -> None:
        if self.fmt == "json":
            doc = attrs.asdict(summary, recurse=False)  # every figure, in field order
            print(f'\n],\n"summary": {json.dumps(doc, indent=2)}}}')


def _progress_bar(total: int) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeRemainingColumn(), transient=True,
                    redirect_stdout=False, redirect_stderr=False,
                    disable=total < 20 or not sys.stderr.isatty(),
                    console=_stderr_console())


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def _plot(summary: Summary, path: str, registry: Registry) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise _UsageError("--plot needs the plot extra: pip install '.[plot]' in a clone, or the "
                          "wheel with [plot]") from None
    dist = summary.score_counts_by_traveller
    names = sorted(dist)
    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.8), 4.5))
    ax.bxp([_box_stats(dist[n]) for n in names], showfliers=True)
    ax.set_xticks(range(1, len(names) + 1), [registry.traveller_name(n) for n in names],
                  rotation=45, ha="right")
    ax.set_ylabel("final score")
    ax.set_title(f"Scores by traveller ({summary.games} games)")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise _UsageError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def _box_stats(counts: dict[int, int]) -> dict[str, Any]:
    """Box-plot figures of a distribution given as ``value -> count``: the median and
    quartiles (interpolated between ranks, as ``numpy.percentile`` does), whiskers at the
    furthest values within 1.5 box lengths, and the values beyond them."""
    values = sorted(counts)
    total = sum(counts.values())

    def at(rank: int) -> int:  # the value of rank ``rank`` (0-based) of the sorted data
        seen = 0
        for v in values:
            seen += counts[v]
            if rank < seen:
                return v
        return values[-1]

    def quantile(q: float) -> float:
        pos = q * (total - 1)
        low = int(pos)
        return at(low) + (at(min(low + 1, total - 1)) - at(low)) * (pos - low)

    q1, med, q3 = quantile(0.25), quantile(0.5), quantile(0.75)
    reach = 1.5 * (q3 - q1)
    inside = [v for v in values if q1 - reach <= v <= q3 + reach]
    return {"med": med, "q1": q1, "q3": q3, "whislo": inside[0], "whishi": inside[-1],
            "fliers": [v for v in values if v < inside[0] or v > inside[-1]]}


def _print_summary(s: Summary, args: argparse.Namespace, registry: Registry) -> None:
    width = _width(args)
    traveller = registry.traveller_name
    print(f"{s.games} games of {args.players} players, plugins {args.plugins}, bots "
          f"{args.bots}, seed {args.seed}")
    if _kinds(args):
        print(f"taken at random: {', '.join(_kinds(args))}")
    if args.chance != EVENT:
        print(f"chance keyed by {args.chance}")
    print(f"{s.games_per_second:.1f} games per second ({s.seconds:.2f} s), "
          f"{s.decisions_per_game:.1f} decisions per game\n")
    grids = [
        Grid(["seat", "win rate", "95% interval", "mean score", "±95%"],
             [[str(k), f"{v:.3f}", _interval(s.win_rate_interval_by_seat[k]),
               f"{s.mean_score_by_seat[k]:.1f}", _margin(s.mean_score_margin_by_seat, k, 1)]
              for k, v in s.win_rate_by_seat.items()]),
        Grid(["traveller", "games", "win rate", "95% interval", "mean score", "±95%"],
             [[traveller(k), str(s.games_by_traveller[k]), f"{v:.3f}",
               _interval(s.win_rate_interval_by_traveller[k]),
               f"{s.mean_score_by_traveller[k]:.1f}",
               _margin(s.mean_score_margin_by_traveller, k, 1)]
              for k, v in s.win_rate_by_traveller.items()]),
        Grid(["bot", "win rate", "95% interval"],
             [[k, f"{v:.3f}", _interval(s.win_rate_interval_by_bot[k])]
              for k, v in s.win_rate_by_bot.items()]),
        Grid(["category", "mean points"],
             [[registry.category_label(k), f"{v:.2f}"]
              for k, v in s.mean_points_by_category.items()]),
    ]
    for n, grid in enumerate(grids):
        if n:
            print()
        _print_table(grid, width)


def _at_terminal() -> bool:
    """Whether standard output is a terminal: tables are then drawn with ``rich``;
    piped or redirected, they are the render module's plain text."""
    try:
        return sys.stdout.isatty()
    except ValueError:  # closed
        return False


def _console(width: int) -> Any:
    """A ``rich`` console on standard output, ``width`` wide. Its colours follow rich's
    conventions (none under ``NO_COLOR`` or ``TERM=dumb``)."""
    from rich.console import Console

    return Console(file=sys.stdout, width=width, highlight=False, markup=False, emoji=False)


def _rich_table(grid: Grid, *, compact: bool = False) -> Any:
    """``grid`` as a ``rich`` table: names aligned left, figures right, in boxes, or
    ``compact``: columns two spaces apart under a rule, as in the plain table. A cell
    too long for its column folds onto more lines."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    drawn = (Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                   collapse_padding=True) if compact else Table())
    for n, header in enumerate(grid.headers):
        drawn.add_column(Text(header), justify="left" if n < grid.left else "right",
                         overflow="fold")
    for row in grid.rows:
        drawn.add_row(*(Text(cell) for cell in row))
    return drawn


def _print_rich(grids: Sequence[Grid], width: int) -> None:
    """The first of ``grids`` that fits in ``width`` as a boxed ``rich`` table, else the
    first that fits compact, else the last compact (its long cells fold)."""
    console = _console(width)
    unbounded = console.options.update_width(10**6)
    tried = [_rich_table(grid, compact=compact) for compact in (False, True)
             for grid in grids]
    fits = (t for t in tried if console.measure(t, options=unbounded).maximum <= width)
    console.print(next(fits, tried[-1]))


def _print_table(grid: Grid, width: int) -> None:
    """A table, ``width`` wide at most: drawn with ``rich`` at a terminal, else plain
    (:func:`~tokaido_rules.render.table`)."""
    if _at_terminal():
        _print_rich([grid], width)
    else:
        print(table(grid.headers, grid.rows, width=width, left=grid.left))


def _print_scores(game: Game, width: int) -> None:
    """The score table, ``width`` wide at most: at a terminal drawn with ``rich``, seats
    as rows where every category fits as a column, else seats as columns; piped, the
    plain :func:`~tokaido_rules.render.score_table`."""
    if _at_terminal():
        _print_rich([score_rows(game), score_rows(game, seats_as_columns=True)], width)
    else:
        print(score_table(game, width=width))


def _interval(bounds: tuple[float, float]) -> str:
    """A win rate's 95% Wilson interval for a table (``Summary.win_rate_interval_*``)."""
    return f"{bounds[0]:.3f}-{bounds[1]:.3f}"


def _margin(margins: Mapping[Any, float], key: object, places: int) -> str:
    """A 95% margin for a table, or "-" for a row of a single player."""
    value = margins.get(key)
    return "-" if value is None else f"{value:.{places}f}"


def result_document(game: Game) -> dict[str, Any]:
    """The JSON document of a game (``simulate`` and ``replay --format json``): its
    ruleset and seed, each seat's score, the winners, and how many decisions
    (:func:`~tokaido_rules.simulate.decision_count`) and events."""
    state = game.state
    return {
        "plugins": list(game.ruleset.ids),
        "options": dict(game.ruleset.options),
        "seed": encode_seed(game.seed),  # 64 bits: a string, which JavaScript reads exactly
        "players": [
            {
                "seat": s.seat,
                "traveller": s.traveller,
                "score": s.total,
                "rank": s.rank,
                "categories": dict(s.categories),
                "coins": state.pieces[s.seat].coins,
                "cards": len(state.zone(collection_zone(s.seat))),
            }
            for s in game.scores()
        ],
        "winners": list(game.winners()),
        "decisions": decision_count(game),
        "events": len(game.events),
    }


def _simulate(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.games is None:
        raise _UsageError("--jobs goes with --games G (a batch of games)")
    args.games = 1 if args.games is None else args.games
    args.jobs = 1 if args.jobs is None else args.jobs
    plugins, options = _batch_plugins(args)
    ruleset = Ruleset.build(plugins, options)
    bots, args.bot_opts = _bot_args(args.bots, args.bot_option)
    try:
        args.engine = choose_engine(args.engine, ruleset, bots, args.players)
    except SetupError as exc:
        raise _UsageError(f"--engine fast: {exc}") from None
    batch = args.games != 1 or args.jobs != 1 or args.dask or args.out or args.plot
    if batch or args.format == "csv":
        if args.log or args.view is not None:
            raise _UsageError("--log and --view are for a single game; use --out DIR")
        return _batch(args, plugins, options, bots, ruleset.registry)
    if args.view is not None and args.log is None:
        raise _UsageError("--view needs --log FILE")
    kinds = decision_kinds(ruleset, _kinds(args))
    if args.engine == "fast":  # played fast, told from the same game on the reference
        maker = FastGame if all(fast_bot(bot) for bot in bots) else ViewableGame
        game = play_fast_bots(maker.new(args.players, seed=args.seed, plugins=ruleset,
                                        chance=args.chance),
                              args.seed, bots, kinds, args.bot_opts).to_game()
    else:
        game = play_bots(new_game(args.players, seed=args.seed, plugins=ruleset,
                                  chance=args.chance), args.seed, bots, kinds, args.bot_opts)
    if args.log is not None:
        _write(args.log, dump_log(game, viewer=args.view))
    title = f"Tokaido: {args.players} players, seed {args.seed}, plugins {','.join(ruleset.ids)}"
    if args.chance != EVENT:
        title += f", chance keyed by {args.chance}"
    _print_game(game, None, args.format, title, _width(args))
    return 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise _UsageError(f"cannot write {path}: {exc.strerror}") from None


def _print_game(game: Game, upto: int | None, fmt: str, title: str, width: int) -> None:
    if fmt == "json":
        if upto is not None:
            game = Game(replay(game.state.rules, game.seed, game.events[: upto + 1]),
                        game.events[: upto + 1])
        print(json.dumps(result_document(game), indent=2))
        return
    print(title)
    for line in journey_lines(game, upto, width=width):
        print(line)
    if upto is not None:
        game = Game(replay(game.state.rules, game.seed, game.events[: upto + 1]),
                    game.events[: upto + 1])
    print()
    _print_scores(game, width)
    _print_outcome(game, game.state.seq)


def _print_outcome(game: Game, seq: int) -> None:
    """The winners, or who decides next in a game ``seq`` events long."""
    if game.is_over:
        winners = ", ".join(f"seat {w}" for w in game.winners())
        print(f"\nWinner{'s' if len(game.winners()) > 1 else ''}: {winners}")
        return
    try:
        current = game.current_player
    except Exception:  # what a seat's copy shows may not tell whose decision it is
        current = None
    if current is None:
        print(f"\nIn progress after seq {seq - 1}, between two events of one decision.")
    else:
        print(f"\nIn progress after seq {seq - 1}: seat {current} decides.")


def _read_log(path: str) -> Game:
    """Load the log at ``path``, read line by line (``cannot read`` if it cannot be)."""
    try:
        return load_log(Path(path))
    except OSError as exc:
        raise _UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _verify(args: argparse.Namespace) -> int:
    """Status 0 if the log verifies, 1 if not (the first differing seq is printed)."""
    try:
        result = verify_log(Path(args.file), allow_unfinished=args.allow_unfinished)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    if args.format == "json":
        print(json.dumps({"ok": result.ok, "seq": result.seq, "message": result.message,
                          "decisions": result.decisions}, indent=2))
    else:
        where = "the header" if result.seq is None else f"seq {result.seq}"
        status = "OK" if result.ok else f"DISAGREES at {where}"
        print(f"verify: {status}: {result.message}")
    return 0 if result.ok else 1


def _replay_html(args: argparse.Namespace) -> int:
    """Write the viewer page of a full log or of a seat's copy."""
    from .viewer import replay_html, seat_copy_html

    if args.verify or args.to is not None or args.view is not None:
        raise _UsageError("--html takes no --verify, --to or --view (use --seat)")
    analysis = None if args.analysis is None else _read_analysis(args.analysis)
    if _is_seat_copy(args.file):
        copy = load_seat_copy(Path(args.file))
        if args.seat is not None and args.seat != copy.viewer:
            raise _UsageError(f"this is {_whose(copy.viewer)} of the log: it cannot "
                              f"show seat {args.seat}")
        page = seat_copy_html(copy, analysis=analysis)
    else:
        game = _read_log(args.file)
        if args.seat is not None and not 0 <= args.seat < game.players:
            raise _UsageError(f"--seat must be from 0 to {game.players - 1}")
        page = (replay_html(game, analysis=analysis) if args.seat is None
                else replay_html(game, [args.seat], everything=False, analysis=analysis))
    _write(args.html, page)
    return 0


def _read_analysis(path: str) -> dict[str, Any]:
    """The analysis document at ``path`` (``tokaido analyse --format json``), checked."""
    from .analysis import load_analysis

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _UsageError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                          ) from None
    return load_analysis(text)


def _analyse(args: argparse.Namespace) -> int:
    """``tokaido analyse``: a seat's decisions scored from its view (text or JSON), and
    with ``--html`` the viewer page showing them."""
    from .analysis import analyse_game

    try:
        bot_factory(args.bot)
        given = parse_bot_options(args.bot_option, [args.bot])
        options = check_options(args.bot, given.get(args.bot, {}))
    except TokaidoError as exc:
        raise _UsageError(f"--bot: {exc}") from None
    if _is_seat_copy(args.file):
        raise _UsageError(f"{args.file} is a seat's copy of a log: analyse takes a full log "
                          "(a copy does not name every card its seat saw, so its views "
                          "cannot be rebuilt; each decision of a full log is still "
                          "analysed from its seat's view only)")
    game = _read_log(args.file)
    if args.seat is None:
        raise _UsageError("--seat is required: the seat whose decisions are analysed "
                          f"(0 to {game.players - 1})")
    if not 0 <= args.seat < game.players:
        raise _UsageError(f"--seat must be from 0 to {game.players - 1}")
    found = analyse_game(game, args.seat, args.bot, seed=args.seed, options=options)
    doc = found.document()
    if args.html is not None:
        from .viewer import replay_html

        _write(args.html, replay_html(game, [args.seat], everything=False, analysis=doc))
    if args.format == "json":
        print(json.dumps(doc, indent=2))
        return 0
    plugins = ",".join(game.ruleset.ids)
    print(f"Analysis of seat {args.seat}: {game.players} players, plugins {plugins}, "
          f"bot {found.bot}, seed {args.seed}: {len(found.decisions)} decisions")
    for line in found.lines():
        print(line)
    return 0


def _is_seat_copy(path: str) -> bool:
    """Whether the log at ``path`` is a seat's copy (its header names a viewer); a file
    that cannot be read or is not a log at all is left for the loader to name the
    problem."""
    try:
        with open(path, encoding="utf-8") as stream:
            first = stream.readline(MAX_LINE + 1)
    except (OSError, UnicodeDecodeError):
        return False
    try:
        head = json.loads(first)
    except ValueError:
        return False
    return isinstance(head, dict) and "viewer" in head


def _whose(viewer: int | str) -> str:
    """Whose copy of a log a seat's copy (or the public copy) is, in words."""
    return "the public copy" if isinstance(viewer, str) else f"seat {viewer}'s copy"


def _replay_copy(args: argparse.Namespace) -> int:
    """The text (or JSON) replay of a seat's copy of a log: what that seat saw, as
    :mod:`tokaido_rules.viewer` tells it (a card the seat did not see is counted, never
    named); the scores are public. ``--view`` may name only the copy's seat."""
    from .viewer import _seen_scene

    copy = load_seat_copy(Path(args.file))
    if args.view is not None and args.view != copy.viewer:
        raise _UsageError(f"this is {_whose(copy.viewer)} of the log: it cannot show "
                          f"seat {args.view}")
    if args.to is not None:
        if not 0 <= args.to < len(copy.lines):
            raise _UsageError(f"--to must be from 0 to {len(copy.lines) - 1}")
        copy = attrs.evolve(copy, lines=copy.lines[: args.to + 1],
                            complete=copy.complete and args.to == len(copy.lines) - 1)
    told, state = _copy_journey(copy)
    seen = Game(state, ())  # its scores: the scoring is public
    width = _width(args)
    if args.format == "json":
        doc = result_document(seen)
        del doc["seed"]  # a seat's copy has none
        doc.update(viewer=copy.viewer, decisions=decision_count(copy), events=len(copy.lines))
        if args.view is not None:
            sc = _seen_scene(state, copy.viewer)
            doc["view"] = {"seat": sc.seat, "seq": sc.seq,
                           "zones": {k: list(v) for k, v in sc.zones.items()},
                           "zone_sizes": dict(sc.zone_sizes),
                           "current_player": sc.current_player}
        print(json.dumps(doc, indent=2))
        return 0
    if args.view is not None:
        print(f"View of seat {copy.viewer} after seq {state.seq - 1} (from its copy of the "
              "log):")
        print(text(_seen_scene(state, copy.viewer), width=width))
        return 0
    print(f"Tokaido: {copy.players} players, plugins {','.join(copy.ruleset.ids)}: "
          f"{_whose(copy.viewer)} of the log, what "
          f"{'every seat' if isinstance(copy.viewer, str) else 'it'} saw")
    n = 0
    for numbered, said in told:
        n += numbered
        print(textwrap.fill(said, max(width, 12), initial_indent=f"{n:4d}. " if numbered
                            else "      ", subsequent_indent="      ",
                            break_on_hyphens=False))
    print()
    _print_scores(seen, width)
    _print_outcome(seen, state.seq)
    return 0


def _copy_journey(copy: SeatCopy) -> tuple[list[tuple[bool, str]], GameState]:
    """A seat's copy told as :func:`~tokaido_rules.render.journey` tells a game: one
    line per decision (``True``: numbered), the end of the journey and who won, from
    what the seat saw (a decision it saw only in part: who took it, its kind and its
    public effects, as ``tokaido play`` tells it); and the state it saw at the end."""
    from .viewer import _seen_fold, _unseen

    types = copy.ruleset.registry.events
    state = initial_state(copy.rules(), 0)
    told: list[tuple[bool, str]] = []
    step: list[SeatLine] = []

    def tell(last: bool = False) -> None:
        nonlocal state
        before = state
        for line in step:
            state = _seen_fold(state, line.event)
        if not step or not issubclass(types[step[0].type], Action | GameOver):
            return  # the setup
        first = step[0].event
        rest = [line.event for line in step[1:] if line.event is not None]
        if isinstance(first, Action):
            effects = describe_effects(rest, state, getattr(first, "piece", first.seat))
            told.append((True, describe_action(before, first)
                         + (f": {effects}" if effects else "")))
        elif isinstance(first, GameOver):
            told.append((False, "end of the journey: " + describe_effects(rest, state)))
            if last and state.over:
                told.append((False, outcome(Game(state, ()))))
        else:  # what the seat saw of it, as tokaido play says it
            data = step[0].data
            decider = data.get("piece", data.get("seat"))
            effects = describe_effects(rest, state, decider if type(decider) is int else None)
            told.append((True, f"{_unseen(step[0])} (details hidden)"
                         + (f": {effects}" if effects else "")))

    for line in copy.lines:
        if issubclass(types[line.type], Action | GameOver):
            tell()
            step = []
        step.append(line)
    tell(last=True)
    return told, state


def _replay(args: argparse.Namespace) -> int:
    if args.html is not None:
        return _replay_html(args)
    if args.seat is not None:
        raise _UsageError("--seat goes with --html (use --view for text)")
    if args.analysis is not None:
        raise _UsageError("--analysis goes with --html")
    if args.verify:
        if args.to is not None or args.view is not None:
            raise _UsageError("--verify checks the whole log; it takes no --to or --view")
        return _verify(args)
    if args.allow_unfinished:
        raise _UsageError("--allow-unfinished goes with --verify")
    if _is_seat_copy(args.file):
        return _replay_copy(args)
    game = _read_log(args.file)
    upto = args.to
    if upto is not None and not 0 <= upto < len(game.events):
        raise _UsageError(f"--to must be from 0 to {len(game.events) - 1}")
    if args.view is not None:
        at = game if upto is None else Game(
            replay(game.state.rules, game.seed, game.events[: upto + 1]), game.events[: upto + 1])
        view = at.view(args.view)
        if args.format == "json":
            doc = result_document(at)
            doc["view"] = _view_document(view)
            print(json.dumps(doc, indent=2))
        else:
            print(f"View of seat {view.seat} after seq {view.seq - 1}:")
            print(text(view, width=_width(args)))
        return 0
    plugins = ",".join(game.ruleset.ids)
    _print_game(game, upto, args.format,
                f"Tokaido: {game.players} players, seed {game.seed}, plugins {plugins}",
                _width(args))
    return 0


STOPPED_BY: dict[int, str] = {
    signal.SIGINT: "Aborted!", signal.SIGTERM: "Terminated!",
    **({signal.SIGHUP: "Hangup!"} if hasattr(signal, "SIGHUP") else {})}
"""What ``tokaido play`` says when a signal stops it (it then saves the game)."""


def _play(args: argparse.Namespace) -> int:
    """Play; Ctrl-C, SIGTERM, SIGHUP and the end of the input save the game (:func:`_save`)
    and exit with 128 + the signal's number, or 0 at the end of the input (2 if the
    game could not be saved)."""
    from .play import BotFailed, GameInterrupted, run, stop_on_signals

    bots, bot_opts = _bot_args(args.bots, args.bot_option, [args.hint_bot])
    if args.resume:
        game = _read_log(args.resume)
        _check_resumed(args, game)
    else:
        plugins = _plugin_ids(args.plugins or "base")
        seed = args.seed if args.seed is not None else new_seed()
        ruleset = Ruleset.build(plugins, _parse_options(args.option))
        game = new_game(4 if args.players is None else args.players, seed=seed,
                        plugins=ruleset)
    if not 0 <= args.human < game.players:
        raise _UsageError(f"--human must be a seat from 0 to {game.players - 1}")
    print(f"Tokaido: you are seat {args.human}; plugins {','.join(game.ruleset.ids)}. "
          "Type 'help' for commands.")
    width = _width(args)
    ended = False

    def read() -> str:
        nonlocal ended
        try:
            return input()
        except EOFError:
            ended = True
            raise

    try:
        with stop_on_signals():
            end = run(game, args.human, bots, game.seed, read, sys.stdout, width=width,
                      show_scores=lambda end: _print_scores(end, width), bot_options=bot_opts,
                      hint_bot=args.hint_bot)
    except BotFailed as failed:  # the game as it stood before the bot was asked: saved
        _save(args, failed.game, f"error: {failed}.")
        return 2
    except GameInterrupted as stop:
        _save(args, stop.game, STOPPED_BY.get(stop.signum, "Stopped!"))
        return 128 + stop.signum
    if ended and not end.is_over:
        return 0 if _save(args, end, "Input ended!") else 2
    return 0


def _save(args: argparse.Namespace, game: Game, why: str) -> bool:
    """Save a stopped game of ``play`` to ``--save-to`` or a free
    ``tokaido-game-SEQ.jsonl``, and say ``why`` it stopped, where it is saved and how to
    resume it (on stderr, which may be gone after a hangup); whether it was saved.
    Signals are ignored meanwhile, so that a second one cannot cut the save short."""
    from .play import signals_ignored

    with signals_ignored():
        with contextlib.suppress(OSError, ValueError):  # a terminal hung up, a closed pipe
            sys.stdout.flush()
        path = args.save_to or _free_name(f"tokaido-game-{game.state.seq}", ".jsonl")
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(dump_log(game))
        except OSError as exc:
            said, saved = f"The game could not be saved to {path}: {exc.strerror}", False
        else:
            said, saved = (f"The game is saved in {path}; resume with: "
                           f"tokaido play --resume {path}", True)
        with contextlib.suppress(OSError, ValueError):
            print(f"\n{why} {said}", file=sys.stderr)
            sys.stderr.flush()
    return saved


def _free_name(stem: str, suffix: str) -> str:
    """``stem + suffix``, or ``stem-N + suffix`` for the first N not taken."""
    path, n = stem + suffix, 1
    while os.path.exists(path):
        path, n = f"{stem}-{n}{suffix}", n + 1
    return path


def _check_resumed(args: argparse.Namespace, game: Game) -> None:
    """``play --resume``: the log decides the game; options that say otherwise are an
    error rather than ignored."""
    if args.players is not None and args.players != game.players:
        raise _UsageError(f"--players {args.players}: the resumed game has {game.players} "
                          "players")
    if args.plugins is not None:
        plugins = _plugin_ids(args.plugins)
        if set(Ruleset.build(plugins).ids) != set(game.ruleset.ids):
            raise _UsageError(f"--plugins {args.plugins}: the resumed game has plugins "
                              f"{','.join(game.ruleset.ids)}")
    if args.seed is not None and args.seed != game.seed:
        raise _UsageError(f"--seed {args.seed}: the resumed game has seed {game.seed}")
    if args.option:
        raise _UsageError("--option: a resumed game keeps the options in its log")


def _serve(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from .web import WILDCARD_HOSTS, bind, reachable_hosts, serve
    except ImportError:
        raise _UsageError("tokaido serve needs the web extra: pip install '.[web]' in a "
                          "clone, or the wheel with [web]") from None
    from .store import TIMEOUT
    from .store_pg import open_store
    from .tables import Lobby, TableError

    bots, bot_opts = _bot_args(args.bots, args.bot_option, [args.hint_bot])
    try:  # a hint bot that cannot analyse is a usage error now, not a 409 at each hint
        make_evaluator(args.hint_bot, 0, bot_opts.get(args.hint_bot))
    except TokaidoError as exc:
        raise _UsageError(f"--hint-bot: {exc}") from None
    if not 0 < args.port < 65536:
        raise _UsageError("--port must be from 1 to 65535")
    if args.max_connections is not None and args.max_connections < 1:
        raise _UsageError("--max-connections must be at least 1")
    timeout = TIMEOUT if args.db_timeout is None else args.db_timeout
    if not 0 <= timeout <= 3600:
        raise _UsageError("--db-timeout must be from 0 to 3600 seconds")
    limits: dict[str, Any] = {}
    for name, keyword, least in (
            ("max_connections_per_address", "max_per_address", 0),
            ("tables_per_minute", "creates_per_minute", 0),
            ("expire_finished_days", "expire_finished_days", 0),
            ("expire_abandoned_days", "expire_abandoned_days", 0)):
        value = getattr(args, name)
        if value is not None:
            if not value >= least or value != value or value == float("inf"):
                raise _UsageError(f"--{name.replace('_', '-')} must be at least {least}")
            limits[keyword] = value
    if args.max_tables is not None and args.max_tables < 1:
        raise _UsageError("--max-tables must be at least 1")
    public = args.public_url
    if public is not None:
        if not public.startswith(("http://", "https://")) or len(public.split("/")) > 4 \
                or not public.split("/")[2]:
            raise _UsageError("--public-url must be http(s)://HOST[:PORT][/], got "
                              f"{public!r}")
        limits["public_url"] = public.rstrip("/")
    if args.forwarded_allow_ips is not None:
        limits["forwarded_allow_ips"] = args.forwarded_allow_ips
    try:
        opened = [int(s) for s in args.open.split(",") if s.strip()]
    except ValueError:
        raise _UsageError(f"--open takes seat numbers, got {args.open!r}") from None
    plugins = _plugin_ids(args.plugins)
    options = _parse_options(args.option)
    sock = bind(args.host, args.port)  # a busy port is an error before anything is made
    def refused(table_id: str, why: str) -> None:
        print(f"table {table_id} is not served: {why}", file=sys.stderr, flush=True)

    # the server's lock on an SQLite file first: a second server on it stops here (on
    # PostgreSQL any number of processes serve the same tables)
    store = open_store(args.db, timeout=timeout, exclusive=True)
    lobby = Lobby(store, background=True, on_refused=refused, bot_options=bot_opts,
                  hint_bot=args.hint_bot)
    if args.max_tables is not None:
        lobby.max_tables = args.max_tables
    players = args.players
    where = public.rstrip("/") if public else \
        f"http://{'[' + args.host + ']' if ':' in args.host else args.host}:{args.port}"
    if players is not None:
        if not is_player_count(players):
            raise _UsageError(f"--players must be from {MIN_PLAYERS} to {MAX_PLAYERS}")
        if not 0 <= args.human < players or any(not 0 <= s < players for s in opened):
            raise _UsageError(f"--human and --open take seats from 0 to {players - 1}")
        others = [s for s in range(players) if s != args.human and s not in opened]
        try:
            table, _ = lobby.create(players, plugins, options,
                                    {str(s): bots[n % len(bots)] for n, s in enumerate(others)},
                                    seed=args.seed)
            token = table.join(args.human)
        except TableError as exc:
            raise _UsageError(str(exc)) from None
        print(f"Tokaido: you are seat {args.human} of {players}: open "
              f"{where}/t/{table.id}#token={token}", flush=True)
        if opened:
            print(f"Others join seats {', '.join(map(str, opened))} at {where}/", flush=True)
        print(f"Spectators watch at {where}/t/{table.id}", flush=True)
    print(f"All tables: {where}/ (the database is {store.path}; Ctrl-C stops)", flush=True)
    if args.host in WILDCARD_HOSTS:  # 0.0.0.0 is no address another device can open
        for address in reachable_hosts(args.host):
            there = f"http://{address}:{args.port}"
            print(f"From another device: {there}/"
                  + (f"  (seat {args.human}: {there}/t/{table.id}#token={token})"
                     if players is not None else ""), flush=True)
    serve(lobby, host=args.host, port=args.port, sock=sock,
          max_connections=args.max_connections, **limits)
    return 0


def _bots(args: argparse.Namespace) -> int:
    """``tokaido bots``: every registered bot, its package, whether it plays on the fast
    engine, what it is, and its options (name, type, default, what it does)."""
    rows: list[dict[str, Any]] = []
    for name in BOTS:
        try:
            spec = bot_spec(name)
        except TokaidoError as exc:  # listed, with why it cannot be used
            rows.append({"name": name, "package": BOTS.distribution(name), "fast": False,
                         "summary": f"unusable: {_one_line(exc)}", "options": []})
            continue
        rows.append({"name": name, "package": spec.distribution, "fast": spec.actions_only,
                     "summary": spec.summary,
                     "options": [{"name": o.name, "type": o.kind, "default": o.default,
                                  "help": o.help} for o in spec.options]})
    if args.format == "json":
        print(json.dumps({"bots": rows}, indent=2))
        return 0
    width = _width(args)
    for r in rows:
        where = ("plays on the fast engine wherever it covers the ruleset" if r["fast"] else
                 "reads its view: plays on the fast engine where it builds views")
        head = f"{r['name']} ({r['package']}; {where})"
        print(textwrap.fill(head, width))
        if r["summary"]:
            print(textwrap.fill(r["summary"], width, initial_indent="  ",
                                subsequent_indent="  "))
    options = [[r["name"], o["name"], o["type"],
                "none" if o["default"] is None else str(o["default"]), o["help"]]
               for r in rows for o in r["options"]]
    if options:
        print()
        _print_table(Grid(["bot", "option", "type", "default", "what it sets"], options,
                          left=5), width)
    print("\nSet an option with --bot-option BOT.KEY=VALUE (simulate, tournament, play, "
          "serve).")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    """``tokaido tournament``: :func:`~tokaido_rules.tournament.run_tournament` on an
    executor, formatted (:mod:`tokaido_rules.tournament`)."""
    from . import tournament

    names, bot_opts = _bot_args(args.bots, args.bot_option)
    if args.jobs is not None and args.dask:
        raise _UsageError("--jobs and --dask: give one of them")
    jobs = 1 if args.jobs is None else args.jobs
    if jobs < 1:
        raise _UsageError("--jobs must be at least 1")
    plugins, options = _batch_plugins(args)
    plan = tournament.plan(names, args.players, args.games, args.seed, plugins, options,
                           bot_opts, engine=args.engine,
                           duplicate=args.duplicate)  # checked before any game
    tune_jit()
    executor, client = _executor(args.dask, jobs)
    progress = _progress_bar(plan.games if args.progress else 0)
    stopped = True
    start = time.perf_counter()
    try:
        with progress as bar:
            task = bar.add_task("games", total=plan.games)
            result = tournament.play(plan, executor=executor,
                                     progress=lambda n: bar.update(task, completed=n))
        stopped = False
    finally:
        _end_executor(executor, client, stopped)
    if args.progress:
        print(f"{plan.games} games in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    if args.plot:
        try:
            tournament.plot(result, args.plot)
        except OSError as exc:
            raise _UsageError(f"cannot write {args.plot}: {exc.strerror}") from None
    if args.format == "json":
        print(json.dumps(tournament.to_document(result), indent=2))
    elif args.format == "csv":
        sys.stdout.write(tournament.to_csv(result))
    else:
        sys.stdout.write(tournament.to_text(result, width=_width(args)))
    return 0


def _tables(args: argparse.Namespace) -> int:
    """``tokaido tables list|delete --db FILE``: the operator's view of a server's
    database, through :class:`~tokaido_rules.store.TableStore`. A server running on it
    drops the deleted tables within seconds."""
    from datetime import datetime

    from .store_pg import open_store

    if args.tables_command is None:
        raise _UsageError("tokaido tables takes an action: list or delete")
    url = args.db.startswith(("postgresql://", "postgres://"))
    if not url and (args.db == ":memory:" or not os.path.isfile(args.db)):
        raise _UsageError(f"--db {args.db}: no such database")
    store = open_store(args.db)
    try:
        if args.tables_command == "delete":
            if len(set(args.ids)) != len(args.ids):
                raise _UsageError("an ID is given twice")
            for table_id in store.delete(args.ids):
                print(f"deleted {table_id}")
            return 0
        rows = store.overview()
    finally:
        store.close()
    if args.format == "json":
        print(json.dumps({"tables": rows}, indent=2))
        return 0

    def when(at: float) -> str:
        return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")

    print(f"{'ID':<12}  {'CREATED':<16}  {'ACTIVE':<16}  {'SEATS':<30}  {'SEQ':>5}  "
          f"{'STATE':<7}  HINTED")
    for row in rows:
        print(f"{row['table']:<12}  {when(row['created']):<16}  {when(row['active']):<16}  "
              f"{','.join(row['seats']):<30}  {row['seq']:>5}  "
              f"{'over' if row['over'] else 'playing':<7}  {row['hinted']}")
    print(f"{len(rows)} table{'' if len(rows) == 1 else 's'}")
    return 0


def plugin_rows() -> list[dict[str, Any]]:
    """Every discovered plugin: id, distribution, version, requires, conflicts, and a
    description; a plugin that fails to import is reported with its error."""
    rows = []
    for pid, ep in sorted(installed_plugins().items()):
        dist = ep.dist.name if ep.dist is not None else "?"
        dist_version = ep.dist.version if ep.dist is not None else "?"
        row: dict[str, Any] = {"id": pid, "distribution": dist,
                               "distribution_version": dist_version}
        try:
            info = plugin_info(load_plugin(pid))
        except TokaidoError as exc:
            row.update(version=None, requires=[], conflicts=[], description="",
                       error=str(exc))
        else:
            row.update(version=info.version, requires=list(info.requires),
                       conflicts=list(info.conflicts), description=info.description)
        rows.append(row)
    return rows


def _schema(args: argparse.Namespace) -> int:
    """Print the schema document: sorted keys, so that versions can be diffed."""
    plugins = _plugin_ids(args.plugins)
    if args.players is not None and not is_player_count(args.players):
        raise _UsageError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {args.players}")
    sys.stdout.write(schema_text(Ruleset.build(plugins), args.players))
    return 0


def _build_fast(args: argparse.Namespace) -> int:
    """``tokaido build-fast``: the compiled build of the fast simulator, made or removed
    (:mod:`tokaido_rules.native`); each file written or removed is printed."""
    from . import native

    if args.remove:
        removed = native.remove()
        for path in removed:
            print(f"removed {path}")
        if not removed:
            print("no compiled build to remove")
        return 0
    print("compiling tokaido_rules/fast.py with mypyc (a minute or so) ...", flush=True)
    for path in native.build():
        print(f"wrote {path}")
    print("the fast simulator now runs compiled (tokaido_rules.fast.compiled() is True "
          "in a new process)")
    return 0


def _plugins(args: argparse.Namespace) -> int:
    rows = plugin_rows()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    width = _width(args)

    def say(text: str, indent: str = "") -> None:  # wrapped at word boundaries
        print(textwrap.fill(text, width, initial_indent=indent, subsequent_indent="    ",
                            break_long_words=False, break_on_hyphens=False))

    for row in rows:
        if "error" in row:
            say(f"{row['id']} ({row['distribution']} {row['distribution_version']}): "
                f"FAILED TO LOAD: {row['error']}")
            continue
        requires = ", ".join(row["requires"]) or "-"
        conflicts = ", ".join(row["conflicts"]) or "-"
        say(f"{row['id']} {row['version']} ({row['distribution']} "
            f"{row['distribution_version']})")
        say(row["description"], "    ")
        say(f"requires: {requires}; conflicts: {conflicts}", "    ")
    return 0


def _view_document(view: View) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "seq": view.seq,
        "zones": {k: list(v) for k, v in view.zones.items()},
        "zone_sizes": dict(view.zone_sizes),
        "current_player": view.current_player,
        "legal_actions": [str(a) for a in view.legal_actions],
    }


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "simulate": _simulate, "replay": _replay, "schema": _schema, "plugins": _plugins,
    "play": _play, "serve": _serve, "tables": _tables, "bots": _bots,
    "tournament": _tournament, "build-fast": _build_fast, "analyse": _analyse,
}
"""What runs each command (the subparsers of ``_build_parser`` name the same)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's arguments); return the
    exit status. Without a command, print the help and return 0."""
    try:
        parser = _build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        run = _COMMANDS.get(args.command)
        if run is None:
            raise _UsageError(f"unknown command {args.command!r}")
        return run(args)
    except (_UsageError, TokaidoError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C, or a signal that play turns into one
        _aborted()
        return 128 + int(getattr(exc, "signum", signal.SIGINT))
    except _Terminated:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        print("\nTerminated", file=sys.stderr)
        return TERMINATED
    except BrokenPipeError:
        raise
    except Exception as exc:  # a crash is one line and status 2, never a traceback or 1
        print(f"error: unexpected {type(exc).__name__}: {_one_line(exc)} (this is a bug; "
              "please report it)", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    """An error's message on one line, whatever it holds."""
    try:
        text = str(exc)
    except Exception:  # e.g. a message that cannot be formatted
        text = ""
    return " ".join(text.splitlines()) or type(exc).__name__


def _aborted() -> None:
    """Ctrl-C: ``Aborted!`` on stderr, as click says it."""
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    print("\nAborted!", file=sys.stderr)


def _entry() -> NoReturn:
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into a program that stopped reading
        status = 0
    except KeyboardInterrupt:  # between main's own handlers
        _aborted()
        status = INTERRUPTED
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    _entry()
