"""The base game's rules on the fast simulator (:mod:`tokaido_rules.fast`).

:class:`BaseGame` is the game class of every ruleset with the base game: the rules of
:mod:`tokaido_base.rules` (farms, villages, temples, encounters, inns, panoramas, the
travellers' powers, the end achievements) written again, flat, as if-chains over small
integers, so that the base game pays no function call per step for being a plugin. The
kernel dispatches to it; Crossroads' game class derives from it; the additive plugins
(New Encounters, the variants) reach its state through its methods. Loaded only by the
``tokaido_fast_rules`` hook (:mod:`tokaido_base.plugin`), never by the reference engine.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from operator import itemgetter
from typing import Any, Final

from tokaido_rules import Action, Ruleset
from tokaido_rules.fast import (
    D_MOVE,
    DECISION,
    FROM_COLLECTION,
    FROM_GAME,
    FROM_PIECES,
    FROM_SUPPLY,
    FastGame,
    FastRules,
    FastTables,
    Step,
    ViewTables,
    draw_below,
    shuffle,
)

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""

_SOUVENIRS: Final = "base.souvenirs"
_MEALS: Final = "base.meals"
_HOT_SPRINGS: Final = "base.hot_springs"
_ENCOUNTERS: Final = "base.encounters"
_ORDER_MEALS: Final = "order.base.meals"
_ORDER_SOUVENIRS: Final = "order.base.souvenirs"
_DISCARD: Final = "discard.base.inn_hand"
"""The purposes of the base game's chance in play (the reference's chance kinds)."""
_PANORAMA_KINDS = ("mountain", "paddy", "sea")
"""The panorama types, in sorted order (the order of ``base.choose_panorama``)."""
_EFFECTS = ("shokunin", "samurai", "kuge", "miko", "annaibito")
_TRAVELLERS = ("chuubei", "hiroshige", "hirotada", "kinko", "mitsukuni", "sasayakko",
               "satsuki", "umegae", "yoshiyasu", "zenemon")
_CATEGORIES = ("panoramas", "souvenirs", "meals", "hot_springs", "encounters",
               "temple_donations", "temple_ranking", "achievements", "traveller_powers")
_END_ACHIEVEMENTS = ("gourmet", "collector", "bather", "chatterbox")
CHOOSE, BUY, DONATE, BANK_COIN, KEEP, PANORAMA, SATSUKI, MEAL = _ACTION_TYPES = (
    "base.choose_traveller", "base.buy_souvenirs", "base.donate", "base.add_bank_coin",
    "base.keep_encounter", "base.choose_panorama", "base.satsuki_meal", "base.buy_meal")

# Space kinds (the board as small integers).
S_INN: Final = 0
S_VILLAGE: Final = 1
S_TEMPLE: Final = 2
S_ENCOUNTER: Final = 3
S_FARM: Final = 4
S_HOT: Final = 5
S_PANO: Final = 6
_SPACES = {"inn": S_INN, "village": S_VILLAGE, "temple": S_TEMPLE, "encounter": S_ENCOUNTER,
           "farm": S_FARM, "hot_spring": S_HOT, "mountain": S_PANO, "paddy": S_PANO,
           "sea": S_PANO}
# Card kinds.
C_SOUVENIR: Final = 0
C_MEAL: Final = 1
C_PANORAMA: Final = 2
C_HOT: Final = 3
C_ENCOUNTER: Final = 4
C_ACHIEVEMENT: Final = 5
_CARD_KINDS = {"souvenir": C_SOUVENIR, "meal": C_MEAL, "panorama": C_PANORAMA,
               "hot_spring": C_HOT, "encounter": C_ENCOUNTER, "achievement": C_ACHIEVEMENT}
# Score categories, in the order of _CATEGORIES.
P_PANO: Final = 0
P_SOUV: Final = 1
P_MEAL: Final = 2
P_HOT: Final = 3
P_ENC: Final = 4
P_DON: Final = 5
P_RANK: Final = 6
P_ACH: Final = 7
P_POWER: Final = 8
# Traveller powers.
T_CHUUBEI: Final = 0
T_HIROSHIGE: Final = 1
T_HIROTADA: Final = 2
T_KINKO: Final = 3
T_MITSUKUNI: Final = 4
T_SASAYAKKO: Final = 5
T_SATSUKI: Final = 6
T_UMEGAE: Final = 7
T_YOSHIYASU: Final = 8
T_ZENEMON: Final = 9

# Step kinds: the base game's run steps from 2 (0 and 1 are the core's), its decisions
# after the core's move.
K_FARM: Final = 2
K_PANO: Final = 3
K_HOT: Final = 4
K_VILLAGE: Final = 5
K_VILLAGE_END: Final = 6
K_ENCOUNTER: Final = 7
K_UMEGAE: Final = 8
K_HIROTADA: Final = 9
K_NTEMPLE: Final = 10
K_SHOKUNIN: Final = 11
K_SAMURAI: Final = 12
K_KUGE: Final = 13
K_MIKO: Final = 14
K_ANNAIBITO: Final = 15
K_HIROSHIGE: Final = 16
K_CHUUBEI: Final = 17
K_SATSUKI_DRAW: Final = 18
K_INN_HAND: Final = 19
K_NDISCARD: Final = 20
K_INN_CLOSE: Final = 21
K_END_ACH: Final = 22
K_END_TEMPLE: Final = 23
D_CHOOSE: Final = DECISION + 1
D_BUY: Final = DECISION + 1 + 1
D_TEMPLE: Final = DECISION + 1 + 2
D_BANK: Final = DECISION + 1 + 3
D_KEEP: Final = DECISION + 1 + 4
D_PANO: Final = DECISION + 1 + 5
D_SATSUKI: Final = DECISION + 1 + 6
D_MEAL: Final = DECISION + 1 + 7
_EFFECT_KINDS = {"base.effect." + name: K_SHOKUNIN + i for i, name in enumerate(_EFFECTS)}
_KINDS: dict[int, str] = {
    K_FARM: "base.farm", K_PANO: "base.panorama", K_HOT: "base.hot_spring",
    K_VILLAGE: "base.village", K_VILLAGE_END: "base.village_end",
    K_ENCOUNTER: "base.encounter", K_UMEGAE: "base.umegae", K_HIROTADA: "base.hirotada",
    K_NTEMPLE: "base.neutral_temple", K_HIROSHIGE: "base.hiroshige", K_CHUUBEI: "base.chuubei",
    K_SATSUKI_DRAW: "base.satsuki_draw", K_INN_HAND: "base.inn_hand",
    K_NDISCARD: "base.neutral_discard", K_INN_CLOSE: "base.inn_close",
    K_END_ACH: "base.end_achievements", K_END_TEMPLE: "base.end_temple",
    **{kind: name for name, kind in _EFFECT_KINDS.items()},
    D_CHOOSE: "base.choose_traveller", D_BUY: "base.buy_souvenirs", D_TEMPLE: "base.temple",
    D_BANK: "base.bank_coin", D_KEEP: "base.keep_encounter", D_PANO: "base.choose_panorama",
    D_SATSUKI: "base.satsuki_meal", D_MEAL: "base.meal"}
"""The reference's step kind of every step kind of the base game."""

_Plan = tuple[tuple[Callable[[tuple[int, ...]], tuple[int, ...]], int], ...]
"""The purchases of a village offer (:meth:`BaseTables.plan`)."""

_VILLAGE_END: Step = (K_VILLAGE_END, -1, None, 0)
_END_STEPS: list[Step] = [(K_END_ACH, -1, None, 0), (K_END_TEMPLE, -1, None, 0)]
_OPTIONS: dict[str, tuple[object, ...]] = {
    "base.meal_hand": ("players_plus_one", "players"),
    "base.hirotada_bank_coin": ("choice", "auto"),
    "base.zenemon_discount": ("choice", "most_expensive"),
    "base.panorama_choice_optional": (False, True),
}
"""Every option of the base game, with the values its fast rules implement."""


def _picker(positions: tuple[int, ...]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    if not positions:
        return lambda offer: ()
    if len(positions) == 1:
        only = positions[0]
        return lambda offer: (offer[only],)
    return itemgetter(*positions)  # a tuple of 2 or more


_PICK = {positions: _picker(positions) for r in range(4)
         for positions in combinations(range(3), r)}
"""What takes the cards at some positions of a village offer (of up to 3 cards)."""


def _temple_ranking(donations: list[int]) -> list[int]:
    distinct = sorted({d for d in donations if d > 0}, reverse=True)
    points = {amount: (10, 7, 4)[i] if i < 3 else 2 for i, amount in enumerate(distinct)}
    return [points.get(d, 0) for d in donations]


def _plus(counts: list[int], piece: int, more: int) -> list[int]:
    """A copy of ``counts`` (a count per traveller) with ``more`` added at ``piece``:
    how a count changes, the lists of counts being shared by copies of a game."""
    changed = counts[:]
    changed[piece] += more
    return changed


def _without(cards: list[int], card: int) -> list[int]:
    """A copy of ``cards`` without the first ``card`` (which it holds): how a card
    leaves a deck, an offer or a hand, whose lists copies of a game share."""
    rest = cards[:]
    rest.remove(card)
    return rest


class BaseTables(FastTables):
    """The base game's facts of a ruleset for one player count (beside the kernel's)."""

    def __init__(self, ruleset: Ruleset, players: int, rules: list[tuple[str, FastRules]],
                 game_class: type[FastGame]) -> None:
        FastTables.__init__(self, ruleset, players, rules, game_class)
        reg = ruleset.registry
        self.actions: dict[str, Any] = {name: reg.events[name] for name in _ACTION_TYPES}
        """The base plugin's action classes, by wire name (the registry holds them)."""
        names = self.names
        cards = [reg.cards[n] for n in names]
        self.collector = [1 if "collector" in c.tags else 0 for c in cards]
        self.bather = [1 if "bather" in c.tags else 0 for c in cards]
        self.chatterbox = [1 if "chatterbox" in c.tags else 0 for c in cards]
        self.gourmet = [c.price if "gourmet" in c.tags else 0 for c in cards]
        # panoramas: the sections of each type, and the type an Annaibito shows
        self.sections = [0] * len(_PANORAMA_KINDS)
        self.section_card: list[list[int]] = [[-1] for _ in _PANORAMA_KINDS]
        self.shows = [-1] * len(cards)
        for i, c in enumerate(cards):
            if c.kind == "panorama":
                k = _PANORAMA_KINDS.index(c.id.rsplit(".", 1)[0])
                self.sections[k] += 1
            elif c.effect == "base.effect.annaibito":
                self.shows[i] = _PANORAMA_KINDS.index(c.id.split(".")[1])
        for k, kind in enumerate(_PANORAMA_KINDS):
            self.section_card[k] = [-1] + [self.code[f"{kind}.{n}"]
                                           for n in range(1, self.sections[k] + 1)]
        self.achievement = {name: self.code[f"achievement.{name}"]
                            for name in (*_PANORAMA_KINDS, *_END_ACHIEVEMENTS)}
        self.pano_achievement = [self.achievement[k] for k in _PANORAMA_KINDS]
        self.space_pano = [_PANORAMA_KINDS.index(s.kind) if s.kind in _PANORAMA_KINDS else -1
                           for s in reg.board]
        self.decks_kept = [self.deck_index[zone] for zone in
                           (_SOUVENIRS, _MEALS, _HOT_SPRINGS, _ENCOUNTERS)]
        """Where the four shuffled decks the base game keeps are among the decks."""
        options = ruleset.options
        self.hand_size = players + (1 if options["base.meal_hand"] == "players_plus_one" else 0)
        self.hirotada_auto = options["base.hirotada_bank_coin"] == "auto"
        self.zenemon_dearest = options["base.zenemon_discount"] == "most_expensive"
        self.panorama_optional = bool(options["base.panorama_choice_optional"])
        # the action objects handed out, made once each
        seats = range(players)
        meal_type = self.actions[MEAL]
        self.meals = [[meal_type(seat, seat, name) for name in names]
                      + [meal_type(seat, seat, None)] for seat in seats]
        """Per seat, the meal decision for each card (only meals are offered), then no
        meal (the seated travellers are the pieces numbered as their seats)."""
        self.kinko_price = [max(0, p - 1) for p in self.price]
        donate = self.actions[DONATE]
        self.donations = [[tuple(donate(seat, seat, amount) for amount in range(1, most + 1))
                           for most in range(4)] for seat in seats]
        self.plans: dict[tuple[Any, ...], _Plan] = {}
        self.every_plan: dict[tuple[Any, ...], tuple[tuple[Any, int, int], ...]] = {}
        self.purchases: list[dict[tuple[tuple[int, ...], int], Action]] = [
            {} for _ in range(players)]
        """Per seat, the purchase actions made, by cards and Zen-emon's discounted card
        (-1: none)."""

    def game_end_steps(self) -> list[Step]:
        return list(_END_STEPS)

    def stop_check(self, position: int) -> int:
        space = self.space[position]
        return (1 if space in (S_TEMPLE, S_VILLAGE) else
                2 + self.space_pano[position] if space == S_PANO else 0)

    def stop_steps(self, piece: int, seat: int | None, power: int,
                   position: int) -> list[Step]:
        """What a stop of ``piece`` at ``position`` schedules by the base rules
        (``tokaido_arrival_steps``, in their order)."""
        new: list[Step] = []
        space = self.space[position]
        if space == S_INN:
            if seat is None:
                new += ((K_INN_HAND, piece, None, 0), (K_NDISCARD, piece, None, 0),
                        (K_INN_CLOSE, piece, None, 0))
            else:
                if position != self.end:
                    if power == T_HIROSHIGE:
                        new.append((K_HIROSHIGE, piece, seat, 0))
                    elif power == T_CHUUBEI:
                        new.append((K_CHUUBEI, piece, seat, 0))
                if power == T_SATSUKI:
                    new.append((K_SATSUKI_DRAW, piece, seat, 0))
                new += ((K_INN_HAND, piece, None, 0), (D_MEAL, piece, seat, 0),
                        (K_INN_CLOSE, piece, None, 0))
        elif seat is None:
            if space == S_TEMPLE:
                new.append((K_NTEMPLE, piece, None, 0))
        elif space == S_ENCOUNTER:
            if power == T_UMEGAE:
                new.append((K_UMEGAE, piece, seat, 0))
            new.append((K_ENCOUNTER, piece, seat, 0))
        elif space == S_TEMPLE:
            new.append((D_TEMPLE, piece, seat, 0))
            if power == T_HIROTADA and not self.hirotada_auto:
                new.append((K_HIROTADA, piece, seat, 0))
        else:
            new.append(({S_PANO: K_PANO, S_VILLAGE: K_VILLAGE, S_FARM: K_FARM,
                         S_HOT: K_HOT}[space], piece, seat, 0))
        return new

    def plan(self, buyer: int, prices: tuple[int, ...], ranks: tuple[int, ...],
             coins: int) -> _Plan:
        """The affordable purchases of an offer whose cards cost ``prices`` and sort in
        the order ``ranks`` (by card id), for a buyer (1 Sasayakko, 2 Zen-emon, 0 anyone
        else) with ``coins``: per purchase, what picks its cards from the offer and the
        position of the card Zen-emon pays 1 coin for (-1: none); in the order of
        ``legal_buy_souvenirs``. Made once per key, from :meth:`purchases_of`."""
        every = self.every_plan.get((buyer, prices, ranks))
        if every is None:
            every = self.purchases_of(buyer, prices, ranks)
        found = self.plans[buyer, prices, ranks, coins] = tuple(
            (pick, d) for pick, d, needed in every if needed <= coins)
        return found

    def purchases_of(self, buyer: int, prices: tuple[int, ...],
                     ranks: tuple[int, ...]) -> tuple[tuple[Any, int, int], ...]:
        """Every purchase of such an offer, affordable or not, in order, with the coins it
        needs (the ways to pay are ``tv.souvenir_prices``)."""
        options: dict[tuple[tuple[int, ...], int], int] = {}
        for r in range(len(prices) + 1):
            for combo in combinations(range(len(prices)), r):
                paid = [prices[i] for i in combo]
                cost = sum(paid)
                ways: list[tuple[int, int]]  # (discounted position, needed)
                if buyer == 1 and len(paid) >= 2:
                    ways = [(-1, cost)]
                elif buyer == 2 and paid:
                    if self.zenemon_dearest:
                        i = max(range(len(paid)), key=lambda k: (paid[k], -k))
                        ways = [(combo[i], cost - paid[i] + 1)]
                    else:  # the offer holds distinct cards: one way per card
                        ways = [(c, cost - paid[i] + 1) for i, c in enumerate(combo)]
                else:
                    ways = [(-1, cost)]
                for discount, needed in ways:
                    options.setdefault((combo, discount), needed)
        ordered = sorted(options, key=lambda o: (tuple(ranks[i] for i in o[0]), o[1] >= 0,
                                                 -1 if o[1] < 0 else ranks[o[1]]))
        found = self.every_plan[buyer, prices, ranks] = tuple(
            (_PICK[positions], d, options[positions, d]) for positions, d in ordered)
        return found

    def purchase(self, seat: int, piece: int, cards: tuple[int, ...], discount: int) -> Action:
        """The action buying ``cards`` (Zen-emon's 1-coin card ``discount``, -1: none),
        made once."""
        names = self.names
        found: Action = self.actions[BUY](
            seat, piece, tuple(names[c] for c in cards), None if discount < 0 else names[discount])
        self.purchases[seat][cards, discount] = found
        return found


class BaseGame(FastGame):
    """The base game on the fast simulator: the kernel's flat state plus the base
    game's (the decks it draws from, the village offer and the inn's hand, each
    traveller's collection counts, donations and meals), and its rules as if-chains
    over its step kinds; a kind it does not know goes to the kernel (an additive
    plugin's, or a derived game class's first)."""

    __slots__ = (
        "B",
        "ate",
        "awarded",
        "don",
        "drawn",
        "eaten",
        "encounters",
        "fam",
        "from_deck",
        "gourmet",
        "hand",
        "meals",
        "nach",
        "nbath",
        "nchat",
        "ncol",
        "offer",
        "offers",
        "sect",
        "souvenirs",
        "springs",
    )

    B: BaseTables
    """The tables, as the base game's (the same object as ``T``)."""
    from_deck: list[int]
    """Per traveller, the meals gained straight from the meal deck (no inn meals). This
    list and the other counts per traveller (``don``, ``eaten``, ``gourmet``, ``ncol``,
    ``nbath``, ``nchat``, ``nach``, ``ate``) and ``awarded`` are shared by copies of the
    game: replaced by a changed copy (:func:`_plus`), never changed in place."""
    sect: list[list[int]]
    fam: list[list[int]]
    drawn: list[list[int]]
    """Per traveller, its panorama sections, its souvenirs by family and the cards it
    drew privately: each traveller's row is replaced by a changed copy, never changed in
    place (a game class deriving from this one too), so that copies share the rows and
    :meth:`clone` copies only the lists of rows."""
    souvenirs: list[int]
    meals: list[int]
    springs: list[int]
    encounters: list[int]
    offer: list[int]
    hand: list[int]
    """The four decks (top first), the village offer and the inn's meal hand: shared by
    copies of the game, so replaced by a changed copy, never changed in place (a card
    drawn: ``deck[1:]``; one leaving: :func:`_without`; cards under a deck:
    :meth:`_return_to_bottom`), by every game class and additive plugin."""

    def _deal(self, decks: list[list[int]]) -> None:
        T = self.T
        assert isinstance(T, BaseTables)
        self.B = T
        n = T.pieces
        self._blank_counts(T)
        self.offer = []
        self.hand = []
        self.drawn = [[] for _ in range(n)]
        self.offers: list[tuple[int, ...]] = []
        kept = T.decks_kept
        self.souvenirs = decks[kept[0]]
        self.meals = decks[kept[1]]
        self.springs = decks[kept[2]]
        self.encounters = decks[kept[3]]

    def _blank_counts(self, T: BaseTables) -> None:
        """Per traveller, nothing yet: donations, panorama sections, souvenir families,
        meals eaten (and those from the deck), the achievements' counts, where it ate;
        no panorama achievement awarded (the deal's state, and a loaded state's before
        its collections are counted)."""
        n = T.pieces
        self.don = [0] * n
        self.sect = [[0] * len(_PANORAMA_KINDS) for _ in range(n)]
        self.fam = [[0] * T.families for _ in range(n)]
        self.eaten = [0] * n
        self.from_deck = [0] * n
        self.gourmet = [0] * n
        self.ncol = [0] * n
        self.nbath = [0] * n
        self.nchat = [0] * n
        self.nach = [0] * n
        self.ate = [-1] * n
        self.awarded = [False] * len(_PANORAMA_KINDS)

    def _setup_steps(self) -> list[Step]:
        """The traveller offer: two travellers drawn for each seat, each seat's choice."""
        T = self.T
        if not T.offers_travellers:
            return []
        pool = list(range(len(T.traveller_names)))
        for seat in range(T.players):
            stream = self._chance(f"travellers.{seat}")
            first = pool[draw_below(stream, 0, len(pool))]
            rest = [t for t in pool if t != first]
            offer = (first, rest[draw_below(stream, 1, len(rest))])
            self.offers.append(offer)
            self.seq += 1
            pool = [t for t in pool if t not in offer]
        return [(D_CHOOSE, seat, seat, 0) for seat in range(T.players)]

    def _tiebreak(self, piece: int) -> int:
        return self.nach[piece]

    def _lone(self, step: Step) -> bool:
        """A lone meal answer (no meal) is taken alone where every seat sees the hand
        (the only base decision of automatic code 2)."""
        at = self._hand_inn()
        if at < 0:
            return False
        pos = self.pos
        return all(pos[i] == at for i in range(self.T.players))

    def clone(self) -> FastGame:
        new = FastGame.clone(self)  # of this game's class: clone makes the type of its game
        assert isinstance(new, BaseGame)
        new.B = self.B
        new.don = self.don  # the counts: shared, replaced by changed copies (_plus)
        new.sect = self.sect[:]  # per traveller, rows shared: replaced, never changed
        new.fam = self.fam[:]
        new.eaten = self.eaten
        new.from_deck = self.from_deck
        new.gourmet = self.gourmet
        new.ncol = self.ncol
        new.nbath = self.nbath
        new.nchat = self.nchat
        new.nach = self.nach
        new.ate = self.ate
        new.awarded = self.awarded
        new.souvenirs = self.souvenirs  # the decks, offer and hand: shared, replaced
        new.meals = self.meals  # by changed copies, never changed in place
        new.springs = self.springs
        new.encounters = self.encounters
        new.offer = self.offer
        new.hand = self.hand
        new.drawn = self.drawn[:]
        new.offers = self.offers
        return new

    def _hand_inn(self) -> int:
        """The inn whose meal hand is out: the furthest inn reached (-1: none)."""
        space = self.T.space
        furthest = -1
        for p in self.pos:
            if p and space[p] == S_INN and p > furthest:
                furthest = p
        return furthest

    def _hand_seen_by_all(self) -> bool:
        at = self._hand_inn()
        if at < 0:
            return False
        pos = self.pos
        return all(pos[i] == at for i in range(self.T.players))

    # --- legal actions -------------------------------------------------------------------
    def _legal_for(self, step: Step) -> tuple[Action, ...]:
        kind, piece, seat, data = step
        T = self.B
        assert seat is not None
        if kind == D_MOVE:
            return self._moves(piece, seat)
        if kind == D_MEAL:
            hand = self.hand
            if not hand or self.ate[piece] == self.pos[piece]:
                return ()
            coins = self.coins[piece]
            eaten = self.eaten[piece]
            cost = T.kinko_price if T.power[self.trav[piece]] == T_KINKO else T.price
            meals = T.meals[seat]
            out = [meals[-1]]  # no meal
            for meal in sorted(set(hand)):
                if cost[meal] <= coins and not eaten >> meal & 1:
                    out.append(meals[meal])
            return tuple(out)
        if kind == D_BUY:
            return self._purchases(piece, seat)
        if kind == D_TEMPLE:
            return T.donations[seat][min(3, self.coins[piece])]
        if kind == D_PANO:
            sect = self.sect[piece]
            sections = T.sections
            out = [T.action(PANORAMA, seat, piece, name)
                   for k, name in enumerate(_PANORAMA_KINDS)
                   if data >> k & 1 and sect[k] < sections[k]]
            if out and T.panorama_optional:
                out.insert(0, T.action(PANORAMA, seat, piece, None))
            return tuple(out)
        if kind == D_BANK:
            return (T.action(BANK_COIN, seat, piece, False),
                    T.action(BANK_COIN, seat, piece, True))
        if kind == D_KEEP:
            return tuple(T.action(KEEP, seat, piece, T.names[c])
                         for c in sorted(set(self.drawn[piece])))
        if kind == D_SATSUKI:
            keep = not all(self.eaten[piece] >> c & 1 for c in self.drawn[piece])
            if keep:
                return (T.action(SATSUKI, seat, piece, False),
                        T.action(SATSUKI, seat, piece, True))
            return (T.action(SATSUKI, seat, piece, False),)
        if kind == D_CHOOSE:
            return tuple(T.action(CHOOSE, seat, T.traveller_names[t])
                         for t in sorted(self.offers[seat]))
        return self._legal_more(step)

    def _purchases(self, piece: int, seat: int) -> tuple[Action, ...]:
        """Every affordable purchase at a village, "buy nothing" first (in the order of
        ``legal_buy_souvenirs``)."""
        T = self.B
        offer = tuple(self.offer)
        price = T.price
        prices = tuple([price[c] for c in offer])
        power = T.power[self.trav[piece]]
        buyer = 1 if power == T_SASAYAKKO else 2 if power == T_ZENEMON else 0
        ranked = sorted(offer)
        key = (buyer, prices, tuple([ranked.index(c) for c in offer]),
               min(self.coins[piece], sum(prices)))
        plan = T.plans.get(key)
        if plan is None:
            plan = T.plan(*key)
        made = T.purchases[seat]
        actions = []
        named: tuple[str, ...] | None = None
        for pick, d in plan:
            cards = pick(offer)
            discount = offer[d] if d >= 0 else -1
            if len(cards) < 3:  # few: each made once
                found = made.get((cards, discount))
                if found is None:
                    found = T.purchase(seat, piece, cards, discount)
            else:  # the whole offer in its order: rarely seen again, so made afresh
                if named is None:
                    names = T.names
                    named = (names[offer[0]], names[offer[1]], names[offer[2]])
                found = T.actions[BUY](seat, piece, named,
                                       None if discount < 0 else T.names[discount])
            actions.append(found)
        return tuple(actions)

    # --- consequences of decisions ------------------------------------------------------
    def _resolve(self, step: Step, action: Any, index: int, new: list[Step]) -> None:
        """Carry out ``action`` (one of the base plugin's action types, read by its
        fields), the answer to ``step``; steps it schedules go to ``new``."""
        kind, piece, seat, _ = step
        if kind == D_MOVE:
            self._move(piece, action.position, action.slot, new)
        elif kind == D_MEAL:
            meal = action.meal
            if meal is not None:
                T = self.B
                code = T.code[meal]
                cost = T.price[code]
                if cost and T.power[self.trav[piece]] == T_KINKO:
                    cost -= 1
                if cost:
                    self.coins[piece] -= cost
                    self.seq += 1
                self.hand = _without(self.hand, code)
                self._eat(piece, code)
        elif kind == D_BUY:  # what the purchase costs (``_purchase_cost``)
            T = self.B
            codes = T.code
            cards = [codes[name] for name in action.cards]
            prices = [T.price[c] for c in cards]
            cost = sum(prices)
            discount = action.discount
            if discount is not None:
                cost -= T.price[codes[discount]] - 1
            elif len(prices) >= 2 and T.power[self.trav[piece]] == T_SASAYAKKO:
                cost -= min(prices)
            if cost:
                self.coins[piece] -= cost
                self.seq += 1
            offer = self.offer = self.offer[:]  # its own copy: the list is shared
            for card in cards:
                offer.remove(card)
                self._gain_souvenir(piece, card)
        elif kind == D_TEMPLE:
            amount = action.amount
            self.coins[piece] -= amount
            self.don = _plus(self.don, piece, amount)
            self._add_points(piece, P_DON, amount)
            self.seq += 3
            if self.B.hirotada_auto and self.T.power[self.trav[piece]] == T_HIROTADA:
                self._bank_coin(piece)
        elif kind == D_PANO:
            panorama = action.panorama
            if panorama is not None:
                self._take_panorama(piece, _PANORAMA_KINDS.index(panorama))
        elif kind == D_BANK:
            if action.add:
                self._bank_coin(piece)
        elif kind == D_KEEP:
            code = self.T.code[action.card]
            others = self.drawn[piece][:]  # the row is shared with copies
            self.drawn[piece] = []
            others.remove(code)
            self._gain(piece, code, -1, 0)
            self.encounters = self.encounters + others
            self.seq += 1
            new.append((self.T.effect[code], piece, seat, code))
        elif kind == D_SATSUKI:
            card = self.drawn[piece][0]
            self.drawn[piece] = []
            if action.keep:
                self._eat(piece, card)
            else:
                self.meals = [*self.meals, card]
                self.seq += 1
        elif kind == D_CHOOSE:
            self._set_traveller(piece, self.T.traveller_index[action.traveller])
        else:
            self._resolve_more(step, action, new)

    # --- shared effects (the seams other plugins' fast rules use) -------------------------
    def _gain(self, piece: int, card: int, category: int, points: int) -> None:
        """A card into the collection (an event), its own points (an event), what it
        counts for, and Mitsukuni's bonus point (``tokaido_card_gained``)."""
        T = self.B
        self.seq += 1
        if points:
            self._add_points(piece, category, points)
            self.seq += 1
        kind = T.kind[card]
        if kind == C_SOUVENIR:
            self._count_family(piece, T.family[card])
        elif kind == C_MEAL:
            eaten = self.eaten[:]  # shared by copies: replaced
            eaten[piece] |= 1 << card
            self.eaten = eaten
        elif kind == C_ACHIEVEMENT:
            self.nach = _plus(self.nach, piece, 1)
        if T.collector[card]:
            self.ncol = _plus(self.ncol, piece, T.collector[card])
        if T.chatterbox[card]:
            self.nchat = _plus(self.nchat, piece, T.chatterbox[card])
        if T.gourmet[card]:
            self.gourmet = _plus(self.gourmet, piece, T.gourmet[card])
        bather = T.bather[card]
        if bather:
            self.nbath = _plus(self.nbath, piece, bather)
        if (bather or kind == C_ACHIEVEMENT) and T.power[self.trav[piece]] == T_MITSUKUNI:
            self._add_points(piece, P_POWER, 1)
            self.seq += 1
        if self.hooked:
            self._recorded_gain(piece, card, category if points else -1)

    def _count_family(self, piece: int, family: int) -> None:
        """One more souvenir of ``family`` for ``piece``: its row of :attr:`fam`
        replaced by a changed copy (rows are shared with copies of the game)."""
        row = self.fam[piece][:]
        row[family] += 1
        self.fam[piece] = row

    def _gain_from_deck(self, piece: int, card: int, category: int, points: int) -> None:
        """A card gained straight from its deck (the ``source`` of ``tokaido_card_gained``
        is the deck): a meal so gained is no inn meal (:attr:`from_deck`). A game class
        whose rules tell the two apart overrides it."""
        if self.T.kind[card] == C_MEAL:
            self.from_deck = _plus(self.from_deck, piece, 1)
        self._gain(piece, card, category, points)

    def _gain_souvenir(self, piece: int, card: int) -> None:
        counts = self.fam[piece]
        held = counts[self.B.family[card]]
        self._gain(piece, card, P_SOUV, 2 * sum(1 for n in counts if n > held) + 1)

    def _eat(self, piece: int, card: int) -> None:
        self._gain(piece, card, P_MEAL, self.T.points[card])
        ate = self.ate[:]  # shared by copies: replaced
        ate[piece] = self.pos[piece]
        self.ate = ate
        self.seq += 2  # the inn meal counter, the data of where it was eaten

    def _bank_coin(self, piece: int) -> None:
        self.don = _plus(self.don, piece, 1)
        self._add_points(piece, P_DON, 1)
        self.seq += 2

    def _panorama_open(self, piece: int, k: int) -> bool:
        """Whether panorama ``k`` has a section left for ``piece``."""
        return self.sect[piece][k] < self.B.sections[k]

    def _take_panorama(self, piece: int, k: int) -> None:
        T = self.B
        n = self.sect[piece][k] + 1
        if n > T.sections[k]:
            return
        row = self.sect[piece][:]  # rows are shared with copies: replaced, not changed
        row[k] = n
        self.sect[piece] = row
        self._gain(piece, T.section_card[k][n], P_PANO, n)
        if n == T.sections[k]:
            self.done[piece] |= 1 << k
            if not self.awarded[k]:
                awarded = self.awarded[:]  # shared by copies: replaced
                awarded[k] = True
                self.awarded = awarded
                self._award(piece, T.pano_achievement[k])

    def _award(self, piece: int, card: int) -> None:
        self._gain(piece, card, P_ACH, self.T.points[card])

    def _choose_panorama(self, piece: int, seat: int | None, new: list[Step]) -> None:
        sect = self.sect[piece]
        sections = self.B.sections
        still = 0
        for k in range(len(_PANORAMA_KINDS)):
            if sect[k] < sections[k]:
                still |= 1 << k
        if still:
            new.append((D_PANO, piece, seat, still))

    def _draw_encounter(self, piece: int, seat: int | None, two: bool,
                        new: list[Step]) -> None:
        deck = self.encounters
        if not deck:
            return
        self.seq += 1
        if two and len(deck) >= 2:
            self.drawn[piece] = deck[:2]
            self.encounters = deck[2:]
            new.append((D_KEEP, piece, seat, 0))
            return
        card = deck[0]
        self.encounters = deck[1:]
        self.seq -= 1
        self._gain(piece, card, -1, 0)
        new.append((self.T.effect[card], piece, seat, card))

    def _draw_souvenir(self) -> int:
        """The souvenir on top of its deck, drawn (the deck not empty): the deck
        replaced by the rest, as every deck is (copies of the game share them)."""
        deck = self.souvenirs
        self.souvenirs = deck[1:]
        return deck[0]

    def _return_to_bottom(self, cards: list[int], deck: list[int], purpose: str) -> list[int]:
        """The deck with ``cards`` under it, two or more in a random order
        (``return_to_bottom``; ``purpose``: its chance kind, ``order.<deck>``): a new
        list, the deck's being shared with copies of the game."""
        if len(cards) > 1:
            shuffle(cards, self._chance(purpose), 0)
        self.seq += 1
        return deck + cards

    # --- the steps the engine runs ----------------------------------------------------------
    def _run_step(self, step: Step, new: list[Step]) -> None:
        kind, piece, seat, data = step
        T = self.B
        if kind == K_INN_HAND:
            if self.slot[piece] == 0:
                meals = self.meals
                take = meals[:T.hand_size]
                if take:
                    self.meals = meals[T.hand_size:]
                    self.hand = self.hand + take
                    self.seq += 1
        elif kind == K_INN_CLOSE:
            here = self.pos[piece]
            if self.hand and self.pos.count(here) == len(self.pos):
                hand = self.hand
                self.hand = []
                self.meals = self._return_to_bottom(hand, self.meals, _ORDER_MEALS)
        elif kind == K_FARM:
            self.coins[piece] += 3
            self.seq += 1
        elif kind == K_PANO:
            self._take_panorama(piece, T.space_pano[self.pos[piece]])
        elif kind == K_HOT:
            springs = self.springs
            if springs:
                card = springs[0]
                self.springs = springs[1:]
                self._gain(piece, card, P_HOT, T.points[card])
        elif kind == K_VILLAGE:
            take = self.souvenirs[:3]
            if take:
                self.souvenirs = self.souvenirs[3:]
                self.offer = self.offer + take
                self.seq += 1
            new += ((D_BUY, piece, seat, 0), _VILLAGE_END)
        elif kind == K_VILLAGE_END:
            if self.offer:
                offer = self.offer
                self.offer = []
                self.souvenirs = self._return_to_bottom(offer, self.souvenirs,
                                                        _ORDER_SOUVENIRS)
        elif kind == K_ENCOUNTER:
            self._draw_encounter(piece, seat,
                                 T.power[self.trav[piece]] == T_YOSHIYASU, new)
        elif kind == K_UMEGAE:
            self._add_points(piece, P_POWER, 1)
            self.coins[piece] += 1
            self.seq += 2
        elif kind == K_HIROTADA:
            new.append((D_BANK, piece, seat, 0))
        elif kind == K_NTEMPLE:
            self.don = _plus(self.don, piece, 1)
            self.seq += 1
        elif kind == K_SHOKUNIN:
            if self.souvenirs:
                self._gain_souvenir(piece, self._draw_souvenir())
        elif kind == K_SAMURAI:
            self._add_points(piece, P_ENC, 3)
            self.seq += 1
        elif kind == K_KUGE:
            self.coins[piece] += 3
            self.seq += 1
        elif kind == K_MIKO:
            self.don = _plus(self.don, piece, 1)
            self._add_points(piece, P_DON, 1)
            self.seq += 2
        elif kind == K_ANNAIBITO:
            k = T.shows[data]
            if self.sect[piece][k] < T.sections[k]:
                self._take_panorama(piece, k)
            else:
                self._choose_panorama(piece, seat, new)
        elif kind == K_HIROSHIGE:
            self._choose_panorama(piece, seat, new)
        elif kind == K_CHUUBEI:
            self._draw_encounter(piece, seat, False, new)
        elif kind == K_SATSUKI_DRAW:
            meals = self.meals
            if meals:
                self.drawn[piece] = [meals[0]]
                self.meals = meals[1:]
                self.seq += 1
                new.append((D_SATSUKI, piece, seat, 0))
        elif kind == K_NDISCARD:
            hand = self.hand
            if hand:
                card = hand[draw_below(self._chance(_DISCARD), 0, len(hand))]
                self.hand = _without(hand, card)
                self.meals = [*self.meals, card]
                self.seq += 1
        elif kind == K_END_ACH:
            self._end_achievements()
        elif kind == K_END_TEMPLE:
            points = _temple_ranking(self.don)
            for i in range(T.players):
                if points[i]:
                    self._add_points(i, P_RANK, points[i])
                    self.seq += 1
        else:
            self._run_more(step, new)

    def _end_achievements(self) -> None:
        """Gourmet, Collector, Bather, Chatterbox: to every traveller with the highest
        count (not 0)."""
        T = self.B
        seated = range(T.players)
        for name, values in zip(_END_ACHIEVEMENTS, (self.gourmet, self.ncol, self.nbath,
                                                    self.nchat), strict=True):
            best = max(values[i] for i in seated)
            if best > 0:
                card = T.achievement[name]
                for i in seated:
                    if values[i] == best:
                        self._award(i, card)

    # --- a game at a given state (tokaido_rules.fast.from_state) ---------------------------
    def _load_state(self, state: Any) -> None:
        """The base game's part of a state: its decks, the village offer, the inn's hand
        and the cards drawn privately from their zones; what it counts of each
        collection (souvenir families, panorama sections, meals, the achievements' tags)
        from the collection; donations and inn meals from the counters (its data:
        :meth:`_load_data`)."""
        T = self.T
        assert isinstance(T, BaseTables)
        self.B = T
        n = T.pieces
        code = T.code
        zones = state.zones

        def cards(zone: str) -> list[int]:
            return [code[c] for c in zones.get(zone, ())]

        self.souvenirs = cards(_SOUVENIRS)
        self.meals = cards(_MEALS)
        self.springs = cards(_HOT_SPRINGS)
        self.encounters = cards(_ENCOUNTERS)
        self.offer = cards(_VILLAGE)
        self.hand = cards(_INN_HAND)
        self.drawn = [cards(f"{_DRAWN}.{i}") for i in range(n)]
        section_of = {c: k for k, row in enumerate(T.section_card) for c in row[1:]}
        kinds = len(_PANORAMA_KINDS)
        self._blank_counts(T)
        pano_achievement = T.pano_achievement
        for i, piece in enumerate(state.pieces):
            for card in cards(f"core.collection.{i}"):
                kind = T.kind[card]
                if kind == C_SOUVENIR:
                    self.fam[i][T.family[card]] += 1
                elif kind == C_MEAL:
                    self.eaten[i] |= 1 << card
                elif kind == C_ACHIEVEMENT:
                    self.nach[i] += 1
                    if card in pano_achievement:
                        self.awarded[pano_achievement.index(card)] = True
                elif kind == C_PANORAMA:
                    self.sect[i][section_of[card]] += 1
                self.ncol[i] += T.collector[card]
                self.nchat[i] += T.chatterbox[card]
                self.gourmet[i] += T.gourmet[card]
                self.nbath[i] += T.bather[card]
            counters = piece.counters
            self.don[i] = counters.get(_DONATION, 0)
            self.from_deck[i] = self.eaten[i].bit_count() - counters.get(_INN_MEALS, 0)
            for k in range(kinds):
                if self.sect[i][k] == T.sections[k]:
                    self.done[i] |= 1 << k

    def _load_data(self, data: Any) -> None:
        """The base game's part of a state's data: where each traveller ate, and the
        travellers offered (a seat whose offer the data does not hold has none, as the
        reference reads it)."""
        T = self.T
        self.ate = [-1] * T.pieces
        for i in range(T.pieces):
            ate = data.get(f"base.meal_at.{i}")
            if ate is not None:
                self.ate[i] = ate
        index = T.traveller_index
        offers = [tuple(index[t] for t in data.get(f"base.offer.{seat}", ()))
                  for seat in range(T.players)]
        self.offers = offers if any(offers) else []

    def _step_data(self, V: ViewTables, kind: int, step: Any) -> int:
        if kind == D_PANO:
            options = step.data["options"]
            return sum(1 << k for k, name in enumerate(_PANORAMA_KINDS) if name in options)
        return FastGame._step_data(self, V, kind, step)

    # --- the direct views (FastGame.view) ----------------------------------------------------
    def _view_sources(self, V: ViewTables) -> None:
        """Where the flat state keeps the decks of the game classes (a derived class adds
        its own, before the decks are laid out)."""
        V.deck_sources.update({zone: (FROM_GAME, attribute)
                               for zone, attribute in _DECK_SOURCES.items()})

    def _fill_view_tables(self, V: ViewTables) -> bool:
        """The base game's zones, data keys and counters: its decks (those the flat state
        keeps, or unshuffled supplies), the village offer, the inn's hand, the cards drawn
        privately, the collections; the travellers offered and where each traveller ate;
        the donations and inn meals. Only for option values the builder knows."""
        from .content import deck_contents
        from .rules import inn_hand_visible

        T = self.T  # (a game not yet dealt, for views_direct: no B yet)
        assert isinstance(T, BaseTables)
        if not all(value in _VIEW_OPTIONS.get(name, (value,))
                   for name, value in T.ruleset.options.items()):
            return False
        self._view_sources(V)
        V.known_zones.update(deck_contents(), (_VILLAGE, _INN_HAND, _DRAWN),
                             V.deck_sources)
        V.known_data.update(_VIEW_DATA)
        V.own_rules[inn_hand_visible] = _inn_hand_seen
        supply_of = [-1] * len(T.names)
        for zone, cards, shuffled in T.decks:
            source = V.deck_sources.get(zone)
            if source is not None:
                V.add_zone(zone, *source)
            elif shuffled:
                return False  # a shuffled deck the flat state does not keep
            else:
                code = V.add_zone(zone, FROM_SUPPLY, len(V.zone_names))
                V.supplies[code] = list(cards)
                for card in cards:
                    if supply_of[card] not in (-1, code):
                        return False  # a card in two supplies
                    supply_of[card] = code
        V.supply_of = supply_of
        V.deck_codes = tuple(range(len(V.zone_names)))
        village = V.add_zone(_VILLAGE, FROM_GAME, "offer")
        hand = V.add_zone(_INN_HAND, FROM_GAME, "hand")
        V.watched = [("offer", village), ("hand", hand)]
        drawn = len(V.zone_names)
        for i in range(T.pieces):
            V.add_zone(f"{_DRAWN}.{i}", FROM_PIECES, ("drawn", i))
        V.watched_pieces = [("drawn", drawn)]
        V.collection = len(V.zone_names)
        for i in range(T.pieces):
            V.add_zone(f"core.collection.{i}", FROM_COLLECTION, i)
        V.add_counter(_DONATION, _donation)
        V.add_counter(_INN_MEALS, _inn_meals)
        for seat in range(T.players):
            V.add_data(f"base.offer.{seat}", _offer, seat, _offered)
        for i in range(T.pieces):
            V.add_data(f"base.meal_at.{i}", _meal_at, i, _has_eaten)
        order: list[int] = []  # the panorama types in the order of the supply (the plugin's)
        for code in V.supplies:
            for card in V.supplies[code]:
                if T.kind[card] == C_PANORAMA:
                    k = _PANORAMA_KINDS.index(T.names[card].rsplit(".", 1)[0])
                    if k not in order:
                        order.append(k)
        if sorted(order) != list(range(len(_PANORAMA_KINDS))):
            return False
        V.extra["options_order"] = tuple(order)
        """The panorama types (their numbers here) in the order the reference lists a
        choice's options."""
        return True

    def _step_values(self, V: ViewTables, step: Step) -> dict[str, Any]:
        if step[0] == D_PANO:
            data = step[3]
            return {"options": tuple(_PANORAMA_KINDS[k] for k in V.extra["options_order"]
                                     if data >> k & 1)}
        return FastGame._step_values(self, V, step)


def _inn_hand_seen(game: FastGame, seat: int | None) -> bool:
    """The inn's meal hand: seen from one's arrival at its inn (``inn_hand_visible``;
    ``None``: by every seat)."""
    assert isinstance(game, BaseGame)
    hand_at = game._hand_inn()
    if hand_at < 0:
        return False
    pos = game.pos
    if seat is None:
        return all(pos[s] == hand_at for s in range(game.T.players))
    return pos[seat] == hand_at


def _donation(game: FastGame, book: Any, piece: int) -> int:
    assert isinstance(game, BaseGame)
    return game.don[piece]


def _inn_meals(game: FastGame, book: Any, piece: int) -> int:
    """The meals eaten at an inn: every meal but those gained straight from the deck."""
    assert isinstance(game, BaseGame)
    return game.eaten[piece].bit_count() - game.from_deck[piece]


def _offer(game: FastGame, book: Any, seat: int) -> tuple[str, ...]:
    assert isinstance(game, BaseGame)
    names = game.T.traveller_names
    return tuple(names[t] for t in game.offers[seat])


def _offered(game: FastGame, seat: int) -> bool:
    assert isinstance(game, BaseGame)
    return len(game.offers) > seat


def _meal_at(game: FastGame, book: Any, piece: int) -> int:
    assert isinstance(game, BaseGame)
    return game.ate[piece]


def _has_eaten(game: FastGame, piece: int) -> bool:
    assert isinstance(game, BaseGame)
    return game.ate[piece] >= 0


_VIEW_OPTIONS: dict[str, tuple[object, ...]] = dict(_OPTIONS)
"""The base options' values the direct views know (all those the fast rules implement)."""
_VIEW_DATA = frozenset({"base.offer.", "base.meal_at."})
"""The data keys (prefixes) the builder knows: the travellers offered, where each ate."""
_DECK_SOURCES = {_SOUVENIRS: "souvenirs", _MEALS: "meals", _HOT_SPRINGS: "springs",
                 _ENCOUNTERS: "encounters"}
"""The shuffled decks, by zone, and the list of the flat state that holds each."""
_VILLAGE: Final = "base.village"
_INN_HAND: Final = "base.inn_hand"
_DRAWN: Final = "base.drawn"
_DONATION: Final = "base.donation"
_INN_MEALS: Final = "base.inn_meals"
"""The counters of a traveller."""


RULES = FastRules(
    game=BaseGame, tables=BaseTables, kinds=_KINDS,
    automatic={D_BUY: 1, D_PANO: 1, D_MEAL: 2},
    effects=dict(_EFFECT_KINDS), card_kinds=_CARD_KINDS, spaces=_SPACES,
    powers={name: i for i, name in enumerate(_TRAVELLERS)},
    categories=_CATEGORIES, options=_OPTIONS, views=True)
"""The base game's fast rules (what its ``tokaido_fast_rules`` returns)."""


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    from tokaido_rules.fast import take_compiled

    take_compiled(globals())
