"""The Crossroads expansion as a plugin (rules reference, Crossroads)."""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tokaido_base import (
    INN_POWER_ORDER,
    PANORAMAS,
    SPACE_ACTIONS,
    SPACE_ORDER,
    TEMPLE,
    completed_panorama_reason,
    panorama_complete,
)
from tokaido_rules import (
    Action,
    Context,
    GameState,
    Note,
    PluginInfo,
    Registry,
    Rules,
    Scene,
    Staged,
    Step,
    hookimpl,
)

from . import content as c
from . import pictures
from . import rules as r
from .actions import (
    BuyLegendary,
    DieRolled,
    FriendshipMove,
    Gamble,
    HospitalityMeal,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseDevotion,
    UseFortune,
    UseVitality,
)
from .amulets import (
    ACQUIRED,
    DEVOTION_ACTIVE,
    amulet_pile_visible,
    amulet_window,
    devotion_key,
    holds_any,
    usable,
)

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

VERSION = "1.1.0"
GOTOZAEMON_ORDER = 50
VITALITY_ORDER = 950
CALLIGRAPHY_ORDER = 300
INN_POWERS = {c.DAIGORO: "crossroads.daigoro", c.JIROCHO: "crossroads.jirocho"}


RUN_STEPS = {
    "crossroads.choose_option": (
        r.run_choose_option,
        "At a road stop, offers the base action or the Crossroads action of the space "
        "(the crossroads.option decision), if either can be taken."),
    "crossroads.cherry_tree": (r.run_cherry_tree, "Take a cherry tree: 2 points, 1 coin."),
    "crossroads.bath_house": (r.run_bath_house, "Pay 1 coin for a bath house (4 points)."),
    "crossroads.gaming_room": (
        r.run_gaming_room, "Stake 2 coins and roll the Fortune die; win the stake times the "
                           "face."),
    "crossroads.amulet": (r.run_amulet, "The amulet option: the amulet choice follows."),
    "crossroads.legendary": (
        r.run_legendary, "The legendary-object option: the purchase decision follows."),
    "crossroads.calligraphy": (
        r.run_calligraphy, "The calligraphy option: the purchase decision follows."),
    "crossroads.gotozaemon": (r.run_gotozaemon, "Gotozaemon gains 1 coin at a panorama stop."),
    "crossroads.daigoro": (
        r.run_daigoro, "Daigoro draws a souvenir at an intermediate inn, before the meal."),
    "crossroads.vitality_check": (
        r.run_vitality_check,
        "After a road stop of a traveller holding an amulet: if it now leads and may use an "
        "amulet, the crossroads.vitality decision follows (whichever amulet it holds)."),
    "crossroads.end_calligraphy": (
        r.run_end_calligraphy, "End of game: every calligraphy card scores."),
}
"""The steps Crossroads runs by itself: kind -> (function, what it does)."""

DECISIONS = {
    "crossroads.option": (
        r.legal_option, TakeOption, True,
        "The traveller chooses the base or the Crossroads action of its stop (with Health "
        "both, in the order chosen). A lone open option is taken by the engine unless the "
        "traveller may use an amulet now."),
    "crossroads.second_option": (
        r.legal_second_option, TakeOption, False,
        "Kita, Miyataka or a Health user may take the other option of the stop, or not."),
    "crossroads.take_amulet": (
        r.legal_take_amulet, TakeAmulet, False,
        "Choose an amulet from the face-down pile for 1 coin (only the chooser sees the "
        "pile and the choice)."),
    "crossroads.buy_legendary": (
        r.legal_buy_legendary, BuyLegendary, False,
        "Buy one affordable legendary object (or none, with optional purchases)."),
    "crossroads.take_calligraphy": (
        r.legal_take_calligraphy, TakeCalligraphy, False,
        "Buy one calligraphy card for 1 coin (or none, with optional purchases)."),
    "crossroads.jirocho": (
        r.legal_gamble, Gamble, True,
        "Jirocho at an intermediate inn stakes 1 coin on the Fortune die, or not; without "
        "a coin the engine answers no."),
    "crossroads.vitality": (
        r.legal_vitality, UseVitality, False,
        "A traveller that took the lead holding an amulet it may use is asked whether to "
        "move again with Vitality; only a Vitality holder may say yes."),
}
"""Crossroads decisions: kind -> (legal actions, answering action type, automatic, doc).
``automatic``: a lone possible answer is taken by the engine (it is public)."""

WORDS = {
    "crossroads.option": "choose the action of the stop",
    "crossroads.second_option": "take the other action of the stop, or not",
    "crossroads.take_amulet": "choose an amulet",
    "crossroads.buy_legendary": "buy a legendary object, or not",
    "crossroads.take_calligraphy": "buy a calligraphy card, or not",
    "crossroads.jirocho": "stake a coin on the Fortune die, or not",
    "crossroads.vitality": "move again with Vitality, or not",
}
"""What each Crossroads decision asks, as the page of ``tokaido serve`` says it."""


class CrossroadsPlugin:
    """Crossroads: six travellers, five piles of cards, the Fortune die, and a second
    option at every road stop."""

    tokaido_plugin = PluginInfo(
        "crossroads", VERSION, requires=("base",),
        description="The Crossroads expansion: new travellers, cards, amulets and options.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_content(cards=c.cards(), travellers=c.TRAVELLERS,
                             categories=c.CATEGORIES, card_kinds=c.CARD_KINDS)
        for zone, cards in c.piles().items():
            visibility: Any = amulet_pile_visible if zone == c.AMULETS else "public"
            registry.add_deck(zone, cards, shuffled=False, visibility=visibility)
        registry.add_data(ACQUIRED + ".", "seat")
        registry.add_data(DEVOTION_ACTIVE + ".", "public")
        registry.add_event(DieRolled)
        for kind, (run, doc) in RUN_STEPS.items():
            registry.add_step(kind, run=run, doc=doc)
        for kind, (legal, answer, automatic, doc) in DECISIONS.items():
            # each legal function makes its actions in canonical order
            registry.add_step(kind, legal=legal, ordered=True, automatic=automatic,
                              answers=(answer,), doc=doc, words=WORDS[kind])
        registry.add_action(TakeOption, r.resolve_take_option)
        registry.add_action(TakeAmulet, r.resolve_take_amulet)
        registry.add_action(BuyLegendary, r.resolve_buy_legendary)
        registry.add_action(TakeCalligraphy, r.resolve_take_calligraphy)
        registry.add_action(Gamble, r.resolve_gamble)
        registry.add_action(UseVitality, r.resolve_vitality)
        registry.add_action(UseFortune, r.resolve_fortune)
        registry.add_action(UseDevotion, r.resolve_devotion)
        registry.add_action(FriendshipMove, r.resolve_friendship)
        registry.add_action(HospitalityMeal, r.resolve_hospitality)
        registry.add_option(
            "crossroads.cherry_tree_on_completed_panorama", False, (False, True),
            "May a traveller stop on a panorama type they completed, to take a cherry "
            "tree? Printed rules: no; online rules: yes.")
        registry.add_option(
            "crossroads.fortune_timing", "before_move", ("before_move", "any_time_in_turn"),
            "When Fortune may be used: before moving (printed), or at any decision of the "
            "owner's turn (online).")
        registry.add_option(
            "crossroads.amulet_same_turn", False, (False, True),
            "May an amulet be used in the turn it was acquired? Printed: no (from the "
            "next move on); online: yes.")
        registry.add_option(
            "crossroads.shodo_emaki_counts_legendary", False, (False, True),
            "Do Shodo and Emaki also score for legendary objects acquired later? Printed: "
            "no (souvenirs only); online since 2021: yes.")
        registry.add_option(
            "crossroads.devotion", "stop", ("stop", "dearest_card"),
            "What Devotion donates: every coin paid for cards during the stop (printed), "
            "or only the next purchase, souvenirs at the printed price of the dearest "
            "one bought (online).")
        registry.add_option(
            "crossroads.optional_purchase", False, (False, True),
            "Are the legendary-object, calligraphy and amulet options offered whenever "
            "their pile has a card, with buying nothing allowed? Printed: no (only when "
            "affordable, and choosing one means buying one); online: yes.")
        registry.add_option(
            "crossroads.health_where_both", False, (False, True),
            "May Health be spent where the traveller takes both options anyway (Kita at "
            "an encounter, Miyataka at a temple)? Printed: no; online: yes (no effect).")

    # --- turns ------------------------------------------------------------------------
    @hookimpl(wrapper=True)
    def tokaido_arrival_steps(
        self, state: GameState, piece: int
    ) -> Generator[None, list[Sequence[Staged]], list[Sequence[Staged]]]:
        """Replace the base action of a road stop by the choice between it and the
        Crossroads action; add the Crossroads travellers' powers and Vitality."""
        results = yield
        p = state.pieces[piece]
        if p.seat is None:
            return results
        base_actions = set(SPACE_ACTIONS.values())
        replaced: list[Sequence[Staged]] = []
        for group in results:
            replaced.append([
                Staged(s.order, Step("crossroads.choose_option", piece, p.seat,
                                     {"base": s.step.kind}))
                if s.order == SPACE_ORDER and s.step.kind in base_actions else s
                for s in group
            ])
        replaced.append(self._own_steps(state, piece))
        return replaced

    @staticmethod
    def _own_steps(state: GameState, piece: int) -> list[Staged]:
        p = state.pieces[piece]
        space = state.rules.board[p.position]
        steps = []
        if space.inn:
            power = INN_POWERS.get(p.traveller or "")
            if power is not None and p.position != state.rules.end:
                steps.append(Staged(INN_POWER_ORDER, Step(power, piece, p.seat)))
            return steps
        if space.kind in PANORAMAS and p.traveller == c.GOTOZAEMON:
            steps.append(Staged(GOTOZAEMON_ORDER, Step("crossroads.gotozaemon", piece, p.seat)))
        same_turn = bool(state.rules.option("crossroads.amulet_same_turn"))
        if holds_any(state, piece) or (same_turn and space.kind == TEMPLE):
            # Any amulet, not only Vitality: which one is held is secret, how many is not.
            # (With same-turn amulets, one taken at this temple may be used at once.)
            steps.append(Staged(VITALITY_ORDER, Step("crossroads.vitality_check", piece,
                                                     p.seat)))
        return steps

    @hookimpl(wrapper=True)
    def tokaido_forbidden_stops(
        self, state: GameState, piece: int, positions: tuple[int, ...]
    ) -> Generator[None, list[Mapping[int, str] | None], list[Mapping[int, str] | None]]:
        """With ``crossroads.cherry_tree_on_completed_panorama``, a completed panorama
        type stays open for a cherry tree (while the pile has one)."""
        results = yield
        if not state.rules.option("crossroads.cherry_tree_on_completed_panorama"):
            return results
        if not state.zone(c.CHERRY_TREES):
            return results
        board = state.rules.board
        lifted = {pos for pos in positions if board[pos].kind in PANORAMAS
                  and panorama_complete(state, piece, board[pos].kind)}
        return [
            None if found is None else {
                pos: why for pos, why in found.items()
                if not (pos in lifted and why == completed_panorama_reason(board[pos].kind))
            }
            for found in results
        ]

    @hookimpl
    def tokaido_extra_actions(self, state: GameState, step: Step) -> Sequence[Action]:
        piece = step.piece
        if piece < 0 or step.seat is None or state.pieces[piece].seat != step.seat:
            return ()
        extra: list[Action] = []
        seat = step.seat
        if step.kind == "core.move" and usable(state, piece, c.FRIENDSHIP, step):
            extra.extend(r.friendship_moves(state, step))
        fortune_now = step.kind == "core.move" or (
            state.rules.option("crossroads.fortune_timing") == "any_time_in_turn")
        if fortune_now and usable(state, piece, c.FORTUNE, step):
            extra.append(UseFortune(seat, piece))
        if (step.kind == "crossroads.option" and usable(state, piece, c.HEALTH, step)
                and (not step.data["both"]
                     or state.rules.option("crossroads.health_where_both"))):
            extra.extend(TakeOption(seat, piece, str(o), True) for o in step.data["options"]
                         if r.available(state, piece, str(o)))
        if step.kind == r.MEAL_DECISION and usable(state, piece, c.HOSPITALITY, step):
            extra.extend(r.hospitality_meals(state, step))
        if (step.kind in r.PURCHASE_DECISIONS and usable(state, piece, c.DEVOTION, step)
                and state.data.get(devotion_key(piece)) != state.turn):
            extra.append(UseDevotion(seat, piece))
        return extra

    @hookimpl
    def tokaido_card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        if ctx.state.pieces[piece].traveller == c.NAMPO:
            r.nampo_bonus(ctx, piece, card, source)
        r.later_scroll_bonus(ctx, piece, card)

    @hookimpl
    def tokaido_pay(self, ctx: Context, piece: int, amount: int,
                    cards: tuple[str, ...]) -> bool | None:
        return True if r.devotion_pay(ctx, piece, amount, cards) else None

    @hookimpl
    def tokaido_ask_decision(self, state: GameState, step: Step) -> bool | None:
        """A traveller who may use an amulet now is asked every decision, even one with
        a single answer: only the holder knows which amulet (if any) applies there."""
        piece = step.piece
        if piece < 0 or step.seat is None or state.pieces[piece].seat != step.seat:
            return None
        return True if amulet_window(state, piece, step) else None

    # --- end ------------------------------------------------------------------------------
    @hookimpl
    def tokaido_end_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(CALLIGRAPHY_ORDER, Step("crossroads.end_calligraphy"))]

    @hookimpl
    def tokaido_action_space(self, rules: Rules) -> Sequence[tuple[object, ...]]:
        """Every Crossroads decision, as :meth:`Action.key` gives it."""
        options = sorted(set(r.CROSSROADS_OPTION.values()) | set(SPACE_ACTIONS.values()))
        meals = [x.id for x in rules.registry.cards.values() if x.kind == "meal"]
        keys: list[tuple[object, ...]] = [("crossroads.take_option", "self", None, False)]
        keys += [("crossroads.take_option", "self", o, h) for o in options for h in (False, True)]
        keys += [("crossroads.take_amulet", "self", a) for a in (*c.AMULET_CARDS, None)]
        keys += [("crossroads.buy_legendary", "self", x) for x in (*c.LEGENDARY_OBJECTS, None)]
        keys += [("crossroads.take_calligraphy", "self", x) for x in (*c.CALLIGRAPHIES, None)]
        keys += [("crossroads.gamble", "self", b) for b in (False, True)]
        keys += [("crossroads.use_vitality", "self", b) for b in (False, True)]
        keys += [("crossroads.use_fortune", "self"), ("crossroads.use_devotion", "self")]
        keys += [("crossroads.friendship_move", "self", p) for p in range(1, rules.end)]
        keys += [("crossroads.hospitality_meal", "self", m) for m in meals]
        return keys

    @hookimpl
    def tokaido_render_notes(self, scene: Scene) -> Sequence[Note]:
        """The piles' sizes; each traveller's amulets (which ones only where the
        scene shows them, else how many)."""
        return pictures.notes(scene)

    @hookimpl
    def tokaido_render_glossary(self, registry: Registry) -> Mapping[str, str]:
        """Powers, card effects, souvenir families and sets (render's words)."""
        return pictures.glossary(registry)

    @hookimpl
    def tokaido_invariants(self, state: GameState) -> Sequence[str]:
        problems = []
        for i in range(len(state.pieces)):
            held = [x for x in state.secret(i) if x in c.AMULET_CARDS]
            if len(held) != len(set(held)):
                problems.append(f"traveller {i} holds the same amulet twice")
        return problems

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import RULES

        return RULES


plugin = CrossroadsPlugin()
