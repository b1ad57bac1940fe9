"""Every hook, exercised by a small plugin written as a third party would write it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest
from attrs import frozen

from scenario import act, coins, move, points, start
from tokaido_base import BuyMeal, BuySouvenirs
from tokaido_rules import (
    Action,
    Context,
    FrozenMap,
    Game,
    GameState,
    Move,
    Note,
    PluginInfo,
    Registry,
    Rules,
    Scene,
    Setup,
    Space,
    Staged,
    Step,
    decisions,
    hookimpl,
    new_game,
)


class Ghost:
    """tokaido_neutral_travellers: a neutral traveller joins 3-player games too."""

    tokaido_plugin = PluginInfo("ghost", "1", requires=("base",))

    @hookimpl
    def tokaido_neutral_travellers(self, players: int) -> int | None:
        return 1 if players == 3 else None


def test_neutral_travellers_hook() -> None:
    """A plugin can add a seatless traveller; the leading seat decides for it."""
    game = new_game(3, plugins=["base", Ghost()], travellers=["kinko", "umegae", "satsuki"])
    assert [p.seat for p in game.state.pieces] == [0, 1, 2, None]
    for _ in range(40):
        step = game.current_step
        assert step is not None
        if step.piece == 3:
            leader = game.state.leader(seated_only=True)
            assert game.current_player == game.state.pieces[leader].seat
            return
        game = game.apply(game.legal_actions()[0])
    raise AssertionError("the extra traveller never moved")


class Crowded:
    """tokaido_space_slots: every road space holds three travellers."""

    tokaido_plugin = PluginInfo("crowded", "1", requires=("base",))

    @hookimpl(tryfirst=True)
    def tokaido_space_slots(self, players: int, space: Space) -> int | None:
        return 3


def test_space_slots_hook() -> None:
    """With tryfirst, a plugin's answer wins over the base game's (first result wins)."""
    game = new_game(3, plugins=["base", Crowded()])
    assert set(game.state.rules.slots[1:-1]) - {0} == {3}
    assert set(new_game(3).state.rules.slots[1:-1]) - {0} == {1}


class Allowance:
    """tokaido_setup_steps: every player gets 2 more coins after choosing a traveller."""

    tokaido_plugin = PluginInfo("allowance", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("allowance.give", run=self.give)

    @staticmethod
    def give(ctx: Context, step: Step) -> None:
        for i, p in enumerate(ctx.state.pieces):
            if p.seat is not None:
                ctx.coins(i, 2)

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(150, Step("allowance.give"))]


def test_setup_steps_hook() -> None:
    """Setup steps run in order: after the travellers' printed coins (order 100)."""
    game = start(["kinko", "satsuki", "umegae"], plugins=("base",))
    more = new_game(3, plugins=["base", Allowance()], travellers=["kinko", "satsuki", "umegae"])
    assert [p.coins for p in more.state.pieces] == [p.coins + 2 for p in game.state.pieces]


class SeatOneDrives:
    """tokaido_decider: seat 1 always moves the neutral traveller."""

    tokaido_plugin = PluginInfo("seat-one-drives", "1", requires=("base",))

    @hookimpl(tryfirst=True)
    def tokaido_decider(self, state: GameState, piece: int) -> int | None:
        return 1


def test_decider_hook() -> None:
    """The seat that decides for a seatless piece comes from the decider hook."""
    game = new_game(2, plugins=["base", SeatOneDrives()], travellers=["kinko", "umegae"])
    moved = 0
    for _ in range(60):
        step = game.current_step
        assert step is not None
        if step.piece == 2:
            assert game.current_player == 1
            moved += 1
        game = game.apply(game.legal_actions()[0])
        if game.is_over:
            break
    assert moved > 0


@frozen
class Tip(Action):
    """Take the one-coin tip left at the start inn (once per traveller)."""

    TYPE: ClassVar[str] = "tips.tip"
    PUBLIC: ClassVar[bool] = True
    CONSUMES_STEP: ClassVar[bool] = False
    piece: int


class Tips:
    """tokaido_extra_actions: a one-off action offered before a traveller's first move."""

    tokaido_plugin = PluginInfo("tips", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_action(Tip, self.resolve)
        registry.add_data("tips.", "public")

    @staticmethod
    def resolve(ctx: Context, step: Step, action: Tip) -> None:
        ctx.coins(action.piece, 1)
        ctx.emit_data(f"tips.{action.piece}", True)

    @hookimpl
    def tokaido_extra_actions(self, state: GameState, step: Step) -> Sequence[Action]:
        if step.kind != "core.move" or step.seat is None:
            return []
        if state.pieces[step.piece].position != 0 or state.data.get(f"tips.{step.piece}"):
            return []
        return [Tip(step.seat, step.piece)]


def test_extra_actions_hook() -> None:
    """An extra action joins the legal actions; one that keeps the decision open leaves
    the same traveller to decide, and is not offered twice."""
    game = new_game(3, plugins=["base", Tips()], travellers=["kinko", "satsuki", "umegae"])
    seat = game.current_player
    assert seat is not None
    tip = Tip(seat, seat)
    assert tip in game.legal_actions()
    before = game.state.pieces[seat].coins
    game = game.apply(tip)
    assert game.current_player == seat
    assert game.state.pieces[seat].coins == before + 1
    assert tip not in game.legal_actions()


class Collector:
    """tokaido_card_gained: +1 point in its own category per souvenir gained."""

    tokaido_plugin = PluginInfo("collector-bonus", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_category("bonus", "Bonus")

    @hookimpl
    def tokaido_card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        if ctx.registry.cards[card].kind == "souvenir":
            ctx.score(piece, "bonus", 1)


def test_card_gained_hook() -> None:
    """Each card that joins a collection is seen by card_gained, after its own points."""
    game = start(["kinko", "satsuki", "umegae"], plugins=("base",),
                 stacks={"base.encounters": ["shokunin"], "base.souvenirs": ["koma"]})
    game = new_game(3, plugins=["base", Collector()], setup=game.state.rules.setup)
    game = move(game, 3)  # Shokunin: a free souvenir
    assert points(game, 2, "souvenirs") == 1
    assert points(game, 2, "bonus") == 1


class FreeMeals:
    """tokaido_pay: the inn pays for meals (purchases cost nothing)."""

    tokaido_plugin = PluginInfo("free-meals", "1", requires=("base",))

    @hookimpl
    def tokaido_pay(self, ctx: Context, piece: int, amount: int,
                    cards: tuple[str, ...]) -> bool | None:
        meal = all(ctx.registry.cards[c].kind == "meal" for c in cards)
        return True if cards and meal else None


def test_pay_hook() -> None:
    """A plugin that handles a payment takes it over: here the coins are not spent."""
    setup = start(["kinko", "satsuki", "umegae"],
                  stacks={"base.meals": ["tempura", "sushi", "soba", "tofu"]}).state.rules.setup
    game = new_game(3, plugins=["base", FreeMeals()], setup=setup)
    before = coins(game, 2)
    game = move(game, 14)
    game = act(game, BuyMeal, meal="tempura")
    assert coins(game, 2) == before
    assert points(game, 2, "meals") == 6


class RichestBonus:
    """tokaido_end_steps and tokaido_tiebreak: +5 to the richest at the end; coins left
    break ties."""

    tokaido_plugin = PluginInfo("richest", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_category("richest", "Richest")
        registry.add_step("richest.award", run=self.award)

    @staticmethod
    def award(ctx: Context, step: Step) -> None:
        seated = [i for i, p in enumerate(ctx.state.pieces) if p.seat is not None]
        best = max(ctx.state.pieces[i].coins for i in seated)
        for i in seated:
            if ctx.state.pieces[i].coins == best:
                ctx.score(i, "richest", 5)

    @hookimpl
    def tokaido_end_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(400, Step("richest.award"))]

    @hookimpl
    def tokaido_tiebreak(self, state: GameState, piece: int) -> int | None:
        return state.pieces[piece].coins


def finish(game: Game) -> Game:
    while not game.is_over:
        game = game.apply(game.legal_actions()[-1])
    return game


def test_end_steps_hook() -> None:
    """End steps run once, after the journey, in order after the base game's."""
    game = finish(new_game(3, seed=4, plugins=["base", RichestBonus()]))
    best = max(p.coins for p in game.state.pieces)
    for p in game.state.pieces:
        assert p.score.get("richest", 0) == (5 if p.coins == best else 0)


def test_tiebreak_hook() -> None:
    """Tie-break values of all plugins are added; equal totals are then ranked by them."""
    game = finish(new_game(3, seed=4, plugins=["base", RichestBonus()]))
    even = FrozenMap({"panoramas": 10})
    pieces = tuple(p.replace(score=even, coins=c) for p, c in zip(
        game.state.pieces, (4, 9, 1), strict=True))
    zones = game.state.zones.merge({f"core.collection.{i}": () for i in range(3)})
    tied = Game(game.state.replace(pieces=pieces, zones=zones), ())
    assert [s.rank for s in tied.scores()] == [2, 1, 3]
    assert tied.winners() == (1,)


class DeclaredTips(Tips):
    """tokaido_action_space: the tip decision gets a number for learning agents (the
    same plugin as Tips, which declares nothing)."""

    @hookimpl
    def tokaido_action_space(self, rules: Rules) -> Sequence[tuple[object, ...]]:
        return [("tips.tip", "self")]


def test_action_space_hook() -> None:
    """A plugin's declared decisions are numbered; an undeclared one is refused."""
    from tokaido_rules import TokaidoError
    from tokaido_rules.engine import make_rules
    from tokaido_rules.rl import ActionIndex

    for plugin, declared in ((DeclaredTips(), True), (Tips(), False)):
        game = new_game(3, plugins=["base", plugin], travellers=["kinko", "satsuki", "umegae"])
        index = ActionIndex(make_rules(game.ruleset, 3, Setup()))
        seat = game.current_player
        assert seat is not None
        tip = Tip(seat, seat)
        if declared:
            assert index.keys[index.number(tip, game)] == ("tips.tip", "self")
            assert len(index.legal(game)) == len(game.legal_actions())
        else:
            with pytest.raises(TokaidoError, match="tokaido_action_space"):
                index.legal(game)


class Milestones:
    """tokaido_render_notes: a note per traveller (the stages left to the final inn)
    and one about the table, drawn in every picture."""

    tokaido_plugin = PluginInfo("milestones", "1", requires=("base",))

    @hookimpl
    def tokaido_render_notes(self, scene: Scene) -> Sequence[Note]:
        end = len(scene.board) - 1
        notes = [Note("Milestones", f"{end - p.position} to go", i)
                 for i, p in enumerate(scene.pieces)]
        return [*notes, Note("Road", f"{end} stages <& inns>")]


class Scribbler:
    """A tokaido_render_notes that returns text instead of notes."""

    tokaido_plugin = PluginInfo("scribbler", "1", requires=("base",))

    @hookimpl
    def tokaido_render_notes(self, scene: Scene) -> Sequence[Note]:
        return "a picture"  # type: ignore[return-value]


def test_render_notes_hook() -> None:
    """A plugin's notes are drawn in the text and SVG pictures of games and views, after
    the base game's, escaped in SVG; a plugin returning anything else is named in a
    PluginError."""
    import xml.etree.ElementTree as ET

    from tokaido_rules.errors import PluginError
    from tokaido_rules.render import notes, svg, text

    game = new_game(3, plugins=["base", Milestones()], travellers=["kinko", "satsuki", "umegae"])
    found = notes(game.view(0))
    assert found[-1] == Note("Road", "54 stages <& inns>")
    assert [n.text for n in found if n.label == "Milestones"] == ["54 to go"] * 3
    labels = [n.label for n in found]
    assert labels.index("Decks") < labels.index("Milestones")  # base first, plugin order
    assert "Milestones: 54 to go" in text(game) and "Road: 54 stages <& inns>" in text(game)
    picture = svg(game.view(1))
    assert "54 stages &lt;&amp; inns&gt;" in picture
    assert "54 stages <& inns>" in ET.fromstring(picture).itertext()
    broken = new_game(3, plugins=["base", Scribbler()], travellers=["kinko", "satsuki", "umegae"])
    with pytest.raises(PluginError, match=r"scribbler.*tokaido_render_notes"):
        text(broken)


def test_every_hook_has_a_test() -> None:
    """Every hook specification is implemented by some plugin in the test suite."""
    from pathlib import Path

    import tokaido_rules.hookspecs as specs

    hooks = [n for n in dir(specs) if n.startswith("tokaido_")]
    text = "\n".join(p.read_text() for p in Path(__file__).parent.rglob("test_*.py"))
    missing = [h for h in hooks if f"def {h}(" not in text]
    assert not missing, f"hooks without a test: {missing}"



class Cautious:
    """tokaido_ask_decision: every decision is asked, even one with a single answer."""

    tokaido_plugin = PluginInfo("cautious", "1", requires=("base",))

    @hookimpl
    def tokaido_ask_decision(self, state: GameState, step: Step) -> bool | None:
        return True


def test_ask_decision_hook() -> None:
    """A decision with one possible answer (a village where 1 coin buys nothing) is taken
    by the engine and recorded after core.automatic; a plugin may have it asked instead."""
    setup = Setup(travellers=("kinko", "umegae", "satsuki"), queue=(0, 1, 2), coins={2: 1},
                  stacks={"base.souvenirs": ("haori", "geta", "sumie")})
    alone = new_game(3, plugins=["base"], setup=setup)
    alone = alone.apply(Move(2, 2, 1, 0))
    assert alone.current_step is not None and alone.current_step.kind == "core.move"
    types = [e.TYPE for e in alone.events]
    assert types[types.index("core.automatic") + 1] == "base.buy_souvenirs"
    assert list(decisions(alone.events)) == [Move(2, 2, 1, 0)]
    asked = new_game(3, plugins=["base", Cautious()], setup=setup).apply(Move(2, 2, 1, 0))
    step = asked.current_step
    assert step is not None and step.kind == "base.buy_souvenirs"
    assert asked.legal_actions() == (BuySouvenirs(2, 2, (), None),)
    after = asked.apply(BuySouvenirs(2, 2, (), None)).state
    assert after.pieces == alone.state.pieces
    assert "core.automatic" not in [e.TYPE for e in asked.events]
