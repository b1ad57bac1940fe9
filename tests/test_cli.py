"""The ``tokaido`` command line: simulate output, JSON document, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tokaido_rules import Action, Move, cli, decisions, dump_log, load_log, new_game
from tokaido_rules.cli import main
from tokaido_rules.log import load_seat_copy
from tokaido_rules.simulate import decision_count
from tokaido_rules.viewer import frames


@pytest.mark.parametrize("width", [80, 120])
def test_simulate_prints_journey_and_score_table(width: int,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A simulated game prints one numbered line per decision, in display names, and a
    score table (seats as columns, as the categories would not fit as columns), no line
    wider than --width."""
    assert main(["simulate", "--players", "3", "--seed", "4", "--width", str(width)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tokaido: 3 players, seed 4, plugins base")
    assert "   1. seat 0: choose Zen-emon: +6 coins" in out
    assert "end of the journey" in out and "gets Gourmet achievement" in out
    assert "zenemon" not in out and "achievement.gourmet" not in out
    lines = out.splitlines()
    for row in ("seat", "traveller", "Panoramas", "Souvenirs", "Meals", "Temple ranking",
                "total", "rank"):
        assert any(line.startswith(row + "  ") for line in lines), row
    assert "Winner" in out
    assert max(len(line) for line in lines) <= width


def test_simulate_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json prints one document with players, decisions and events."""
    assert main(["simulate", "--players", "2", "--seed", "9", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["seat"] for p in doc["players"]] == [0, 1]
    for player in doc["players"]:
        assert player["score"] == sum(player["categories"].values())
        assert player["rank"] >= 1 and player["traveller"]
    assert doc["decisions"] > 20 and doc["events"] > doc["decisions"]
    assert doc["plugins"] == ["base"]
    assert set(doc["winners"]) == {p["seat"] for p in doc["players"] if p["rank"] == 1}


def test_simulate_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed prints the same game."""
    main(["simulate", "--players", "4", "--seed", "2"])
    first = capsys.readouterr().out
    main(["simulate", "--players", "4", "--seed", "2"])
    assert capsys.readouterr().out == first


def test_simulate_with_option(capsys: pytest.CaptureFixture[str]) -> None:
    """--option PLUGIN.NAME=VALUE reaches the ruleset."""
    assert main(["simulate", "--option", "base.meal_hand=players", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["base.meal_hand"] == "players"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--players", "7"], "players must be 2 to 5"),
        (["simulate", "--players", "x"], "invalid int value"),
        (["simulate", "--plugins", "base,nope"], "unknown plugin 'nope'"),
        (["simulate", "--option", "base.meal_hand=lots"], "cannot be 'lots'"),
        (["simulate", "--option", "nonsense"], "PLUGIN.NAME=VALUE"),
        (["simulate", "--option", "base.nope=1"], "unknown option"),
        (["simulate", "--plugins", ","], "at least one plugin"),
        (["fly"], "invalid choice"),
        (["replay"], "required"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input prints a single 'error: ...' line on stderr and returns 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err


def test_console_script_exit_status() -> None:
    """The installed command exits with status 2 on bad input, 0 on success."""
    bad = subprocess.run([sys.executable, "-m", "tokaido_rules.cli", "simulate", "--players", "9"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
    good = subprocess.run([sys.executable, "-m", "tokaido_rules.cli", "simulate", "--seed", "1"],
                          capture_output=True, text=True, timeout=120)
    assert good.returncode == 0 and "Winner" in good.stdout


def test_simulate_writes_log_and_seat_copy(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """--log writes the full log; with --view, that seat's copy (no seed)."""
    full, copy = tmp_path / "g.jsonl", tmp_path / "g1.jsonl"
    assert main(["simulate", "--players", "3", "--seed", "6", "--log", str(full)]) == 0
    assert main(["simulate", "--players", "3", "--seed", "6", "--log", str(copy),
                 "--view", "1"]) == 0
    assert json.loads(full.read_text().splitlines()[0])["seed"] == 6
    head = json.loads(copy.read_text().splitlines()[0])
    assert "seed" not in head and head["viewer"] == 1
    capsys.readouterr()
    assert main(["replay", str(full)]) == 0
    replayed = capsys.readouterr().out
    main(["simulate", "--players", "3", "--seed", "6"])
    simulated = capsys.readouterr().out
    assert replayed == simulated


def test_replay_json_matches_simulate_json(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """replay --format json prints the same document as simulate --format json."""
    log = tmp_path / "g.jsonl"
    main(["simulate", "--players", "4", "--seed", "3", "--format", "json", "--log", str(log)])
    simulated = capsys.readouterr().out
    assert main(["replay", str(log), "--format", "json"]) == 0
    assert capsys.readouterr().out == simulated


def test_replay_to_and_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--to stops at an event; --view shows what a seat sees (hidden decks as counts)."""
    log = tmp_path / "g.jsonl"
    main(["simulate", "--players", "3", "--seed", "3", "--log", str(log)])
    capsys.readouterr()
    assert main(["replay", str(log), "--to", "40"]) == 0
    out = capsys.readouterr().out
    assert "In progress after seq 40: seat " in out and "Winner" not in out
    assert main(["replay", str(log), "--to", "40", "--view", "2"]) == 0
    view = capsys.readouterr().out
    assert view.startswith("View of seat 2 after seq 40:")
    assert ", you " in view and "Decks: Souvenirs " in view
    assert main(["replay", str(log), "--view", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["view"]["seat"] == 2


def test_replay_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--verify exits 0 when the rules agree and 1 at the first disagreement."""
    log = tmp_path / "g.jsonl"
    main(["simulate", "--players", "2", "--seed", "8", "--log", str(log)])
    capsys.readouterr()
    assert main(["replay", str(log), "--verify"]) == 0
    assert "verify: OK" in capsys.readouterr().out
    lines = log.read_text().splitlines()
    index = next(i for i, line in enumerate(lines)
                 if '"core.coins"' in line and '"delta":3' in line)
    lines[index] = lines[index].replace('"delta":3', '"delta":5')
    log.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(log), "--verify"]) == 1
    assert f"DISAGREES at seq {index - 1}" in capsys.readouterr().out


def test_replay_verify_an_unfinished_game(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A log that ends before the game does fails --verify as incomplete (status 1),
    unless --allow-unfinished; that flag goes with --verify only."""
    game = new_game(3, seed=2)
    for _ in range(12):
        game = game.apply(game.legal_actions()[0])
    log = tmp_path / "g.jsonl"
    log.write_text(dump_log(game), encoding="utf-8")
    assert main(["replay", str(log), "--verify"]) == 1
    out = capsys.readouterr().out
    assert f"DISAGREES at seq {len(game.events)}: incomplete: the game is not over" in out
    assert main(["replay", str(log), "--verify", "--allow-unfinished"]) == 0
    assert "verify: OK" in capsys.readouterr().out
    assert main(["replay", str(log), "--allow-unfinished"]) == 2
    assert "goes with --verify" in capsys.readouterr().err


def test_a_crash_is_one_error_line_and_status_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Status 1 means only "did not verify": even an unexpected failure is one
    'error:' line and status 2, never a traceback."""
    log = tmp_path / "g.jsonl"
    log.write_text(dump_log(new_game(2, seed=1)), encoding="utf-8")

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("deep inside\nover two lines")

    monkeypatch.setattr(cli, "verify_log", crash)
    monkeypatch.setattr(cli, "load_log", crash)
    for argv in (["replay", str(log)], ["replay", str(log), "--verify"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == ("error: unexpected RuntimeError: deep inside over two lines (this is "
                       "a bug; please report it)\n")


@pytest.mark.parametrize(
    ("content", "argv_extra", "message"),
    [
        (None, [], "cannot read"),
        (None, ["--verify"], "cannot read"),
        (b"\xff\xfe{}\n", [], "line 1: not UTF-8 text"),
        ('{"format":"tokaido-log"}\n', ["--verify"], "missing key"),
        ("[" * 100_000 + "\n", ["--verify"], "nested too deeply"),
        ("not json\n", [], "line 1"),
        ('{"format":"tokaido-log"}\n', [], "missing key"),
        ("ok", ["--to", "99999"], "--to must be"),
        ("ok", ["--view", "7"], "no seat 7"),
    ],
)
def test_replay_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          content: str | bytes | None, argv_extra: list[str], message: str) -> None:
    """A bad file or argument gives one 'error: ...' line and status 2."""
    path = tmp_path / "g.jsonl"
    if content == "ok":
        main(["simulate", "--players", "2", "--seed", "1", "--log", str(path)])
        capsys.readouterr()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert main(["replay", str(path), *argv_extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_view_without_log_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --view needs --log."""
    assert main(["simulate", "--view", "0"]) == 2
    assert "--view needs --log" in capsys.readouterr().err


def test_plugins_lists_every_installed_plugin(capsys: pytest.CaptureFixture[str]) -> None:
    """tokaido plugins: id, version, distribution, requires, conflicts, description."""
    assert main(["plugins", "--format", "json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    shipped = {"base", "crossroads", "new-encounters", "initiation", "return-journey",
               "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga"}
    assert shipped <= set(rows)
    assert rows["crossroads"]["requires"] == ["base"]
    assert rows["good-luck"]["requires"] == ["crossroads"]
    assert rows["base"]["distribution"] == "tokaido-rules"
    assert all(rows[p]["description"] for p in shipped)
    assert main(["plugins"]) == 0
    text = capsys.readouterr().out
    assert "crossroads 1.1.0 (tokaido-rules" in text and "requires: base" in text


def test_a_broken_plugin_is_reported_and_does_not_break_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plugin that fails to import is listed by name and version; the rest still work."""
    dist = tmp_path / "broken_plugin-0.3.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.3\n")
    (dist / "entry_points.txt").write_text("[tokaido_rules]\nbroken = no_such_module:plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "broken (broken-plugin 0.3): FAILED TO LOAD" in out
    assert "crossroads 1.1.0" in out
    assert main(["simulate", "--plugins", "base,crossroads", "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["simulate", "--plugins", "base,broken"]) == 2
    assert "failed to import" in capsys.readouterr().err


def test_simulate_with_expansions_and_bga(capsys: pytest.CaptureFixture[str]) -> None:
    """simulate plays any ruleset, e.g. Crossroads with the online rules."""
    assert main(["simulate", "--plugins", "crossroads,base,bga", "--players", "5",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["plugins"] == ["base", "bga", "crossroads"]
    assert doc["options"]["crossroads.amulet_same_turn"] is True
    assert "calligraphy" in doc["players"][0]["categories"]


# --- one count of decisions (issue 34) -----------------------------------------------


NUMBERED = re.compile(r"^ *(\d+)\. ", re.M)
CAPTION = re.compile(r"decision (\d+) of (\d+)")


def _numbered(out: str) -> int:
    """The last number of a printed journey (one numbered line per decision)."""
    return int(NUMBERED.findall(out)[-1])


def _captioned(page: str) -> set[int]:
    """Every M of the captions "decision N of M" of a replay page."""
    return {int(m) for _, m in CAPTION.findall(page)}


def test_every_output_counts_a_games_decisions_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """For one game, the printed journey's last number, `decisions` of simulate's and
    replay's JSON (with --view too), of a batch's JSON and its decisions per game, the
    replay page's "decision N of M" and those of a seat's copy all give the one count
    of `decision_count`: every action in the log, the 2-player neutral's moves and the
    decisions the engine took alone (after core.automatic) included."""
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "--players", "2", "--seed", "0", "--log", str(log)]) == 0
    printed = capsys.readouterr().out
    game = load_log(log)
    count = decision_count(game)
    assert count == sum(1 for e in game.events if isinstance(e, Action))
    assert count > len(list(decisions(game.events)))  # forced decisions are in the count
    assert any(isinstance(e, Move) and game.state.pieces[e.piece].seat is None
               for e in game.events)  # and so are the neutral traveller's moves
    seen = {"simulate text": _numbered(printed)}
    main(["simulate", "--players", "2", "--seed", "0", "--format", "json"])
    seen["simulate json"] = json.loads(capsys.readouterr().out)["decisions"]
    main(["replay", str(log)])
    seen["replay text"] = _numbered(capsys.readouterr().out)
    main(["replay", str(log), "--format", "json"])
    seen["replay json"] = json.loads(capsys.readouterr().out)["decisions"]
    main(["replay", str(log), "--view", "1", "--format", "json"])
    seen["replay --view json"] = json.loads(capsys.readouterr().out)["decisions"]
    main(["replay", str(log), "--html", str(tmp_path / "g.html")])
    (seen["page"],) = _captioned((tmp_path / "g.html").read_text(encoding="utf-8"))
    copy = tmp_path / "g1.jsonl"
    main(["simulate", "--players", "2", "--seed", "0", "--log", str(copy), "--view", "1"])
    capsys.readouterr()
    main(["replay", str(copy)])
    seen["seat copy text"] = _numbered(capsys.readouterr().out)
    main(["replay", str(copy), "--format", "json"])
    seen["seat copy json"] = json.loads(capsys.readouterr().out)["decisions"]
    main(["replay", str(copy), "--html", str(tmp_path / "g1.html")])
    (seen["seat copy page"],) = _captioned((tmp_path / "g1.html").read_text(encoding="utf-8"))
    assert decision_count(load_seat_copy(copy)) == count
    assert seen == dict.fromkeys(seen, count)
    captions = [f["caption"] for f in frames(game)]
    assert captions[1].startswith(f"decision 1 of {count} ")
    assert len(captions) == count + 1  # the end of the journey with the last decision
    assert captions[-1].startswith(f"decision {count} of {count} ")

    out = tmp_path / "batch"
    assert main(["simulate", "--players", "3", "--games", "3", "--seed", "1", "--format",
                 "json", "--out", str(out), "--plugins", "crossroads"]) == 0
    batch = json.loads(capsys.readouterr().out)
    for row, path in zip(batch["games"], sorted(out.iterdir()), strict=True):
        assert row["decisions"] == decision_count(load_log(path))
        main(["replay", str(path)])
        assert _numbered(capsys.readouterr().out) == row["decisions"]
    assert batch["summary"]["decisions_per_game"] == pytest.approx(
        sum(row["decisions"] for row in batch["games"]) / 3)


# --- a seat's copy of a log, replayed as text (issue 34) ------------------------------


def test_replay_reads_a_seat_copy_and_shows_what_the_seat_saw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tokaido replay COPY` (a seat's copy, which it refused) prints the journey as that
    seat saw it: the same lines as the full log's where the seat saw everything, who
    took it and its kind in words where it did not (the amulet another seat took is
    not named), then the same scores and winner; --to, --view of its own seat and
    --format json work on it, --view of another seat and --verify are errors."""
    argv = ["simulate", "--players", "3", "--seed", "6", "--plugins", "crossroads,good-luck"]
    full, copy = tmp_path / "full.jsonl", tmp_path / "seat1.jsonl"
    main([*argv, "--log", str(full)])
    main([*argv, "--log", str(copy), "--view", "1"])
    capsys.readouterr()
    assert main(["replay", str(full)]) == 0
    everything = capsys.readouterr().out.splitlines()
    assert main(["replay", str(copy)]) == 0
    seen = capsys.readouterr().out.splitlines()
    assert seen[0] == ("Tokaido: 3 players, plugins base,crossroads,good-luck: seat 1's "
                       "copy of the log, what it saw")
    assert len(seen) == len(everything)
    differ = [(a, b) for a, b in zip(everything[1:], seen[1:], strict=True) if a != b]
    assert differ == [("  82. seat 2: take the Devotion amulet: -1 coin",
                       "  82. seat 2: take amulet (details hidden): -1 coin")]
    assert "crossroads.take_amulet" not in "\n".join(seen)  # a display name, not the id
    assert seen[-1] == everything[-1] and seen[-1].startswith("Winner")

    assert main(["replay", str(copy), "--to", "100"]) == 0
    upto = capsys.readouterr().out
    assert "In progress after seq 100: seat 1 decides." in upto
    assert main(["replay", str(full), "--to", "100"]) == 0
    assert upto.splitlines()[1:] == capsys.readouterr().out.splitlines()[1:]
    assert main(["replay", str(copy), "--view", "1", "--to", "100"]) == 0
    view = capsys.readouterr().out
    assert view.startswith("View of seat 1 after seq 100 (from its copy of the log):")
    assert "as seat 1 sees it" in view
    assert main(["replay", str(copy), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["replay", str(full), "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert "seed" not in doc and doc["viewer"] == 1
    assert {k: v for k, v in whole.items() if k != "seed"} == {
        k: v for k, v in doc.items() if k != "viewer"}
    assert main(["replay", str(copy), "--view", "2"]) == 2
    assert "seat 1's copy of the log: it cannot show seat 2" in capsys.readouterr().err
    assert main(["replay", str(copy), "--verify"]) == 2
    assert "seat's copy" in capsys.readouterr().err


# --- display names (issue 34) ----------------------------------------------------------


@pytest.mark.parametrize("plugins", ["base", "crossroads,good-luck", "initiation",
                                     "new-encounters"])
def test_text_outputs_name_things_by_display_name(
        plugins: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What simulate, replay (--view and a seat's copy) and the batch summary print
    names cards, travellers and decisions by their display names: no card or traveller
    id that has another name, no event type id, no "(?)" for a seat without a
    traveller."""
    log, copy = tmp_path / "g.jsonl", tmp_path / "g0.jsonl"
    argv = ["simulate", "--players", "3", "--seed", "2", "--plugins", plugins,
            "--bots", "greedy,random", "--width", "200"]
    main([*argv, "--log", str(log)])
    main([*argv, "--log", str(copy), "--view", "0"])
    main(["replay", str(log), "--view", "2", "--width", "200"])
    main(["replay", str(copy), "--width", "200"])
    main(["simulate", "--players", "3", "--games", "20", "--plugins", plugins])
    out = capsys.readouterr().out
    registry = load_log(log).ruleset.registry
    ids = {c.id for c in registry.cards.values() if c.name and c.name != c.id}
    ids |= {t.name for t in registry.travellers.values() if t.label and t.label != t.name}
    ids |= set(registry.events)
    shown = sorted(i for i in ids if re.search(rf"(?<![\w.]){re.escape(i)}(?![\w.])", out))
    assert shown == []
    assert "(?)" not in out


def test_simulate_keys_chance_by_purpose_when_asked(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--chance purpose: the game's log says so in its header and verifies, and is the
    game new_game(chance="purpose") plays with the same decisions (on either engine);
    a batch's logs are keyed so too, and its text says so; any other value is refused."""
    from tokaido_rules import verify_log

    logs = {}
    for engine in ("fast", "reference"):
        path = tmp_path / f"{engine}.jsonl"
        assert main(["simulate", "--players", "3", "--seed", "5", "--chance", "purpose",
                     "--engine", engine, "--log", str(path)]) == 0
        assert "chance keyed by purpose" in capsys.readouterr().out
        logs[engine] = path.read_text()
    assert logs["fast"] == logs["reference"]
    text = logs["fast"]
    assert json.loads(text.splitlines()[0])["chance"] == "purpose"
    assert verify_log(text).ok
    game = new_game(3, seed=5, chance="purpose")
    for action in decisions(load_log(text).events):
        game = game.apply(action)
    assert dump_log(game) == text
    plain = tmp_path / "plain.jsonl"
    assert main(["simulate", "--players", "3", "--seed", "5", "--log", str(plain)]) == 0
    assert "chance" not in json.loads(plain.read_text().splitlines()[0])
    assert "chance keyed" not in capsys.readouterr().out

    out = tmp_path / "batch"
    assert main(["simulate", "--games", "2", "--players", "2", "--chance", "purpose",
                 "--out", str(out)]) == 0
    assert "chance keyed by purpose" in capsys.readouterr().out
    for log in sorted(out.iterdir()):
        head = json.loads(log.read_text().splitlines()[0])
        assert head["chance"] == "purpose" and verify_log(log.read_text()).ok
    assert main(["simulate", "--chance", "dice"]) == 2
    assert capsys.readouterr().err.startswith("error: argument --chance: invalid choice")
