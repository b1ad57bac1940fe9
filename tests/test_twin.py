"""The conformance kit's twin games (RULES.md 7): hidden facts must not shape what a seat
sees, including which decisions are asked and what they offer.

Small test-only plugins leak the order of a hidden deck of two cards, which nobody ever
sees, through the shape of the decisions; the twin check must catch each of them, and
must not blame a seat for choices that depend on its own secret card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from attrs import frozen

from tokaido_rules import (
    Action,
    Card,
    Context,
    GameState,
    PluginInfo,
    Registry,
    Ruleset,
    Setup,
    Staged,
    Step,
    dump_log,
    hookimpl,
    new_game,
    secret_zone,
)
from tokaido_rules.events import Automatic, DeckSet, Move, decisions
from tokaido_rules.testing import (
    ConformanceError,
    Twin,
    _decided,
    check_twin,
    play,
    twins,
)
from tokaido_rules.views import PUBLIC

DECK = "leak.deck"
CARDS = ("leak.x", "leak.y")
ONLY_DECK = ("shuffle.leak.",)
"""Twins of the test deck only: the shipped rules have their own tests."""


@frozen
class Nod(Action):
    """Answer the leaky plugin's question, naming a card or not."""

    TYPE: ClassVar[str] = "leak.nod"
    PUBLIC: ClassVar[bool] = True
    piece: int
    card: str = ""


@frozen
class Wink(Action):
    """An extra option before a move, which leaves the move to make."""

    TYPE: ClassVar[str] = "leak.wink"
    PUBLIC: ClassVar[bool] = True
    CONSUMES_STEP: ClassVar[bool] = False
    piece: int


class Leak:
    """A plugin with a hidden deck of two cards that nobody ever sees, and a question
    ("leak.ask") at each stop of a player's traveller. ``mode`` says how it leaks:

    - ``"asked"``: the question is asked only when a card of the deck is the first one;
    - ``"offered"``: it offers a single answer, which names a card of the deck;
    - ``"extra"``: a move offers a wink as well, only when a card of the deck is the
      first one;
    - ``"own"`` (no leak): the top card is dealt to seat 0's secret cards at setup, and
      seat 0's answers name its own secret card.

    The card looked at is the one at position ``turn % 2``, so that a twin with the two
    cards swapped differs at every turn.
    """

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.tokaido_plugin = PluginInfo("leak", "1", requires=("base",))

    @staticmethod
    def first(state: GameState) -> bool:
        return state.zone(DECK)[state.turn % 2] == CARDS[0]

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        for card in CARDS:
            registry.add_card(Card(card, "leak", card))
        registry.add_deck(DECK, CARDS)
        registry.add_data("leak.", "public")
        registry.add_step("leak.ask", legal=self.legal)
        registry.add_step("leak.deal", run=self.deal)
        registry.add_action(Nod)
        registry.add_action(Wink, self.wink)

    def legal(self, state: GameState, step: Step) -> list[Action]:
        seat = step.seat if step.seat is not None else -1
        if self.mode == "offered":
            return [Nod(seat, step.piece, state.zone(DECK)[state.turn % 2])]
        if self.mode == "own":
            return [Nod(seat, step.piece, card) for card in state.secret(step.piece)] or [
                Nod(seat, step.piece)]
        return [Nod(seat, step.piece)]

    @staticmethod
    def deal(ctx: Context, step: Step) -> None:
        ctx.move_cards(DECK, secret_zone(0), ctx.state.zone(DECK)[:1], from_top=True)

    @staticmethod
    def wink(ctx: Context, step: Step, action: Wink) -> None:
        ctx.emit_data("leak.winked", ctx.state.turn)

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(300, Step("leak.deal"))] if self.mode == "own" else []

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        seat = state.pieces[piece].seat
        if seat is None or (self.mode == "asked" and not self.first(state)):
            return []
        return [Staged(5, Step("leak.ask", piece, seat))]

    @hookimpl
    def tokaido_extra_actions(self, state: GameState, step: Step) -> Sequence[Action]:
        if (self.mode != "extra" or step.kind != "core.move" or step.seat is None
                or state.data.get("leak.winked") == state.turn or not self.first(state)):
            return []
        return [Wink(step.seat, step.piece)]


def twin_check(mode: str, players: int = 3, seed: int = 1) -> int:
    ruleset = Ruleset.build(["base", Leak(mode)])
    game = play(ruleset, players, seed)
    return check_twin(ruleset, game, seed, kinds=ONLY_DECK)


def test_a_decision_asked_on_a_hidden_card_is_a_leak() -> None:
    """A question asked or not depending on the hidden deck shows in every seat's agenda
    and copy of the log."""
    with pytest.raises(ConformanceError, match=r"cannot (see|tell).*twin: shuffle\.leak\."
                                               r"deck.*leak\.ask"):
        twin_check("asked")


def test_an_action_missing_from_the_twin_is_a_leak_not_a_stop() -> None:
    """The twin does not offer the answer the game took, and the deciding seat sees no
    difference: the check fails, it does not stop quietly."""
    with pytest.raises(ConformanceError, match="the twin does not offer the action the game "
                                               r"took.*leak\.nod"):
        twin_check("offered")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_extra_option_on_a_hidden_card_is_a_leak(seed: int) -> None:
    """An extra option offered depending on the hidden deck: the deciding seat's legal
    actions differ although it cannot tell the games apart (whether or not it took it)."""
    with pytest.raises(ConformanceError,
                       match="(twin does not offer|legal actions depend).*decid.*"
                             r"core\.move|twin does not offer.*leak\.wink"):
        twin_check("extra", seed=seed)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_choices_that_depend_on_a_seats_own_secret_card_are_no_leak(players: int) -> None:
    """Seat 0 sees its own secret card, so its answers may differ in the twin: the twin
    stops there without blaming anyone, and the other seats saw nothing until then."""
    assert twin_check("own", players) == 1


def test_the_leak_free_plugin_is_compared_to_the_end() -> None:
    """Without a leak and without a difference anyone sees, a twin runs to the end."""
    assert twin_check("none") == 1


def test_decided_actions_leave_out_those_the_engine_took() -> None:
    """An action right after a core.automatic marker is the engine's, not a decision;
    the helper agrees with the public one on real games."""
    moves = [Move(0, 0, 1, 0), Move(1, 1, 2, 0), Move(0, 0, 3, 0)]
    events = [moves[0], Automatic(), moves[1], moves[2]]
    assert [a for _, a in _decided(events)] == [moves[0], moves[2]]
    assert [i for i, _ in _decided(events)] == [0, 3]
    ruleset = Ruleset.build(["base", "crossroads"])
    automatic = 0
    for seed in range(3):
        game = play(ruleset, 4, seed)
        automatic += sum(1 for e in game.events if isinstance(e, Automatic))
        assert [a for _, a in _decided(game.events)] == list(decisions(game.events))
    assert automatic > 0


def _outcomes(game_events: Sequence[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for event in game_events:
        kind = event.chance_kind()
        if kind is not None:
            out.setdefault(kind, []).append(event.chance_outcome())
    return out


@pytest.mark.parametrize("players", [2, 5])
def test_each_twin_changes_one_hidden_fact(players: int) -> None:
    """A deck twin swaps two different cards; a pick twin picks another card; an offer
    twin changes the tile the seat did not choose (and, without a spare tile, another
    seat's unchosen one); the outcomes before the changed one are the game's."""
    ruleset = Ruleset.build(["base", "crossroads", "good-luck"])
    game = play(ruleset, players, 4)
    outcomes = _outcomes(game.events)
    found = twins(game, 4, swaps=3, picks=2, offers=players)
    assert len({t.chance for t in found}) == len(found)
    families = {kind.partition(".")[0] for t in found for kind in t.chance}
    assert {"shuffle", "travellers"} <= families and families & {"pick", "discard"}
    for twin in found:
        assert len(twin.chance) == 1 or all(k.startswith("travellers.") for k in twin.chance)
        changed_kinds = [k for k, v in twin.chance.items() if list(v) != outcomes[k][:len(v)]]
        assert 1 <= len(changed_kinds) <= 2
        for kind in changed_kinds:
            script = twin.chance[kind]
            before, changed = outcomes[kind][:len(script) - 1], outcomes[kind][len(script) - 1]
            assert list(script[:-1]) == before
            new = script[-1]
            if kind.startswith(("shuffle.", "order.")):
                differ = [i for i, (a, b) in enumerate(zip(changed, new, strict=True)) if a != b]
                assert len(differ) == 2 and Counter(changed) == Counter(new)
            elif kind.startswith("travellers."):
                chosen = game.state.pieces[int(kind.rpartition(".")[2])].traveller
                assert chosen in new and len(set(new) ^ set(changed)) == 2
            else:
                assert new != changed and isinstance(new, str)


def test_a_twin_can_be_given() -> None:
    """A plugin author may compare a game with twins of their own making."""
    ruleset = Ruleset.build(["base", Leak("asked")])
    game = play(ruleset, 2, 5)
    order = next(e.cards for e in game.events if isinstance(e, DeckSet) and e.zone == DECK)
    same = Twin("the same order", {f"shuffle.{DECK}": (order,)})
    assert check_twin(ruleset, game, 5, variants=[same]) == 1
    other = Twin("the other order", {f"shuffle.{DECK}": (tuple(reversed(order)),)})
    with pytest.raises(ConformanceError, match="twin: the other order"):
        check_twin(ruleset, game, 5, variants=[other])


TELL_DECK = "tell.deck"
TELL_CARDS = ("tell.x", "tell.y")


class Tell:
    """A plugin that deals its hidden deck of two cards at setup, one to each of seats 0
    and 1 (their secret cards), so that a twin with the two swapped differs for each
    seat in its own card: no seat is compared after the deal, only the public. With
    ``tell``, it announces seat 0's card in public data at every stop: a leak that only
    the public view and the public copy of the log can show."""

    def __init__(self, tell: bool) -> None:
        self.tell = tell
        self.tokaido_plugin = PluginInfo("tell", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        for card in TELL_CARDS:
            registry.add_card(Card(card, "tell", card))
        registry.add_deck(TELL_DECK, TELL_CARDS)
        registry.add_data("tell.", "public")
        registry.add_step("tell.deal", run=self.deal)
        registry.add_step("tell.say", run=self.say)

    @staticmethod
    def deal(ctx: Context, step: Step) -> None:
        for piece in (0, 1):
            ctx.move_cards(TELL_DECK, secret_zone(piece), ctx.state.zone(TELL_DECK)[:1],
                           from_top=True)

    @staticmethod
    def say(ctx: Context, step: Step) -> None:
        ctx.emit_data("tell.card", ctx.state.secret(0)[0])

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(300, Step("tell.deal"))]

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        return [Staged(5, Step("tell.say", piece))] if self.tell else []


def tell_check(tell: bool) -> int:
    ruleset = Ruleset.build(["base", Tell(tell)])
    game = play(ruleset, 2, 3)
    return check_twin(ruleset, game, 3, kinds=("shuffle.tell.",))


def test_a_leak_only_a_spectator_can_see_is_caught() -> None:
    """Each seat sees a difference of its own (its secret card), so no seat's view or
    copy is compared after the deal; the public ones are, and show seat 0's card."""
    with pytest.raises(ConformanceError, match=r"the public copy of the log shows facts "
                                               r"some seat cannot see.*twin: shuffle\.tell\."
                                               r"deck.*the public"):
        tell_check(True)
    assert tell_check(False) == 1


def test_the_public_view_and_copy_are_the_same_in_twins_only_a_seat_tells_apart() -> None:
    """Seat 0 is dealt the top card of the hidden deck: in the twin with the deck's two
    cards swapped its view differs; the others' views, the public view and the public
    copy of the log do not."""
    ruleset = Ruleset.build(["base", Leak("own")])
    game = new_game(3, seed=2, plugins=ruleset)
    order = next(e.cards for e in game.events if isinstance(e, DeckSet) and e.zone == DECK)
    twin = new_game(3, seed=2, plugins=ruleset,
                    setup=Setup(chance={f"shuffle.{DECK}": (tuple(reversed(order)),)}))
    while not game.state.zone(secret_zone(0)):  # the traveller tiles first, then the deal
        action = game.legal_actions()[0]
        game, twin = game.apply(action), twin.apply(action)
    assert twin.view(0) != game.view(0) and twin.view(1) == game.view(1)
    assert twin.public_view() == game.public_view() == game.view(None)
    assert secret_zone(0) not in game.public_view().zones
    assert dump_log(twin, viewer=PUBLIC) == dump_log(game, viewer=PUBLIC)
    assert dump_log(twin, viewer=0) != dump_log(game, viewer=0)
