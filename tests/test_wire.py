"""The wire format: actions, steps and views as JSON and back, and the generated JSON
Schemas that every view, action and log line of real games validates against."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import attrs
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from test_conformance import COMBINATIONS
from tokaido_rules import (
    Action,
    Game,
    IllegalActionError,
    LogFormatError,
    PluginDefinitionError,
    PluginInfo,
    Registry,
    Ruleset,
    Step,
    View,
    decode_action,
    decode_step,
    decode_view,
    dump_log,
    encode_action,
    encode_step,
    encode_view,
    hookimpl,
    new_game,
    schemas,
    wire,
)
from tokaido_rules.bots import RandomBot
from tokaido_rules.cli import main
from tokaido_rules.codec import event_data
from tokaido_rules.views import PUBLIC
from tokaido_rules.wire import (
    MAX_SAFE_INTEGER,
    decode_seed,
    encode_seed,
    schema_text,
)

GOLDEN = Path(__file__).parent / "golden"
KINDS = ("action", "step", "view", "log_header", "log_line")


@cache
def ruleset_of(plugins: tuple[str, ...]) -> Ruleset:
    return Ruleset.build(plugins)


@cache
def validators(plugins: tuple[str, ...],
               players: int | None = None) -> dict[str, Draft202012Validator]:
    """A validator per kind of message, from the generated schema document (checked
    against the metaschema by its own test)."""
    doc = schemas(ruleset_of(plugins), players)
    return {kind: Draft202012Validator({**doc, "$ref": f"#/$defs/{kind}"}) for kind in KINDS}


def check_log(text: str, check: dict[str, Draft202012Validator], seen: set[str]) -> int:
    """Validate every line of a log not validated before; return how many."""
    lines = text.splitlines()
    count = 0
    for number, line in enumerate(lines):
        if line in seen:
            continue
        seen.add(line)
        check["log_header" if number == 0 else "log_line"].validate(json.loads(line))
        count += 1
    return count


def round_trip_game(plugins: tuple[str, ...], players: int, seed: int,
                    every_seat_every: int) -> tuple[int, int]:
    """Play a game whose every decision crosses the wire as JSON; return the number of
    actions round-tripped and of views validated.

    At each decision every legal action is encoded, written as JSON, read back and
    decoded: it must equal the legal action, be of its type exactly and encode the
    same. The chosen one is sent as a client would (JSON, and the view's seq) and
    applied with ``expected_seq``; the game records the legal instance. The deciding
    seat's view (every seat's, every ``every_seat_every`` decisions and at the end),
    the current step and every line of the full log and of each seat's copy validate
    against the schemas; views and steps decode back to equal ones. So do the public
    view (at every decision) and the lines of the public copy of the log.
    """
    ruleset = ruleset_of(plugins)
    check = validators(plugins, players)
    game = new_game(players, seed=seed, plugins=ruleset)
    bot = RandomBot(seed)
    actions = views = decisions = 0

    def check_view(seat: int | None) -> None:
        nonlocal views
        view = game.view(seat)
        doc = encode_view(view)
        check["view"].validate(doc)
        assert decode_view(json.dumps(doc), ruleset) == view
        views += 1

    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        doc = encode_view(view)
        check["view"].validate(doc)
        assert decode_view(json.dumps(doc), ruleset) == view
        views += 1
        check_view(None)
        if decisions % every_seat_every == 0:
            for other in range(players):
                if other != seat:
                    check_view(other)
        step = game.current_step
        assert step is not None
        check["step"].validate(encode_step(step))
        assert decode_step(json.dumps(encode_step(step)), ruleset) == step
        for legal in view.legal_actions:
            sent = json.dumps(encode_action(legal))
            assert sent == json.dumps(_encoded_by_cattrs(legal))  # the direct path's
            decoded = decode_action(sent, ruleset)
            assert decoded == legal and type(decoded) is type(legal)
            assert encode_action(decoded) == encode_action(legal)
            actions += 1
        chosen = bot.choose(view)
        message = json.dumps({"seq": view.seq, "action": encode_action(chosen)})
        received = json.loads(message)
        action = decode_action(received["action"], ruleset)
        before = len(game.events)
        game = game.apply(action, expected_seq=received["seq"])
        assert game.events[before] is next(a for a in view.legal_actions if a == action)
        decisions += 1
    for seat in [*range(players), None]:
        check_view(seat)
    seen: set[str] = set()
    check_log(dump_log(game), check, seen)
    for viewer in [*range(players), PUBLIC]:
        check_log(dump_log(game, viewer=viewer), check, seen)
    return actions, views


def _encoded_by_cattrs(action: Any) -> dict[str, Any]:
    """An action as :func:`encode_action` wrote it before it read plain fields directly
    (its data unstructured by the log's converter, then made plain)."""
    return {"type": action.TYPE, **wire._plain(event_data(action), action.TYPE)}


def test_an_action_is_encoded_as_its_data_says_whatever_its_fields_hold() -> None:
    """The direct path and the converter's agree on plain fields; a field holding
    something else (a tuple, a mapping, an integer past the wire's) takes the
    converter's path, and what that refuses is refused."""
    @attrs.frozen
    class Odd(Action):
        TYPE: ClassVar[str] = "test.odd"
        piece: int
        what: Any

    for what in (None, True, 3, "x", (1, 2), ["a"], {"k": (1, None)}):
        action = Odd(seat=0, piece=1, what=what)
        assert json.dumps(encode_action(action)) == json.dumps(_encoded_by_cattrs(action))
    with pytest.raises(ValueError, match="beyond"):
        encode_action(Odd(seat=0, piece=1, what=2**60))
    with pytest.raises(ValueError, match="beyond"):
        encode_action(Odd(seat=0, piece=2**60, what=None))


@pytest.mark.parametrize(
    ("plugins", "players"),
    [pytest.param(p, 2 + i % 4, id=f"{'+'.join(p)}-{2 + i % 4}p")
     for i, p in enumerate(COMBINATIONS)],
)
def test_every_action_view_and_line_crosses_the_wire(plugins: tuple[str, ...],
                                                     players: int) -> None:
    """One game per combination of plugins, the player count cycling from 2 to 5: every
    legal action round-trips through JSON to an equal action of the same type, the
    chosen one is applied from its JSON, and views, steps and log lines validate
    against the generated schemas."""
    actions, views = round_trip_game(plugins, players, 40 + players, every_seat_every=10)
    assert actions > 50 and views > 20


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("plugins", COMBINATIONS, ids="+".join)
def test_every_action_view_and_line_crosses_the_wire_sweep(plugins: tuple[str, ...],
                                                           players: int) -> None:
    """The same at every player count over several games, every seat's view validated
    at every decision (``pytest -m slow``)."""
    for seed in range(3):
        actions, views = round_trip_game(plugins, players, 1000 + seed, every_seat_every=1)
        assert actions > 50 and views > 20 * players


def golden_files() -> list[Path]:
    return sorted(GOLDEN.glob("*/*.jsonl"))


def test_every_golden_log_line_validates() -> None:
    """Every line of every committed golden log, full logs and seats' copies, validates
    against the schemas of the ruleset its header names."""
    files = golden_files()
    assert len(files) > 40
    seen: set[str] = set()
    checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        head = json.loads(text.partition("\n")[0])
        plugins = tuple(p["id"] for p in head["plugins"])
        checked += check_log(text, validators(plugins, head["players"]), seen)
    assert checked > 5000


@pytest.mark.parametrize("players", [None, 2, 5])
def test_the_schema_document_is_valid_and_names_every_registered_type(
        players: int | None) -> None:
    """The generated document is a valid JSON Schema (draft 2020-12) with a definition
    for each kind of message and for each action, event type and step kind."""
    every = ("base", "crossroads", "new-encounters", "good-luck", "rare-and-precious",
             *("initiation", "return-journey", "gastronomy", "preparations"))
    ruleset = ruleset_of(every)
    doc = schemas(ruleset, players)
    Draft202012Validator.check_schema(doc)
    defs = doc["$defs"]
    assert set(KINDS) <= set(defs)
    registry = ruleset.registry
    assert {f"line.{t}" for t in registry.events} < set(defs)
    assert {f"action.{c.TYPE}" for c in registry.resolvers} < set(defs)
    assert defs["action"]["properties"]["type"]["enum"] == [
        t for t, c in registry.events.items() if c in registry.resolvers]
    assert defs["step"]["properties"]["kind"]["enum"] == list(registry.steps)
    assert set(defs["view"]["properties"]) == set(encode_view(new_game(3).view(0)))
    assert "JavaScript" in defs["log_header"]["else"]["properties"]["seed"]["description"]
    assert defs["log_header"]["else"]["properties"]["seed"]["type"] == "integer"
    text = json.dumps(doc)
    assert all(abs(n) <= MAX_SAFE_INTEGER for n in _integers(doc)), "a number JS misreads"
    assert schemas(ruleset, players) == json.loads(text)  # deterministic, plain JSON


def _integers(value: Any) -> Iterator[int]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _integers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _integers(item)
    elif type(value) is int:
        yield value


def test_a_view_on_the_wire_holds_what_the_view_holds_and_no_seed() -> None:
    """An encoded view has exactly the view's fields, the legal actions encoded as
    actions, and nothing of what the seat may not see: not the seed, not another seat's
    traveller offer."""
    seed = 0xDEADBEEF12345
    game = new_game(3, seed=seed)
    view = game.view(0)
    doc = encode_view(view)
    assert list(doc) == [f.name for f in attrs.fields(View)]
    assert doc["seq"] == view.seq and doc["legal_actions"] == [
        encode_action(a) for a in view.legal_actions]
    info = game.ruleset.info()[0]
    assert doc["ruleset"]["plugins"] == [{"id": "base", "version": info.version}]
    text = json.dumps(encode_view(game.view(1)))
    assert str(seed) not in text and str(seed) not in json.dumps(doc)
    assert "base.offer.0" not in text and "base.offer.1" in text


def test_decoding_takes_text_bytes_or_a_parsed_object() -> None:
    """The decoders read JSON text, UTF-8 bytes, or an object already parsed."""
    game = new_game(3, seed=11)
    ruleset, action = game.ruleset, game.legal_actions()[0]
    doc = encode_action(action)
    for message in (doc, json.dumps(doc), json.dumps(doc).encode(),
                    bytearray(json.dumps(doc).encode())):
        assert decode_action(message, ruleset) == action
    assert doc == {"type": "base.choose_traveller", "seat": 0, "traveller": "hirotada"}


def test_a_field_with_a_default_may_be_left_out() -> None:
    """A message may leave out a field that has a default (the encoders write every
    field); the decoded action is equal to the one with the default."""
    ruleset = ruleset_of(("base",))
    action = decode_action({"type": "base.buy_souvenirs", "seat": 1, "piece": 1,
                            "cards": ["sake"]}, ruleset)
    assert action.discount is None  # type: ignore[attr-defined]
    assert encode_action(action)["discount"] is None


DONATE = {"type": "base.donate", "seat": 0, "piece": 0, "amount": 2}
BUY: dict[object, object] = {"type": "base.buy_souvenirs", "seat": 0, "piece": 0,
                             "cards": ["sake"], "discount": None}


def nested(depth: int) -> Any:
    value: Any = "sake"
    for _ in range(depth):
        value = [value]
    return value


MALFORMED_ACTIONS: list[tuple[object, str]] = [
    ("{", "not valid JSON"),
    (b"\xff\xfe", "not UTF-8"),
    ("[1, 2]", "a JSON object, not an array"),
    ("null", "a JSON object, not null"),
    (5, "not int"),
    ('{"type": "base.donate", "seat": 0, "piece": 0, "amount": NaN}', "NaN"),
    ('{"type": "base.donate", "seat": 0, "piece": 0, "amount": Infinity}', "Infinity"),
    ('{"type": "base.donate", "seat": 0, "piece": 0, "amount": ' + "9" * 5000 + "}",
     "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ('{"type": "base.donate"' + " " * 1_000_001 + "}", "longer than"),
    ({"seat": 0, "piece": 0, "amount": 2}, "missing field 'type'"),
    ({**DONATE, "type": "base.nope"}, "field 'type': 'base.nope' is unknown"),
    ({**DONATE, "type": 7}, "field 'type'"),
    ({**DONATE, "type": "core.coins"}, "an event type, not an action type"),
    ({k: v for k, v in DONATE.items() if k != "amount"}, "missing field 'amount'"),
    ({**DONATE, "bonus": 1}, "no field 'bonus'"),
    ({**DONATE, "amount": 2.0}, "field 'amount': expected int, got float"),
    ({**DONATE, "amount": True}, "field 'amount': expected int, got bool"),
    ({**DONATE, "amount": "2"}, "field 'amount': expected int, got str"),
    ({**DONATE, "amount": None}, "field 'amount'"),
    ({**DONATE, "amount": [2]}, "field 'amount'"),
    ({**DONATE, "seat": 1.5}, "field 'seat'"),
    ({**DONATE, "amount": 2**53}, "field 'amount': an integer beyond"),
    ({**DONATE, "amount": -(2**53)}, "field 'amount': an integer beyond"),
    ({**DONATE, "amount": 10**5000}, "field 'amount': an integer beyond"),
    ({**BUY, "cards": "sake"}, "field 'cards': expected a list"),
    ({**BUY, "cards": ["sake", 3]}, "field 'cards'"),
    ({**BUY, "cards": nested(40)}, "field 'cards[0][0]"),
    ({**BUY, "cards": nested(3)}, "field 'cards"),
    ({**BUY, "discount": 3}, "field 'discount'"),
    ({4: 1, **BUY}, "keys must be strings"),
]


@pytest.mark.parametrize(("message", "said"), MALFORMED_ACTIONS,
                         ids=[f"{i}" for i in range(len(MALFORMED_ACTIONS))])
def test_a_malformed_action_is_an_illegal_action_error_naming_the_field(
        message: object, said: str) -> None:
    """Whatever is wrong with an action message, decoding raises IllegalActionError
    saying what and where: never another exception."""
    with pytest.raises(IllegalActionError) as info:
        decode_action(message, ruleset_of(("base",)))  # type: ignore[arg-type]
    assert said in str(info.value)


def test_a_decoded_action_is_still_checked_by_apply() -> None:
    """A well-formed action is not yet a legal one: apply refuses another seat's, and
    an action sent for an earlier point of the game."""
    game = new_game(3, seed=11)
    doc = encode_action(game.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="seat 0's decision"):
        game.apply(decode_action({**doc, "seat": 1}, game.ruleset))
    later = game.apply(decode_action(doc, game.ruleset), expected_seq=game.state.seq)
    from tokaido_rules import StaleActionError

    with pytest.raises(StaleActionError):
        later.apply(decode_action(doc, game.ruleset), expected_seq=game.state.seq)


def a_view(players: int = 3) -> tuple[Game, dict[str, Any]]:
    game = new_game(players, seed=11)
    return game, encode_view(game.view(0))


def view_with(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(a_view()[1]))
    change(doc)
    return doc


MALFORMED_VIEWS: list[tuple[object, str]] = [
    ("not json", "not valid JSON"),
    ("[]", "a JSON object"),
    (view_with(lambda d: d.pop("seq")), "missing field 'seq'"),
    (view_with(lambda d: d.update(seed=5)), "no field 'seed'"),
    (view_with(lambda d: d.update(seq="11")), "field 'seq': expected int"),
    (view_with(lambda d: d.update(over=0)), "field 'over': expected bool"),
    (view_with(lambda d: d["pieces"][1].update(coins=1.0)), "field 'pieces[1].coins'"),
    (view_with(lambda d: d["pieces"][1].update(wealth=1)), "field 'pieces[1]"),
    (view_with(lambda d: d["pieces"][0]["score"].update(x="1")), "field 'pieces[0].score"),
    (view_with(lambda d: d["zones"].update(x=[1])), "field 'zones"),
    (view_with(lambda d: d["zone_sizes"].update(x=True)), "field 'zone_sizes"),
    (view_with(lambda d: d["hidden_backs"].update(x={"y": "1"})), "field 'hidden_backs"),
    (view_with(lambda d: d["data"].update(x=nested(40))), "field 'data.x"),
    (view_with(lambda d: d["data"].update(x=2**60)), "field 'data.x': an integer beyond"),
    (view_with(lambda d: d["agenda"].insert(0, {"kind": "base.nope"})),
     "field 'agenda[0].kind': unknown step kind"),
    (view_with(lambda d: d["current_step"].update(kind="base.nope")),
     "field 'current_step.kind': unknown step kind"),
    (view_with(lambda d: d["agenda"].insert(0, {"kind": 3})), "field 'agenda[0].kind'"),
    (view_with(lambda d: d.update(current_step=[])), "field 'current_step'"),
    (view_with(lambda d: d["legal_actions"][0].update(seat="0")),
     "field 'legal_actions[0]': base.choose_traveller field 'seat'"),
    (view_with(lambda d: d["legal_actions"].append(3)), "field 'legal_actions[2]'"),
    (view_with(lambda d: d.update(legal_actions={})), "field 'legal_actions'"),
    (view_with(lambda d: d["ruleset"].update(options={})), "field 'ruleset'"),
    (view_with(lambda d: d.update(seat=7)), "field 'seat': no seat 7"),
]


@pytest.mark.parametrize(("message", "said"), MALFORMED_VIEWS,
                         ids=[f"{i}" for i in range(len(MALFORMED_VIEWS))])
def test_a_malformed_view_is_a_log_format_error_naming_the_field(message: object,
                                                                 said: str) -> None:
    """Decoding a view that does not fit raises LogFormatError saying where."""
    with pytest.raises(LogFormatError) as info:
        decode_view(message, ruleset_of(("base",)))  # type: ignore[arg-type]
    assert said in str(info.value)


MALFORMED_STEPS: list[tuple[object, str]] = [
    ("{]", "not valid JSON"),
    ({"piece": 0}, "missing field 'kind'"),
    ({"kind": "base.nope"}, "field 'kind': unknown step kind"),
    ({"kind": "core.move", "piece": "0"}, "field 'piece': expected int"),
    ({"kind": "core.move", "seat": 0.0}, "field 'seat'"),
    ({"kind": "core.move", "data": []}, "field 'data'"),
    ({"kind": "core.move", "data": {"x": nested(33)}}, "field 'data"),
    ({"kind": "core.move", "data": {"x": 1.5}}, "field 'data'"),
    ({"kind": "core.move", "when": 1}, "no field 'when'"),
]


@pytest.mark.parametrize(("message", "said"), MALFORMED_STEPS,
                         ids=[f"{i}" for i in range(len(MALFORMED_STEPS))])
def test_a_malformed_step_is_a_log_format_error_naming_the_field(message: object,
                                                                 said: str) -> None:
    """Decoding a step that does not fit raises LogFormatError saying where."""
    with pytest.raises(LogFormatError) as info:
        decode_step(message, ruleset_of(("base",)))  # type: ignore[arg-type]
    assert said in str(info.value)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**53 - 2)
    | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(fields=st.dictionaries(st.sampled_from(["seat", "piece", "amount", "cards", "discount",
                                                "traveller", "x", "kind", "data"]),
                              JSON_VALUES, max_size=5),
       kind=st.sampled_from(["base.donate", "base.buy_souvenirs", "base.choose_traveller",
                             "core.move", "base.meal", None]))
def test_any_json_decodes_or_is_a_typed_error(fields: dict[str, Any], kind: str | None) -> None:
    """Arbitrary JSON values in any field: decoding returns a value or raises the typed
    error of its kind of message, whether given as an object or as text."""
    ruleset = ruleset_of(("base",))
    message = fields if kind is None else {"type": kind, **fields}
    step = fields if kind is None else {"kind": kind, **fields}
    for decode, doc, error in ((decode_action, message, IllegalActionError),
                               (decode_step, step, LogFormatError),
                               (decode_view, message, LogFormatError)):
        for form in (doc, _dumps(doc)):
            with suppress(error):
                decode(form, ruleset)


def _dumps(doc: dict[str, Any]) -> str:
    try:
        return json.dumps(doc)
    except ValueError:  # an integer too long to write: send the object itself
        return "{}"


@pytest.mark.parametrize("value", [2**53, -(2**60)])
def test_encoding_refuses_integers_javascript_would_misread(value: int) -> None:
    """A value beyond JavaScript's exact integers (in a plugin's data, in an action) is
    refused when encoded, rather than sent to be misread."""
    with pytest.raises(ValueError, match="step data: an integer beyond"):
        encode_step(Step("core.move", 0, 0, {"x": (1, {"y": value})}))
    donate = ruleset_of(("base",)).registry.events["base.donate"]
    action = donate(seat=0, piece=0, amount=value)  # type: ignore[call-arg]
    assert isinstance(action, Action)
    with pytest.raises(ValueError, match=r"base\.donate: an integer beyond"):
        encode_action(action)


def test_seeds_travel_as_decimal_strings() -> None:
    """A 64-bit seed is written as a string and read back; anything else is refused."""
    for seed in (0, 1, 2**53 + 1, 2**64 - 1):
        assert decode_seed(encode_seed(seed)) == seed
        assert encode_seed(seed) == str(seed)
    for bad in (-1, 2**64, "1", True, 1.0):
        with pytest.raises(ValueError, match="a seed is an integer"):
            encode_seed(bad)  # type: ignore[arg-type]
    for text in ("", "-1", "01", "1.0", "٣", str(2**64), "1" * 30, 5, None):
        with pytest.raises(LogFormatError):
            decode_seed(text)


def test_cli_schema_prints_the_document(capsys: pytest.CaptureFixture[str]) -> None:
    """``tokaido schema`` prints the schema document of the ruleset it is given, sorted
    and indented so that two versions can be compared with diff."""
    assert main(["schema", "--plugins", "base,crossroads", "--players", "3"]) == 0
    out = capsys.readouterr().out
    ruleset = ruleset_of(("base", "crossroads"))
    assert out == schema_text(ruleset, 3)
    assert json.loads(out) == schemas(ruleset, 3)
    assert main(["schema"]) == 0
    base = capsys.readouterr().out
    assert json.loads(base) == schemas(ruleset_of(("base",)))
    assert base == json.dumps(json.loads(base), indent=2, sort_keys=True,
                              ensure_ascii=False) + "\n"


@pytest.mark.parametrize(("argv", "said"), [
    (["schema", "--plugins", "base,nope"], "unknown plugin 'nope'"),
    (["schema", "--players", "7"], "players must be 2 to 5"),
])
def test_cli_schema_bad_input(argv: list[str], said: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input is one error line and status 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and said in err


def test_simulate_json_writes_seeds_as_strings(capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --format json`` writes 64-bit seeds as decimal strings, which a
    browser reads exactly: the game's, and each game's of a batch."""
    seed = 2**63 + 12345
    assert main(["simulate", "--players", "2", "--seed", str(seed), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == str(seed)
    assert main(["simulate", "--games", "2", "--players", "2", "--seed", "5",
                 "--format", "json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert all(isinstance(g["seed"], str) and int(g["seed"]) >= 0 for g in games)
    assert any(int(g["seed"]) > MAX_SAFE_INTEGER for g in games)


def test_an_action_type_cannot_have_a_field_named_type() -> None:
    """An action's JSON holds its type's name in ``type``, so an action type with a
    field of that name is refused when registered."""

    @attrs.frozen
    class Typed(Action):
        TYPE: ClassVar[str] = "typed.act"
        type: str

    class Plugin:
        tokaido_plugin = PluginInfo("typed", "1", requires=("base",))

        @hookimpl
        def tokaido_register(self, registry: Registry) -> None:
            registry.add_action(Typed)

    with pytest.raises(PluginDefinitionError, match=r"typed\.act has a field named 'type'"):
        Ruleset.build(["base", Plugin()])


STRICT = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: type(value) is int))
"""A validator that reads JSON integers as a JSON parser that keeps ``2`` and ``2.0``
apart does (Python's): ``2.0`` is a number, not an integer. JSON Schema itself compares
numbers by value, so a standard validator takes ``2.0`` for an integer."""


@cache
def strict_validators(plugins: tuple[str, ...],
                      players: int | None = None) -> dict[str, Any]:
    doc = schemas(ruleset_of(plugins), players)
    return {kind: STRICT({**doc, "$ref": f"#/$defs/{kind}"}) for kind in KINDS}


def decodes(kind: str, message: dict[str, Any]) -> bool:
    ruleset = ruleset_of(("base",))
    decode = {"action": decode_action, "step": decode_step, "view": decode_view}[kind]
    try:
        decode(message, ruleset)
    except (IllegalActionError, LogFormatError):
        return False
    return True


def _tweaked(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``doc`` with the value at ``path`` (its keys joined by ``/``; list indices as
    numbers) replaced."""
    out: dict[str, Any] = json.loads(json.dumps(doc))
    *parents, last = path.split("/")
    target: Any = out
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return out


def _agreement_cases() -> list[tuple[str, dict[str, Any]]]:
    game = new_game(3, seed=11)  # base, 3 players: three travellers, seat 0 decides
    deciding, other, public = (encode_view(game.view(0)), encode_view(game.view(1)),
                               encode_view(game.public_view()))
    step = encode_step(game.current_step)  # type: ignore[arg-type]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("action", _tweaked(DONATE, field, value))
        for field in ("seat", "piece") for value in (0, 4, 2.0, -1, 5, None, True)]
    cases += [("action", _tweaked(DONATE, "amount", value)) for value in (2, -2, 2.0)]
    cases += [("step", _tweaked(step, "seat", value)) for value in (0, 4, None, 2.0, -1, 5)]
    cases += [("step", _tweaked(step, "piece", value)) for value in (-1, 4, 1.0, -2, 5)]
    for doc in (deciding, other, public):
        cases += [("view", _tweaked(doc, "seat", value)) for value in (0, 2, None, 2.0, -1, 3)]
        cases += [("view", _tweaked(doc, "current_player", value))
                  for value in (0, 2, None, 0.0, -1, 3)]
    cases += [("view", _tweaked(deciding, field, value))
              for field in ("players", "seq", "turn") for value in (2, 3, 5, 3.0, 1, 6, -1)]
    cases += [("view", _tweaked(deciding, field, value))
              for field in ("pieces/1/seat", "agenda/0/seat", "current_step/seat",
                            "legal_actions/0/seat")
              for value in (0, 2, 2.0, -1, 3, 4)]
    cases += [("view", _tweaked(deciding, field, value))
              for field in ("agenda/0/piece", "current_step/piece") for value in (-1, 2, 3, -2)]
    cases += [("view", _tweaked(deciding, "zone_sizes/base.meals", value))
              for value in (0, 3, -1, 3.0)]
    cases += [("view", _tweaked(public, "legal_actions", deciding["legal_actions"]))]
    return cases


AGREEMENT = _agreement_cases()


@pytest.mark.parametrize(("kind", "message"), AGREEMENT,
                         ids=[f"{kind}{i}" for i, (kind, _) in enumerate(AGREEMENT)])
def test_the_schema_and_the_decoders_agree(kind: str, message: dict[str, Any]) -> None:
    """A message decodes if and only if it validates against the schema of its kind, read
    with integers kept apart from numbers such as ``2.0`` (a standard JSON Schema
    validator takes ``2.0`` for ``2``: the one difference, documented): negative seats,
    seats and travellers beyond the game the view names, negative counts, ``2.0`` for an
    integer, legal actions in the public view. A view is checked against the schemas with
    and without its number of players."""
    schema_says = strict_validators(("base",))[kind].is_valid(message)
    assert decodes(kind, message) == schema_says
    if kind == "view" and message["players"] in (2, 3, 4, 5) and type(
            message["players"]) is int:
        narrowed = strict_validators(("base",), message["players"])[kind].is_valid(message)
        assert narrowed == schema_says


def test_json_schema_takes_2_0_for_an_integer_where_the_decoders_do_not() -> None:
    """The documented difference: by JSON Schema's rules ``2.0`` is an integer, so a
    standard validator accepts it; the decoders refuse it, as they refuse ``"2"``."""
    plain = validators(("base",))["action"]
    for field in ("seat", "amount"):
        message = _tweaked(DONATE, field, 2.0)
        assert plain.is_valid(message) and not decodes("action", message)
        assert not strict_validators(("base",))["action"].is_valid(message)
    assert not plain.is_valid(_tweaked(DONATE, "seat", -1))
    assert not decodes("action", _tweaked(DONATE, "seat", -1))


def test_the_public_view_and_copy_on_the_wire() -> None:
    """The public view travels with ``seat`` null and no legal actions, and decodes back;
    the header of the public copy names the viewer ``"public"``."""
    game = new_game(3, seed=4)
    doc = encode_view(game.public_view())
    assert doc["seat"] is None and doc["legal_actions"] == []
    assert not any(key.startswith("base.offer.") for key in doc["data"])
    assert decode_view(json.dumps(doc), game.ruleset) == game.public_view() == game.view(None)
    check = validators(("base",), 3)
    check["view"].validate(doc)
    head = json.loads(dump_log(game, viewer=PUBLIC).partition("\n")[0])
    check["log_header"].validate(head)
    validators(("base",))["log_header"].validate(head)
    assert not check["log_header"].is_valid({**head, "viewer": "everyone"})
    assert not check["log_header"].is_valid({**head, "viewer": 3})
    assert not validators(("base",))["log_header"].is_valid({**head, "viewer": 3})
    assert validators(("base",))["log_header"].is_valid({**head, "viewer": 2})
