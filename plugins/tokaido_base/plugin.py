"""The base game as a plugin: registration and hook implementations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from tokaido_rules import (
    Card,
    Context,
    GameState,
    PluginInfo,
    Registry,
    Rules,
    Space,
    Staged,
    Step,
    hookimpl,
)

from . import content
from . import rules as r
from . import travellers as tv
from .actions import (
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    ChooseTraveller,
    Donate,
    KeepEncounter,
    SatsukiMeal,
    TravellersOffered,
)
from .content import ENCOUNTER, FARM, HOT_SPRING, MOUNTAIN, PADDY, SEA, TEMPLE, VILLAGE
from .scoring import DONATION, panorama_complete

VERSION = "1.0.0"

SPACE_ACTIONS: dict[str, str] = {
    VILLAGE: "base.village",
    FARM: "base.farm",
    PADDY: "base.panorama",
    MOUNTAIN: "base.panorama",
    SEA: "base.panorama",
    HOT_SPRING: "base.hot_spring",
    TEMPLE: "base.temple",
    ENCOUNTER: "base.encounter",
}
"""The base action of each road space: space kind -> step kind (order :data:`SPACE_ORDER`)."""

_NEEDS_A_COIN = (TEMPLE, VILLAGE)

SPACE_ORDER = 100
INN_POWER_ORDER = 100
SATSUKI_ORDER = 200
INN_HAND_ORDER = 300
MEAL_ORDER = 400
INN_CLOSE_ORDER = 900


def completed_panorama_reason(kind: str) -> str:
    """Why a traveller may not stop on a panorama space of a type they completed (other
    plugins may lift exactly this reason, e.g. to allow another action there)."""
    return f"the {kind} panorama is already complete"


_STAGED: dict[tuple[int, str, int, int | None], Staged] = {}


def _staged(order: int, kind: str, piece: int, seat: int | None) -> Staged:
    """A step of a stop, shared between stops (steps are immutable values and these few
    recur at every stop, so they are made once)."""
    key = (order, kind, piece, seat)
    staged = _STAGED.get(key)
    if staged is None:
        staged = _STAGED[key] = Staged(order, Step(kind, piece, seat))
    return staged


class BasePlugin:
    """Tokaido's base game: 2 to 5 players, ten travellers, every space and inn."""

    tokaido_plugin = PluginInfo(
        "base", VERSION, description="The base game of Tokaido, for 2 to 5 players."
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.set_board(content.board())
        for card in content.cards():
            registry.add_card(card)
        for zone, (cards, shuffled) in content.deck_contents().items():
            registry.add_deck(zone, cards, shuffled=shuffled,
                              visibility="hidden" if shuffled else "public")
        registry.add_zone(r.VILLAGE_OFFER, "public")
        registry.add_zone(r.INN_HAND, r.inn_hand_visible)
        registry.add_zone(r.DRAWN, "seat")
        registry.add_data("base.offer.", "seat")
        registry.add_data("base.meal_at.", "public")
        for traveller in content.TRAVELLERS:
            registry.add_traveller(traveller)
        for name, label in content.CATEGORIES.items():
            registry.add_category(name, label)
        registry.add_event(TravellersOffered)
        steps = {
            "base.offer_travellers": r.run_offer_travellers,
            "base.farm": r.run_farm,
            "base.panorama": r.run_panorama,
            "base.hot_spring": r.run_hot_spring,
            "base.village": r.run_village,
            "base.village_end": r.run_village_end,
            "base.encounter": r.run_encounter,
            "base.umegae": r.run_umegae,
            "base.hirotada": r.run_hirotada,
            "base.neutral_temple": r.run_neutral_temple,
            "base.effect.shokunin": r.effect_shokunin,
            "base.effect.samurai": r.effect_samurai,
            "base.effect.kuge": r.effect_kuge,
            "base.effect.miko": r.effect_miko,
            "base.effect.annaibito": r.effect_annaibito,
            "base.hiroshige": r.run_hiroshige,
            "base.chuubei": r.run_chuubei,
            "base.satsuki_draw": r.run_satsuki_draw,
            "base.inn_hand": r.run_inn_hand,
            "base.neutral_discard": r.run_neutral_discard,
            "base.inn_close": r.run_inn_close,
            "base.end_achievements": r.run_end_achievements,
            "base.end_temple": r.run_end_temple,
        }
        for kind, run in steps.items():
            registry.add_step(kind, run=run)
        registry.add_step("base.choose_traveller", legal=r.legal_choose_traveller, ordered=True,
                          shapes_game=True)
        registry.add_step("base.buy_souvenirs", legal=r.legal_buy_souvenirs,
                          explain=r.explain_buy_souvenirs, ordered=True)
        registry.add_step("base.temple", legal=r.legal_donate, explain=r.explain_donate,
                          ordered=True)
        registry.add_step("base.bank_coin", legal=r.legal_bank_coin,
                          ordered=True)
        registry.add_step("base.keep_encounter", legal=r.legal_keep_encounter,
                          ordered=True)
        registry.add_step("base.choose_panorama", legal=r.legal_choose_panorama, ordered=True)
        registry.add_step("base.satsuki_meal", legal=r.legal_satsuki_meal,
                          ordered=True)
        registry.add_step("base.meal", legal=r.legal_buy_meal, explain=r.explain_buy_meal,
                          ordered=True)
        registry.add_action(ChooseTraveller, r.resolve_choose_traveller)
        registry.add_action(BuySouvenirs, r.resolve_buy_souvenirs)
        registry.add_action(Donate, r.resolve_donate)
        registry.add_action(AddBankCoin, r.resolve_bank_coin)
        registry.add_action(KeepEncounter, r.resolve_keep_encounter)
        registry.add_action(ChoosePanorama, r.resolve_choose_panorama)
        registry.add_action(SatsukiMeal, r.resolve_satsuki_meal)
        registry.add_action(BuyMeal, r.resolve_buy_meal)
        registry.add_option(
            "base.meal_hand", "players_plus_one", ("players_plus_one", "players"),
            "Meal cards the first arrival at an inn draws: players + 1, or players "
            "(the Gastronomy variant and the online rules).",
        )
        registry.add_option(
            "base.hirotada_bank_coin", "choice", ("choice", "auto"),
            "Hirotada's extra temple coin from the bank: he may add it, or it is "
            "always added (online rules).",
        )
        registry.add_option(
            "base.zenemon_discount", "choice", ("choice", "most_expensive"),
            "Zen-emon's 1-coin souvenir: he names it, or it is always the most "
            "expensive one bought (online rules).",
        )

    # --- game created ------------------------------------------------------------------
    @hookimpl
    def tokaido_neutral_travellers(self, players: int) -> int | None:
        return 1 if players == 2 else None

    @hookimpl
    def tokaido_space_slots(self, players: int, space: Space) -> int | None:
        return 2 if space.double and players >= 4 else 1

    # --- setup -------------------------------------------------------------------------
    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(100, Step("base.offer_travellers"))]

    # --- turns -------------------------------------------------------------------------
    @hookimpl
    def tokaido_decider(self, state: GameState, piece: int) -> int | None:
        """The player whose traveller leads decides for the neutral traveller."""
        return state.pieces[state.leader(seated_only=True)].seat

    @hookimpl
    def tokaido_forbidden_stops(
        self, state: GameState, piece: int, positions: tuple[int, ...]
    ) -> Mapping[int, str] | None:
        """Temples and villages need a coin; a completed panorama type is closed."""
        p = state.pieces[piece]
        if p.seat is None:  # the neutral traveller may stop anywhere free
            return None
        board = state.rules.board
        forbidden = {}
        for position in positions:
            kind = board[position].kind
            if kind in _NEEDS_A_COIN:
                if p.coins < 1:
                    forbidden[position] = f"stopping at a {kind} needs at least 1 coin"
            elif kind in content.PANORAMAS and panorama_complete(state, piece, kind):
                forbidden[position] = completed_panorama_reason(kind)
        return forbidden

    @hookimpl
    def tokaido_arrival_steps(self, state: GameState, piece: int) -> Sequence[Staged]:
        p = state.pieces[piece]
        space = state.rules.board[p.position]
        if space.inn:
            return self._inn_steps(state, piece)
        if p.seat is None:
            if space.kind == TEMPLE:
                return [_staged(SPACE_ORDER, "base.neutral_temple", piece, None)]
            return []
        steps = []
        kind = SPACE_ACTIONS.get(space.kind)
        if kind is not None:
            steps.append(_staged(SPACE_ORDER, kind, piece, p.seat))
        power = tv.STOP_POWERS.get(p.traveller or "")
        if power is not None and power[0] == space.kind:
            steps.append(_staged(power[1], power[2], piece, p.seat))
        return steps

    @staticmethod
    def _inn_steps(state: GameState, piece: int) -> list[Staged]:
        p = state.pieces[piece]
        close = _staged(INN_CLOSE_ORDER, "base.inn_close", piece, None)
        hand = _staged(INN_HAND_ORDER, "base.inn_hand", piece, None)
        if p.seat is None:
            return [hand, _staged(MEAL_ORDER, "base.neutral_discard", piece, None), close]
        steps = [hand, _staged(MEAL_ORDER, "base.meal", piece, p.seat), close]
        power = tv.INN_ARRIVAL_POWERS.get(p.traveller or "")
        if power is not None and p.position != state.rules.end:
            steps.append(_staged(INN_POWER_ORDER, power, piece, p.seat))
        if tv.draws_free_meal(state, piece):
            steps.append(_staged(SATSUKI_ORDER, "base.satsuki_draw", piece, p.seat))
        return steps

    @hookimpl
    def tokaido_card_gained(self, ctx: Context, piece: int, card: str, source: str) -> None:
        info: Card = ctx.registry.cards[card]
        ctx.score(piece, tv.POWER, tv.gain_bonus(ctx.state, piece, info.kind, info.tags))

    # --- end -----------------------------------------------------------------------------
    @hookimpl
    def tokaido_end_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(100, Step("base.end_achievements")), Staged(200, Step("base.end_temple"))]

    @hookimpl
    def tokaido_tiebreak(self, state: GameState, piece: int) -> int | None:
        return r.tiebreak(state, piece)

    @hookimpl
    def tokaido_action_space(self, rules: Rules) -> Sequence[tuple[object, ...]]:
        """Every decision of the base game, as :meth:`Action.key` gives it."""
        cards = rules.registry.cards.values()
        encounters = [c.id for c in cards if c.kind == "encounter"]
        meals = [c.id for c in cards if c.kind == "meal"]
        keys: list[tuple[object, ...]] = [
            ("base.choose_traveller", t) for t in rules.registry.travellers]
        for size in range(4):
            for combo in combinations(range(3), size):
                keys.extend(("base.buy_souvenirs", "self", combo, d) for d in (None, *combo))
        keys += [("base.donate", "self", amount) for amount in (1, 2, 3)]
        keys += [("base.add_bank_coin", "self", b) for b in (False, True)]
        keys += [("base.keep_encounter", "self", c) for c in encounters]
        keys += [("base.choose_panorama", "self", k) for k in content.PANORAMAS]
        keys += [("base.satsuki_meal", "self", b) for b in (False, True)]
        keys += [("base.buy_meal", "self", m) for m in (None, *meals)]
        return keys

    @hookimpl
    def tokaido_invariants(self, state: GameState) -> Sequence[str]:
        problems = []
        cards = state.rules.registry.cards
        for i, p in enumerate(state.pieces):
            meals = [c for c in state.collection(i) if cards[c].kind == "meal"]
            if len(meals) != len(set(meals)):
                problems.append(f"traveller {i} ate the same meal twice")
            if p.counter(DONATION) < 0:
                problems.append(f"traveller {i} has a negative donation")
        return problems


plugin = BasePlugin()
