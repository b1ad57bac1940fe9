"""The base game as a plugin: registration and hook implementations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from tokaido_rules import (
    Card,
    Context,
    GameState,
    Note,
    PluginInfo,
    Registry,
    Rules,
    Scene,
    Space,
    Staged,
    Step,
    hookimpl,
)

from . import content, pictures
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

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

VERSION = "1.1.0"

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


_STOP_CHECKS: dict[tuple[int, ...], tuple[tuple[Space, ...], tuple[tuple[int, str], ...],
                                           tuple[tuple[int, str], ...]]] = {}


def _stops_needing_checks(board: tuple[Space, ...], positions: tuple[int, ...]) -> tuple[
        tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]:
    """Of ``positions``, the stops that need a coin (with the reason a traveller without
    one is turned away) and the panorama stops (with their kind), made once per tuple of
    positions: the engine offers the same few again and again. An entry remembers its
    board, so another board (another ruleset) is never answered from it."""
    found = _STOP_CHECKS.get(positions)
    if found is None or found[0] is not board:
        coin = tuple((pos, f"stopping at a {board[pos].kind} needs at least 1 coin")
                     for pos in positions if board[pos].kind in _NEEDS_A_COIN)
        panorama = tuple((pos, board[pos].kind) for pos in positions
                         if board[pos].kind in content.PANORAMAS)
        found = (board, coin, panorama)
        if len(_STOP_CHECKS) >= 4096:
            _STOP_CHECKS.clear()
        _STOP_CHECKS[positions] = found
    return found[1], found[2]


_STAGED: dict[tuple[int, str, int, int | None], Staged] = {}


def _staged(order: int, kind: str, piece: int, seat: int | None) -> Staged:
    """A step of a stop, shared between stops (steps are immutable values and these few
    recur at every stop, so they are made once)."""
    key = (order, kind, piece, seat)
    staged = _STAGED.get(key)
    if staged is None:
        staged = _STAGED[key] = Staged(order, Step(kind, piece, seat))
    return staged


RUN_STEP_DOCS: dict[str, str] = {
    "base.offer_travellers": "Each seat is dealt two traveller tiles to choose from "
                             "(``base.choose_traveller``), or given the setup's travellers.",
    "base.farm": "Farm stop: the traveller gains 3 coins.",
    "base.panorama": "Panorama stop: the next section of that panorama.",
    "base.hot_spring": "Hot spring stop: the top hot spring card.",
    "base.village": "Village stop: the top 3 souvenirs are revealed, for the traveller to "
                    "buy from (``base.buy_souvenirs``).",
    "base.village_end": "After a village stop: the souvenirs not bought go under the deck.",
    "base.encounter": "Encounter stop: the top encounter card, applied at once (Yoshiyasu "
                      "draws two and keeps one: ``base.keep_encounter``).",
    "base.umegae": "Umegae at an encounter stop: 1 point and 1 coin, before the card.",
    "base.hirotada": "Hirotada at a temple stop: he may add a coin from the bank to his "
                     "donation (``base.bank_coin``).",
    "base.neutral_temple": "The neutral traveller (2 players) at a temple: 1 coin from "
                           "the bank on its donation.",
    "base.effect.shokunin": "Shokunin: the top souvenir card.",
    "base.effect.samurai": "Samurai: 3 points.",
    "base.effect.kuge": "Kuge: 3 coins.",
    "base.effect.miko": "Miko: 1 coin from the bank on the traveller's temple donation.",
    "base.effect.annaibito": "Annaibito: the next section of the panorama shown, or of "
                             "one of the traveller's choice (``base.choose_panorama``) "
                             "if that one is complete.",
    "base.hiroshige": "Hiroshige at an intermediate inn: the next section of a panorama "
                      "of his choice (``base.choose_panorama``).",
    "base.chuubei": "Chuubei at an intermediate inn: the top encounter card.",
    "base.satsuki_draw": "Satsuki at an inn: she draws a meal she may keep for free "
                         "(``base.satsuki_meal``).",
    "base.inn_hand": "The first traveller at an inn draws its meal hand (option "
                     "``base.meal_hand``).",
    "base.neutral_discard": "The neutral traveller (2 players) at an inn: a random card "
                            "of the meal hand is discarded, unseen.",
    "base.inn_close": "When the last traveller has arrived at an inn, the meals not "
                      "bought go under the deck.",
    "base.end_achievements": "End of game: Gourmet, Collector, Bather and Chatterbox, to "
                             "every traveller with the highest count.",
    "base.end_temple": "End of game: points for the ranking of temple donations.",
}
"""What each step the engine runs does, for the catalogue of step kinds."""


class BasePlugin:
    """Tokaido's base game: 2 to 5 players, ten travellers, every space and inn."""

    tokaido_plugin = PluginInfo(
        "base", VERSION, description="The base game of Tokaido, for 2 to 5 players."
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.set_board(content.board())
        registry.add_content(cards=content.cards(), travellers=content.TRAVELLERS,
                             categories=content.CATEGORIES, card_kinds=content.CARD_KINDS)
        for zone, (cards, shuffled) in content.deck_contents().items():
            registry.add_deck(zone, cards, shuffled=shuffled,
                              visibility="hidden" if shuffled else "public")
        registry.add_zone(r.VILLAGE_OFFER, "public")
        registry.add_zone(r.INN_HAND, r.inn_hand_visible)
        registry.add_zone(r.DRAWN, "seat")
        registry.add_data("base.offer.", "seat")
        registry.add_data("base.meal_at.", "public")
        # Observed: what a learning agent sees of every traveller besides its coins and
        # points (the temple ranking's tally, the meals eaten), in this order.
        registry.add_counter(DONATION, observed=True,
                             doc="Coins a traveller has given to the temple.")
        registry.add_counter(r.INN_MEALS, observed=True,
                             doc="Meals a traveller has eaten at the inns.")
        for kind, (label, short, colour) in content.SPACE_KINDS.items():
            registry.add_space_kind(kind, label, short=short, colour=colour)
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
            registry.add_step(kind, run=run, doc=RUN_STEP_DOCS.get(kind, ""))
        registry.add_step("base.choose_traveller",
                          words="choose a traveller",
                          legal=r.legal_choose_traveller, ordered=True,
                          shapes_game=True, answers=(ChooseTraveller,),
                          doc="Each seat keeps one of the two traveller tiles it was dealt "
                              "(the step's piece is the seat: there are no travellers yet).")
        registry.add_step("base.buy_souvenirs",
                          words="buy souvenirs at the village",
                          legal=r.legal_buy_souvenirs,
                          explain=r.explain_buy_souvenirs, ordered=True, automatic=True,
                          answers=(BuySouvenirs,),
                          doc="At a village: buy any affordable set of the revealed "
                              "souvenirs, or none (Zen-emon names his 1-coin card).")
        registry.add_step("base.temple",
                          words="donate at the temple",
                          legal=r.legal_donate, explain=r.explain_donate,
                          ordered=True, answers=(Donate,),
                          doc="At a temple: donate 1, 2 or 3 coins.")
        registry.add_step("base.bank_coin",
                          words="add a coin from the bank to the donation, or not",
                          legal=r.legal_bank_coin,
                          ordered=True, answers=(AddBankCoin,),
                          doc="Hirotada adds a coin from the bank to his donation, or not.")
        registry.add_step("base.keep_encounter",
                          words="keep one of the two encounters",
                          legal=r.legal_keep_encounter,
                          ordered=True, answers=(KeepEncounter,),
                          doc="Yoshiyasu keeps one of the two encounter cards he drew; the "
                              "other goes back to the deck.")
        registry.add_step("base.choose_panorama",
                          words="choose a panorama to go on with",
                          legal=r.legal_choose_panorama, ordered=True,
                          automatic=True, answers=(ChoosePanorama,),
                          doc="The next section of a panorama of the traveller's choice "
                              "(Annaibito, Hiroshige), among those not complete.")
        registry.add_step("base.satsuki_meal",
                          words="keep the free meal, or return it",
                          legal=r.legal_satsuki_meal,
                          ordered=True, answers=(SatsukiMeal,),
                          doc="Satsuki keeps the meal she drew for free, or returns it "
                              "under the deck.")
        registry.add_step("base.meal",
                          words="buy a meal at the inn",
                          legal=r.legal_buy_meal, explain=r.explain_buy_meal,
                          ordered=True, automatic=r.hand_seen_by_all, answers=(BuyMeal,),
                          doc="At an inn: buy one meal of the hand not eaten before, or "
                              "none.")
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
        registry.add_option(
            "base.panorama_choice_optional", False, (False, True),
            "May Hiroshige, and Annaibito whose panorama is complete, refuse the panorama "
            "section they choose? Printed: no; online: yes.",
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
        coin_stops, panorama_stops = _stops_needing_checks(state.rules.board, positions)
        forbidden = None
        if coin_stops and p.coins < 1:
            forbidden = dict(coin_stops)
        for position, kind in panorama_stops:
            if panorama_complete(state, piece, kind):
                if forbidden is None:
                    forbidden = {}
                forbidden[position] = completed_panorama_reason(kind)
        if forbidden and coin_stops and panorama_stops:
            return dict(sorted(forbidden.items()))  # by position, as the road goes
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
        power = tv.stop_power(state, piece, space.kind)
        if power is not None:
            steps.append(_staged(power[0], power[1], piece, p.seat))
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
        keys += [("base.choose_panorama", "self", k) for k in (*content.PANORAMAS, None)]
        keys += [("base.satsuki_meal", "self", b) for b in (False, True)]
        keys += [("base.buy_meal", "self", m) for m in (None, *meals)]
        return keys

    @hookimpl
    def tokaido_render_notes(self, scene: Scene) -> Sequence[Note]:
        """Panoramas, temple donations, private draws, the village's and the inn's
        cards, and the decks' sizes."""
        return pictures.notes(scene)

    @hookimpl
    def tokaido_render_glossary(self, registry: Registry) -> Mapping[str, str]:
        """Powers, card effects, souvenir families and sets (render's words)."""
        return pictures.glossary(registry)

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

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import RULES

        return RULES


plugin = BasePlugin()
