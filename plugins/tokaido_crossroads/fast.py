"""Crossroads on the fast simulator (:mod:`tokaido_rules.fast`).

Crossroads changes what the base game's steps do (a stop's base action becomes a choice
of options, amulets join any decision, Devotion redirects payments, cards gained score
its bonuses), so it gives a game class, :class:`CrossroadsGame`, derived from the base
game's (:class:`tokaido_base.fast.BaseGame`): the entry points it changes throughout
are its own, so that the base game pays nothing for them. Its rules are those of
:mod:`tokaido_crossroads.rules` and :mod:`tokaido_crossroads.amulets`, written again,
flat. The Crossroads variants (Rare & Precious, Good Luck) reach its state through its
methods (:mod:`tokaido_variants.fast_crossroads`).
"""

from __future__ import annotations

from typing import Any, Final

from tokaido_base.fast import (
    C_MEAL,
    C_SOUVENIR,
    D_BUY,
    D_MEAL,
    D_TEMPLE,
    K_ENCOUNTER,
    K_FARM,
    K_HOT,
    K_PANO,
    K_VILLAGE,
    P_DON,
    P_POWER,
    P_SOUV,
    S_INN,
    S_PANO,
    S_TEMPLE,
    S_VILLAGE,
    T_HIROTADA,
    T_KINKO,
    T_SASAYAKKO,
    BaseGame,
    BaseTables,
    _plus,
    _without,
)
from tokaido_rules import Action, IllegalActionError, Move, Ruleset, StaleActionError
from tokaido_rules.fast import (
    D_MOVE,
    DECISION,
    FROM_PIECES,
    FastGame,
    FastRules,
    Step,
    ViewTables,
    draw_below,
)

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""

_CHERRY_TREES, _BATH_HOUSES, _LEGENDARY, _CALLIGRAPHY, _AMULETS = _CROSS_PILES = (
    "crossroads.cherry_trees", "crossroads.bath_houses", "crossroads.legendary",
    "crossroads.calligraphy", "crossroads.amulets")
_CROSS_TRAVELLERS = ("daigoro", "gotozaemon", "jirocho", "kita", "miyataka", "nampo")
_CROSS_CATEGORIES = ("cherry_trees", "bath_houses", "legendary_objects", "calligraphy")
_SCROLLS = ("shodo", "emaki")
_AMULET_NAMES = ("vitality", "fortune", "health", "friendship", "hospitality", "devotion")
_CALLIGRAPHIES = ("foresight", "contemplation", "nostalgia", "patience", "perfection",
                  "fasting")
_DIE_FACES = (0, 1, 2, 3, 3, 4)
_DIE_PURPOSES = tuple(f"die.crossroads.fortune.{piece}" for piece in range(8))
"""Each traveller's die rolls, a purpose of their own (``DieRolled.chance_purpose``)."""
"""The Fortune die (X counts 0), in the order the reference draws from."""
(OPTION, AMULET, LEGENDARY, CALLIGRAPHY, GAMBLE, VITALITY, FORTUNE, DEVOTION, FRIENDSHIP,
 HOSPITALITY) = _CROSS_ACTION_TYPES = (
    "crossroads.take_option", "crossroads.take_amulet", "crossroads.buy_legendary",
    "crossroads.take_calligraphy", "crossroads.gamble", "crossroads.use_vitality",
    "crossroads.use_fortune", "crossroads.use_devotion", "crossroads.friendship_move",
    "crossroads.hospitality_meal")

C_CHERRY: Final = 6
C_BATH: Final = 7
C_LEGENDARY: Final = 8
C_CALLIGRAPHY: Final = 9
C_AMULET: Final = 10
_CARD_KINDS = {"cherry_tree": C_CHERRY, "bath_house": C_BATH, "legendary": C_LEGENDARY,
               "calligraphy": C_CALLIGRAPHY, "amulet": C_AMULET}
P_CHERRY: Final = 9  # after the base game's categories
P_BATH: Final = 10
P_LEG: Final = 11
P_CALLI: Final = 12
T_DAIGORO: Final = 10
T_GOTOZAEMON: Final = 11
T_JIROCHO: Final = 12
T_KITA: Final = 13
T_MIYATAKA: Final = 14
T_NAMPO: Final = 15

# Step kinds: the steps the engine runs, then the decisions (a range of Crossroads' own).
K_CHOOSE_OPTION: Final = 40
K_CHERRY: Final = 41
K_BATH: Final = 42
K_GAMING: Final = 43
K_AMULET: Final = 44
K_LEGENDARY: Final = 45
K_CALLIGRAPHY: Final = 46
K_GOTO: Final = 47
K_DAIGORO: Final = 48
K_VITALITY_CHECK: Final = 49
K_END_CALLIGRAPHY: Final = 50
D_OPTION: Final = DECISION + 21
D_SECOND: Final = DECISION + 21 + 1
D_TAKE_AMULET: Final = DECISION + 21 + 2
D_LEGENDARY: Final = DECISION + 21 + 3
D_CALLIGRAPHY: Final = DECISION + 21 + 4
D_JIROCHO: Final = DECISION + 21 + 5
D_VITALITY: Final = DECISION + 21 + 6
_KINDS = {
    K_CHOOSE_OPTION: "crossroads.choose_option", K_CHERRY: "crossroads.cherry_tree",
    K_BATH: "crossroads.bath_house", K_GAMING: "crossroads.gaming_room",
    K_AMULET: "crossroads.amulet", K_LEGENDARY: "crossroads.legendary",
    K_CALLIGRAPHY: "crossroads.calligraphy", K_GOTO: "crossroads.gotozaemon",
    K_DAIGORO: "crossroads.daigoro", K_VITALITY_CHECK: "crossroads.vitality_check",
    K_END_CALLIGRAPHY: "crossroads.end_calligraphy",
    D_OPTION: "crossroads.option", D_SECOND: "crossroads.second_option",
    D_TAKE_AMULET: "crossroads.take_amulet", D_LEGENDARY: "crossroads.buy_legendary",
    D_CALLIGRAPHY: "crossroads.take_calligraphy", D_JIROCHO: "crossroads.jirocho",
    D_VITALITY: "crossroads.vitality"}
"""The reference's step kind of each of Crossroads' step kinds."""
_PURCHASE_KINDS = frozenset({D_BUY, D_MEAL, D_OPTION, D_SECOND, D_TAKE_AMULET, D_LEGENDARY,
                             D_CALLIGRAPHY})
"""Decisions at which Devotion may be switched on (``PURCHASE_DECISIONS``)."""
_OPTION_NAMES = {K_PANO: "base.panorama", D_TEMPLE: "base.temple", K_VILLAGE: "base.village",
                 K_FARM: "base.farm", K_HOT: "base.hot_spring", K_ENCOUNTER: "base.encounter",
                 K_CHERRY: "crossroads.cherry_tree", K_BATH: "crossroads.bath_house",
                 K_GAMING: "crossroads.gaming_room", K_AMULET: "crossroads.amulet",
                 K_LEGENDARY: "crossroads.legendary", K_CALLIGRAPHY: "crossroads.calligraphy"}
"""The step kind (and option name) of each option of a stop."""
_OPTION_CODES = {name: kind for kind, name in _OPTION_NAMES.items()}
_CROSS_OPTION = {K_PANO: K_CHERRY, K_HOT: K_BATH, K_FARM: K_GAMING, D_TEMPLE: K_AMULET,
                 K_VILLAGE: K_LEGENDARY, K_ENCOUNTER: K_CALLIGRAPHY}
"""The Crossroads option of each space, by the base one (``CROSSROADS_OPTION``)."""
X_CHERRY: Final = 0
X_BATH: Final = 1
X_LEGENDARY: Final = 2
X_CALLIGRAPHY: Final = 3
X_AMULET: Final = 4
"""The Crossroads piles in :attr:`CrossroadsGame.piles` (the order of ``_CROSS_PILES``)."""
_OPTIONS: dict[str, tuple[object, ...]] = {
    "crossroads.cherry_tree_on_completed_panorama": (False, True),
    "crossroads.fortune_timing": ("before_move", "any_time_in_turn"),
    "crossroads.amulet_same_turn": (False, True),
    "crossroads.shodo_emaki_counts_legendary": (False, True),
    "crossroads.devotion": ("stop", "dearest_card"),
    "crossroads.optional_purchase": (False, True),
    "crossroads.health_where_both": (False, True),
}
"""Every option of Crossroads, with the values its fast rules implement."""


class CrossroadsTables(BaseTables):
    """The Crossroads facts: its options, the cards its rules name, its piles."""

    def __init__(self, ruleset: Ruleset, players: int, rules: list[tuple[str, FastRules]],
                 game_class: type[FastGame]) -> None:
        BaseTables.__init__(self, ruleset, players, rules, game_class)
        options = ruleset.options
        self.lift = bool(options["crossroads.cherry_tree_on_completed_panorama"])
        """Whether a completed panorama stays open while the cherry trees last."""
        self.fortune_any = options["crossroads.fortune_timing"] == "any_time_in_turn"
        self.same_turn = bool(options["crossroads.amulet_same_turn"])
        self.scrolls_count_legendary = bool(options["crossroads.shodo_emaki_counts_legendary"])
        self.devotion_stop = options["crossroads.devotion"] == "stop"
        self.optional = bool(options["crossroads.optional_purchase"])
        self.health_where_both = bool(options["crossroads.health_where_both"])
        code = self.code
        self.scroll = [1 if name in _SCROLLS else 0 for name in self.names]
        (self.vitality, self.fortune, self.health, self.friendship, self.hospitality,
         self.devotion) = (code[name] for name in _AMULET_NAMES)
        self.calligraphy_rule = {code[name]: i for i, name in enumerate(_CALLIGRAPHIES)}
        self.piles_kept = [self.deck_index[zone] for zone in _CROSS_PILES]

    def game_end_steps(self) -> list[Step]:
        return [*BaseTables.game_end_steps(self), (K_END_CALLIGRAPHY, -1, None, 0)]

    def stop_steps(self, piece: int, seat: int | None, power: int,
                   position: int) -> list[Step]:
        """The stop's steps with Crossroads (its ``tokaido_arrival_steps`` wrapper): the
        base action of a road space becomes the choice of options; Gotozaemon's coin,
        Daigoro's souvenir and Jirocho's stake join (Vitality's check is added at each
        stop, as it depends on the amulets held)."""
        steps = BaseTables.stop_steps(self, piece, seat, power, position)
        if seat is None:
            return steps
        if self.space[position] == S_INN:
            if position != self.end and power in (T_DAIGORO, T_JIROCHO):
                steps.insert(0, (K_DAIGORO if power == T_DAIGORO else D_JIROCHO, piece, seat, 0))
            return steps
        out: list[Step] = [(K_CHOOSE_OPTION, piece, seat, step[0]) if step[0] in _CROSS_OPTION
                           else step for step in steps]
        if power == T_GOTOZAEMON and self.space[position] == S_PANO:
            out.insert(0, (K_GOTO, piece, seat, 0))
        return out


class CrossroadsGame(BaseGame):
    """A game with Crossroads: amulets join the legal actions of any decision
    (:meth:`_cross_legal`), an action is carried out by :meth:`_cross_apply` (moves
    count turns, amulets used leave the decision open, Devotion redirects payments), a
    card gained scores Crossroads' bonuses, and a copy copies its state."""

    __slots__ = ("X", "acq", "calli", "devo", "held", "piles", "turn", "xc")

    X: CrossroadsTables
    """The tables, as Crossroads' (the same object as ``T``)."""
    turn: int
    """The moves made so far (``GameState.turn``): when amulets were taken, Devotion's stop."""
    piles: list[list[int]]
    """The Crossroads piles, top first (``X_CHERRY`` ...)."""
    held: list[list[int]]
    """Per traveller, its amulets (its secret zone, in order)."""
    acq: list[dict[int, int]]
    """Per traveller, the turn in which it took each amulet."""
    devo: list[int]
    """Per traveller, the turn in which Devotion is on (-1: none)."""
    xc: list[list[int]]
    """Per traveller: souvenirs, legendary objects, cherry trees, scrolls (Shodo, Emaki)."""
    calli: list[list[int]]
    """Per traveller, its calligraphy cards."""

    def _deal(self, decks: list[list[int]]) -> None:
        BaseGame._deal(self, decks)
        T = self.T
        assert isinstance(T, CrossroadsTables)
        self.X = T
        self.asks = True
        n = T.pieces
        self.turn = 0
        self.piles = [decks[i] for i in T.piles_kept]
        self.held = [[] for _ in range(n)]
        self.acq = [{} for _ in range(n)]
        self.devo = [-1] * n
        self.xc = [[0, 0, 0, 0] for _ in range(n)]
        self.calli = [[] for _ in range(n)]

    def legal_actions(self) -> tuple[Action, ...]:
        legal = self._legal
        if legal is None:
            step = self._step
            legal = self._legal = () if step is None else self._cross_legal(step)
        return legal

    def _legal_for(self, step: Step) -> tuple[Action, ...]:
        return self._cross_legal(step)

    def apply(self, action: Action, *, expected_seq: int | None = None) -> FastGame:
        if expected_seq is not None and expected_seq != self.seq:
            raise StaleActionError(
                f"the action was sent at seq {expected_seq}; the game is at seq {self.seq}")
        step = self._step
        if step is None:
            raise IllegalActionError("the game is over")
        legal = self.legal_actions()
        for index, candidate in enumerate(legal):  # noqa: B007
            if candidate is action:
                break
        else:
            index = self._matching(legal, action)
        chosen = legal[index]
        self._decisions.append(chosen)
        self.seq += 1  # the action's event
        new: list[Step] = []
        self._cross_apply(step, chosen, index, new)
        self._run(new)
        return self

    def clone(self) -> FastGame:
        new = BaseGame.clone(self)  # of this game's class: clone makes the type of its game
        assert isinstance(new, CrossroadsGame)
        new.X = self.X
        new.turn = self.turn
        new.piles = [pile[:] for pile in self.piles]
        new.held = [h[:] for h in self.held]
        new.acq = [dict(a) for a in self.acq]
        new.devo = self.devo[:]
        new.xc = [x[:] for x in self.xc]
        new.calli = [c[:] for c in self.calli]
        return new

    def _gain(self, piece: int, card: int, category: int, points: int) -> None:
        BaseGame._gain(self, piece, card, category, points)
        self._cross_gained(piece, card, self.T.kind[card])

    def _gain_from_deck(self, piece: int, card: int, category: int, points: int) -> None:
        """A card gained from its deck: a meal so gained is no inn meal (no Nampo bonus;
        counted for Fasting as eaten away from an inn)."""
        if self.T.kind[card] == C_MEAL:
            self.from_deck = _plus(self.from_deck, piece, 1)
            BaseGame._gain(self, piece, card, category, points)
        else:
            self._gain(piece, card, category, points)

    # --- legal actions ---------------------------------------------------------------------
    def _cross_legal(self, step: Step) -> tuple[Action, ...]:
        """The legal actions with Crossroads: the decision's own, and the amulets its
        traveller may use there (``tokaido_extra_actions``), as the engine joins them:
        each once, none if none answers the decision, sorted."""
        kind, piece, seat, data = step
        T = self.X
        if kind == D_MOVE and T.lift and self.piles[X_CHERRY] and self.seat[piece] is not None:
            done = self.done[piece]  # a completed panorama stays open for a cherry tree
            self.done[piece] = 0
            own = self._moves(piece, seat)  # type: ignore[arg-type]
            self.done[piece] = done
        else:
            own = BaseGame._legal_for(self, step)
        if piece < 0 or seat is None or self.seat[piece] != seat or not self.held[piece]:
            return own
        extra: list[Action] = []
        move = kind == D_MOVE
        if move and self._usable(piece, T.friendship, True):
            extra += self._friendship_moves(piece, seat)
        if (move or T.fortune_any) and self._usable(piece, T.fortune, move):
            extra.append(T.action(FORTUNE, seat, piece))
        if (kind == D_OPTION and self._usable(piece, T.health, False)
                and (not data & 1 or T.health_where_both)):
            base = data >> 1
            extra += [T.action(OPTION, seat, piece, _OPTION_NAMES[o], True)
                      for o in (base, _CROSS_OPTION[base]) if self._available(piece, o)]
        if kind == D_MEAL and self._usable(piece, T.hospitality, False):
            extra += self._hospitality_meals(piece, seat)
        if (kind in _PURCHASE_KINDS and self._usable(piece, T.devotion, False)
                and self.devo[piece] != self.turn):
            extra.append(T.action(DEVOTION, seat, piece))
        if not extra:
            return own
        actions = list(dict.fromkeys([*own, *extra]))
        if not any(a.CONSUMES_STEP for a in actions):
            return ()
        return tuple(sorted(actions, key=Action.sort_key))

    def _usable(self, piece: int, amulet: int, move: bool) -> bool:
        """Whether ``piece`` may use ``amulet`` now (at a move decision: the next turn)."""
        if amulet not in self.held[piece]:
            return False
        return self.X.same_turn or self.turn + move > self.acq[piece][amulet]

    def _asks_anyway(self, step: Step) -> bool:
        """Whether the traveller of ``step`` may use one of its amulets there, whichever
        (``amulet_window``): then even a lone answer is asked."""
        kind, piece, seat, _ = step
        if piece < 0 or seat is None or self.seat[piece] != seat:
            return False
        held = self.held[piece]
        if not held:
            return False
        if self.X.same_turn:
            return True
        current = self.turn + (kind == D_MOVE)
        acquired = self.acq[piece]
        return any(current > acquired[a] for a in held)

    def _available(self, piece: int, option: int) -> bool:
        """Whether an option of a stop can be taken now (``AVAILABLE``)."""
        T = self.X
        coins = self.coins[piece]
        if option == K_PANO:
            k = T.space_pano[self.pos[piece]]
            return self.sect[piece][k] < T.sections[k]
        if option in (D_TEMPLE, K_VILLAGE):
            return coins >= 1
        if option == K_CHERRY:
            return bool(self.piles[X_CHERRY])
        if option == K_BATH:
            return bool(self.piles[X_BATH]) and coins >= 1
        if option == K_GAMING:
            return coins >= 2
        if option == K_AMULET:
            return bool(self.piles[X_AMULET]) and (coins >= 1 or T.optional)
        if option == K_LEGENDARY:
            pile = self.piles[X_LEGENDARY]
            return any(T.price[c] <= coins for c in pile) or (T.optional and bool(pile))
        if option == K_CALLIGRAPHY:
            return bool(self.piles[X_CALLIGRAPHY]) and (coins >= 1 or T.optional)
        return True

    def _friendship_moves(self, piece: int, seat: int) -> list[Action]:
        """Stops on a single space another traveller holds alone, up to the next inn,
        where the traveller may stop (``friendship_moves``)."""
        T = self.X
        here = self.pos[piece]
        bad = (2 if self.coins[piece] < 1 else 0) | self.done[piece] << 2
        if T.lift and self.piles[X_CHERRY]:
            bad &= 3
        out: list[Action] = []
        pos = self.pos
        for q in range(here + 1, T.next_inn[here]):
            if T.slots[q] != 1 or pos.count(q) != 1:
                continue
            space = T.space[q]
            check = (1 if space in (S_TEMPLE, S_VILLAGE) else
                     2 + T.space_pano[q] if space == S_PANO else 0)
            if not bad >> check & 1:
                out.append(T.action(FRIENDSHIP, seat, piece, q, 1))
        return out

    def _hospitality_meals(self, piece: int, seat: int) -> list[Action]:
        if self.ate[piece] == self.pos[piece]:
            return []
        T = self.X
        eaten = self.eaten[piece]
        meals = [T.action(HOSPITALITY, seat, piece, T.names[m]) for m in sorted(set(self.hand))
                 if not eaten >> m & 1]
        if not meals:
            return []
        return [T.meals[seat][-1], *meals]

    def _legal_more(self, step: Step) -> tuple[Action, ...]:
        """The legal actions of a Crossroads decision (its legal function)."""
        kind, piece, seat, data = step
        if not D_OPTION <= kind <= D_VITALITY:
            return FastGame._legal_more(self, step)
        assert seat is not None
        T = self.X
        coins = self.coins[piece]
        if kind == D_OPTION:
            base = data >> 1
            return tuple(T.action(OPTION, seat, piece, _OPTION_NAMES[o])
                         for o in (base, _CROSS_OPTION[base]) if self._available(piece, o))
        if kind == D_SECOND:
            if not self._available(piece, data):
                return ()
            return (T.action(OPTION, seat, piece, None),
                    T.action(OPTION, seat, piece, _OPTION_NAMES[data]))
        if kind == D_JIROCHO:
            if coins < 1:
                return (T.action(GAMBLE, seat, piece, False),)
            return (T.action(GAMBLE, seat, piece, False), T.action(GAMBLE, seat, piece, True))
        if kind == D_VITALITY:
            if not self._usable(piece, T.vitality, False):
                return (T.action(VITALITY, seat, piece, False),)
            return (T.action(VITALITY, seat, piece, False),
                    T.action(VITALITY, seat, piece, True))
        names = T.names
        if kind == D_TAKE_AMULET:
            type_name = AMULET
            cards = sorted(set(self.piles[X_AMULET])) if coins >= 1 else []
        elif kind == D_LEGENDARY:
            type_name = LEGENDARY
            cards = sorted({c for c in self.piles[X_LEGENDARY] if T.price[c] <= coins})
        else:
            type_name = CALLIGRAPHY
            cards = sorted(self.piles[X_CALLIGRAPHY]) if coins >= 1 else []
        out = [T.action(type_name, seat, piece, names[c]) for c in cards]
        if T.optional:
            out.insert(0, T.action(type_name, seat, piece, None))
        return tuple(out)

    # --- acting ----------------------------------------------------------------------------
    def _cross_apply(self, step: Step, chosen: Any, index: int, new: list[Step]) -> None:
        """Carry out a decision with Crossroads (the action's event is counted): an
        amulet used before the decision leaves it open; a move counts a turn; a purchase
        with Devotion on pays the temple."""
        T = self.X
        agenda = self.agenda
        piece = step[1]
        if not chosen.CONSUMES_STEP:  # Fortune or Devotion: the decision stays
            if chosen.TYPE == FORTUNE:
                self._spend(piece, T.fortune)
                self._gain_coins(piece, self._roll(piece))
            else:
                self._spend(piece, T.devotion)
                self.devo[piece] = self.turn
                self.seq += 1
            new.extend(agenda)
            return
        if agenda:
            del agenda[0]
        if isinstance(chosen, Move):
            if chosen.TYPE == FRIENDSHIP:
                self._spend(piece, T.friendship)
            self._cross_move(piece, chosen.position, chosen.slot, new)
        elif chosen.TYPE == HOSPITALITY:
            self._spend(piece, T.hospitality)
            meal = T.code[chosen.meal]
            self.hand = _without(self.hand, meal)
            self._eat(piece, meal)
        elif self.devo[piece] == self.turn and step[0] in (D_BUY, D_MEAL):
            self._devoted_purchase(step, chosen)
        else:
            self._resolve(step, chosen, index, new)
        new.extend(agenda)

    def _cross_move(self, piece: int, position: int, slot: int, new: list[Step]) -> None:
        """A move with Crossroads: a turn more; after a road stop of a traveller holding
        an amulet, Vitality's check. (A Friendship user, in slot 1 of a single space, is
        behind its host and so always leaves first: a single space is never held by
        slot 1 alone, and the slot bits of :meth:`_move` stay right.)"""
        T = self.X
        self._move(piece, position, slot, new)
        self.turn += 1
        seat = self.seat[piece]
        space = T.space[position]
        if seat is not None and space != S_INN and (
                self.held[piece] or (T.same_turn and space == S_TEMPLE)):
            new.append((K_VITALITY_CHECK, piece, seat, 0))

    def _spend(self, piece: int, amulet: int) -> None:
        """A used amulet goes back under the pile."""
        self.held[piece].remove(amulet)
        self.piles[X_AMULET].append(amulet)
        self.seq += 1

    def _roll(self, piece: int) -> int:
        """``piece``'s roll of the Fortune die (its event counted): the face, X = 0."""
        face = _DIE_FACES[draw_below(self._chance(_DIE_PURPOSES[piece]), 0,
                                     len(_DIE_FACES))]
        self.seq += 1
        return face

    def _gain_coins(self, piece: int, coins: int) -> None:
        if coins:
            self.coins[piece] += coins
            self.seq += 1

    def _pay(self, piece: int, amount: int, dearest: int = 0) -> None:
        """Pay for cards (``pay_for_cards``): to the bank, or with Devotion on to the
        temple; ``dearest``: the printed price of the dearest souvenir bought (0: the
        cards are not souvenirs)."""
        if amount <= 0:
            return
        if self.devo[piece] != self.turn:
            self.coins[piece] -= amount
            self.seq += 1
            return
        if self.X.devotion_stop:
            self._donate(piece, amount, 0)
            return
        if dearest:
            if amount > dearest:
                self.coins[piece] -= amount - dearest
                self.seq += 1
            self._donate(piece, min(amount, dearest), max(0, dearest - amount))
        else:
            self._donate(piece, amount, 0)
        self.devo[piece] = -1
        self.seq += 1

    def _donate(self, piece: int, coins: int, from_bank: int) -> None:
        if coins:
            self.coins[piece] -= coins
            self.seq += 1
        if coins + from_bank:
            self.don = _plus(self.don, piece, coins + from_bank)
            self._add_points(piece, P_DON, coins + from_bank)
            self.seq += 2
            book = self._chronicle
            if book is not None:  # scored before the cards paid for: the views' order
                book.notice(self, piece)

    def _take_amulet(self, piece: int, amulet: int) -> None:
        """An amulet from the pile into the traveller's hand (its events counted)."""
        self.piles[X_AMULET].remove(amulet)
        self.held[piece].append(amulet)
        self.acq[piece][amulet] = self.turn
        self.seq += 2

    def _devoted_purchase(self, step: Step, action: Any) -> None:
        """A village purchase or a meal with Devotion on (as ``_resolve``, paid through
        :meth:`_pay`)."""
        T = self.X
        piece = step[1]
        codes = T.code
        if step[0] == D_BUY:
            cards = [codes[name] for name in action.cards]
            prices = [T.price[c] for c in cards]
            cost = sum(prices)
            if action.discount is not None:
                cost -= T.price[codes[action.discount]] - 1
            elif len(prices) >= 2 and T.power[self.trav[piece]] == T_SASAYAKKO:
                cost -= min(prices)
            self._pay(piece, cost, max(prices, default=0))
            offer = self.offer = self.offer[:]  # its own copy: the list is shared
            for card in cards:
                offer.remove(card)
                self._gain_souvenir(piece, card)
        elif action.meal is not None:
            meal = codes[action.meal]
            cost = T.price[meal]
            if cost and T.power[self.trav[piece]] == T_KINKO:
                cost -= 1
            self._pay(piece, cost)
            self.hand = _without(self.hand, meal)
            self._eat(piece, meal)

    def _resolve_more(self, step: Step, action: Any, new: list[Step]) -> None:
        """Carry out the answer to a Crossroads decision."""
        kind, piece, seat, data = step
        if not D_OPTION <= kind <= D_VITALITY:
            FastGame._resolve_more(self, step, action, new)
            return
        T = self.X
        if kind in (D_OPTION, D_SECOND):
            if action.option is None:
                return
            option = _OPTION_CODES[action.option]
            new.append((option, piece, seat, 0))
            if action.health:
                self._spend(piece, T.health)
            if kind == D_OPTION and (action.health or data & 1):
                base = data >> 1
                new.append((D_SECOND, piece, seat, _CROSS_OPTION[base] if option == base else base))
        elif kind == D_TAKE_AMULET:
            if action.amulet is None:
                return
            amulet = T.code[action.amulet]
            self._pay(piece, 1)
            self._take_amulet(piece, amulet)
            if T.hirotada_auto and T.power[self.trav[piece]] == T_HIROTADA:
                self._bank_coin(piece)
        elif kind == D_LEGENDARY:
            if action.card is None:
                return
            card = T.code[action.card]
            self._pay(piece, T.price[card])
            if T.family[card] >= 0:
                counts = self.fam[piece]
                held = counts[T.family[card]]
                points, category = 2 * sum(1 for n in counts if n > held) + 1, P_SOUV
            elif T.scroll[card]:
                xc = self.xc[piece]
                points, category = xc[0] + xc[1], P_LEG
            else:
                points, category = T.points[card], P_LEG
            self.piles[X_LEGENDARY].remove(card)
            self._gain(piece, card, category, points)
        elif kind == D_CALLIGRAPHY:
            if action.card is None:
                return
            card = T.code[action.card]
            self._pay(piece, 1)
            self.piles[X_CALLIGRAPHY].remove(card)
            self._gain(piece, card, -1, 0)
        elif kind == D_JIROCHO:
            if action.stake:
                self.coins[piece] -= 1
                self.seq += 1
                self._gain_coins(piece, self._roll(piece))
        else:  # D_VITALITY
            if action.use:
                self._spend(piece, T.vitality)
                new.append((D_MOVE, piece, seat, 0))

    def _run_more(self, step: Step, new: list[Step]) -> None:
        """Run a Crossroads step."""
        kind, piece, seat, data = step
        if not K_CHOOSE_OPTION <= kind <= K_END_CALLIGRAPHY:
            FastGame._run_more(self, step, new)
            return
        T = self.X
        if kind == K_CHOOSE_OPTION:
            cross = _CROSS_OPTION[data]
            if not (self._available(piece, data) or self._available(piece, cross)):
                return
            power = T.power[self.trav[piece]]
            both = ((power == T_MIYATAKA and data == D_TEMPLE)
                    or (power == T_KITA and data == K_ENCOUNTER))
            new.append((D_OPTION, piece, seat, data * 2 + both))
        elif kind == K_CHERRY:
            card = self.piles[X_CHERRY].pop(0)
            self._gain(piece, card, P_CHERRY, T.points[card])
            self._gain_coins(piece, 1)
        elif kind == K_BATH:
            self._pay(piece, 1)
            card = self.piles[X_BATH].pop(0)
            self._gain(piece, card, P_BATH, T.points[card])
        elif kind == K_GAMING:
            self.coins[piece] -= 2
            self.seq += 1
            self._gain_coins(piece, 2 * self._roll(piece))
        elif kind == K_AMULET:
            new.append((D_TAKE_AMULET, piece, seat, 0))
        elif kind == K_LEGENDARY:
            new.append((D_LEGENDARY, piece, seat, 0))
        elif kind == K_CALLIGRAPHY:
            new.append((D_CALLIGRAPHY, piece, seat, 0))
        elif kind == K_GOTO:
            self._gain_coins(piece, 1)
        elif kind == K_DAIGORO:
            if self.souvenirs:
                self._gain_souvenir(piece, self._draw_souvenir())
        elif kind == K_VITALITY_CHECK:
            if T.space[self.pos[piece]] == S_INN:
                return
            order = self.order
            if order.index(max(order)) == piece and self._asks_anyway(step):
                new.append((D_VITALITY, piece, seat, 0))
        else:  # K_END_CALLIGRAPHY
            for i in range(T.players):
                for card in self.calli[i]:
                    points = self._calligraphy_points(i, card)
                    if points:
                        self._add_points(i, P_CALLI, points)
                        self.seq += 1

    def _cross_gained(self, piece: int, card: int, kind: int) -> None:
        """Crossroads' part of a card gained (its ``tokaido_card_gained``): Nampo's meal
        bonus, Shodo's and Emaki's later-souvenir bonus; and the counts its scoring needs."""
        T = self.X
        xc = self.xc[piece]
        if kind == C_SOUVENIR:
            xc[0] += 1
            if xc[3]:
                self._add_points(piece, P_LEG, xc[3])
                self.seq += 1
        elif kind == C_LEGENDARY:
            xc[1] += 1
            if T.family[card] >= 0:
                self._count_family(piece, T.family[card])
            if T.scrolls_count_legendary and xc[3]:
                self._add_points(piece, P_LEG, xc[3])
                self.seq += 1
            xc[3] += T.scroll[card]
        elif kind == C_MEAL:
            if T.power[self.trav[piece]] == T_NAMPO and T.price[card]:
                self._add_points(piece, P_POWER, T.price[card])
                self.seq += 1
        elif kind == C_CHERRY:
            xc[2] += 1
        elif kind == C_CALLIGRAPHY:
            self.calli[piece].append(card)

    def _calligraphy_points(self, piece: int, card: int) -> int:
        """What a calligraphy card scores at the end (``calligraphy_points``)."""
        T = self.X
        rule = T.calligraphy_rule[card]
        xc = self.xc[piece]
        if rule == 0:  # Foresight
            return 2 * self.coins[piece]
        if rule == 1:  # Contemplation
            complete = sum(1 for k, n in enumerate(self.sect[piece]) if n == T.sections[k])
            return 3 * complete + xc[2]
        if rule == 2:  # Nostalgia
            return 2 * xc[1] + xc[0]
        if rule == 3:  # Patience: by the order of arrival at the final inn
            from_last = T.pieces - 1 - self.slot[piece]
            return 6 if from_last == 0 else 4 if from_last == 1 else 2
        if rule == 4:  # Perfection
            return 2 * self.nach[piece] + len(self.calli[piece])
        return 3 * max(0, 4 - bin(self.eaten[piece]).count("1")
                       + self.from_deck[piece])  # Fasting: inn meals


    # --- a game at a given state (tokaido_rules.fast.from_state) ---------------------------
    def _load_state(self, state: Any) -> None:
        """Crossroads' part of a state, after the base game's: the piles and the amulets
        held from their zones, the moves made, and what its scoring counts of each
        collection (its data: :meth:`_load_data`)."""
        BaseGame._load_state(self, state)
        T = self.T
        assert isinstance(T, CrossroadsTables)
        self.X = T
        self.asks = True
        n = T.pieces
        code = T.code
        zones = state.zones
        self.turn = state.turn
        self.piles = [[code[c] for c in zones.get(zone, ())] for zone in _CROSS_PILES]
        self.held = [[code[c] for c in zones.get(f"core.secret.{i}", ())] for i in range(n)]
        self.xc = [[0, 0, 0, 0] for _ in range(n)]
        self.calli = [[] for _ in range(n)]
        for i in range(n):
            xc = self.xc[i]
            for card in zones.get(f"core.collection.{i}", ()):
                c = code[card]
                kind = T.kind[c]
                if kind == C_SOUVENIR:
                    xc[0] += 1
                elif kind == C_LEGENDARY:
                    xc[1] += 1
                    if T.family[c] >= 0:
                        self.fam[i][T.family[c]] += 1
                    xc[3] += T.scroll[c]
                elif kind == C_CHERRY:
                    xc[2] += 1
                elif kind == C_CALLIGRAPHY:
                    self.calli[i].append(c)

    def _load_data(self, data: Any) -> None:
        """Crossroads' part of a state's data, after the base game's (and the amulets
        held): when each amulet was taken (an amulet held whose turn the data does not
        hold was taken at turn -1, as the reference reads it) and Devotion's turn."""
        from .amulets import ACQUIRED, DEVOTION_ACTIVE

        BaseGame._load_data(self, data)
        code = self.T.code
        n = self.T.pieces
        self.acq = []
        self.devo = [-1] * n
        for i in range(n):
            turns = {code[a]: turn for a, turn in data.get(f"{ACQUIRED}.{i}", {}).items()}
            for amulet in self.held[i]:
                turns.setdefault(amulet, -1)
            self.acq.append(turns)
            devotion = data.get(f"{DEVOTION_ACTIVE}.{i}")
            if devotion is not None:
                self.devo[i] = devotion

    def _step_data(self, V: ViewTables, kind: int, step: Any) -> int:
        if kind == K_CHOOSE_OPTION:
            return _OPTION_CODES[step.data["base"]]
        if kind == D_OPTION:
            return _OPTION_CODES[step.data["options"][0]] << 1 | bool(step.data["both"])
        if kind == D_SECOND:
            return _OPTION_CODES[step.data["option"]]
        return BaseGame._step_data(self, V, kind, step)

    # --- the direct views (FastGame.view) --------------------------------------------------
    def _view_sources(self, V: ViewTables) -> None:
        BaseGame._view_sources(self, V)
        V.deck_sources.update({zone: (FROM_PIECES, ("piles", x))
                               for x, zone in enumerate(_CROSS_PILES)})

    def _fill_view_tables(self, V: ViewTables) -> bool:
        """Crossroads' part: its piles (kept by the flat state), the amulets each traveller
        holds (its secret zone), who looks through the amulet pile; when each traveller
        took its amulets, and the turn of Devotion."""
        from .amulets import ACQUIRED, DEVOTION_ACTIVE, amulet_pile_visible

        if not BaseGame._fill_view_tables(self, V):
            return False
        pieces = self.T.pieces
        secret = len(V.zone_names)
        for i in range(pieces):
            V.add_zone(f"core.secret.{i}", FROM_PIECES, ("held", i))
        V.watched_pieces.append(("held", secret))
        V.own_rules[amulet_pile_visible] = _amulet_pile_seen
        V.known_data.update((ACQUIRED + ".", DEVOTION_ACTIVE + "."))
        for i in range(pieces):
            V.add_data(f"{ACQUIRED}.{i}", _amulet_turns, i, _took_amulets)
        for i in range(pieces):
            V.add_data(f"{DEVOTION_ACTIVE}.{i}", _devotion, i, _devoted)
        return True

    def _step_values(self, V: ViewTables, step: Step) -> dict[str, Any]:
        kind, _, _, data = step
        if kind == K_CHOOSE_OPTION:
            return {"base": _OPTION_NAMES[data]}
        if kind == D_OPTION:
            base = data >> 1
            return {"options": (_OPTION_NAMES[base], _OPTION_NAMES[_CROSS_OPTION[base]]),
                    "both": bool(data & 1)}
        if kind == D_SECOND:
            return {"option": _OPTION_NAMES[data]}
        return BaseGame._step_values(self, V, step)


def _amulet_pile_seen(game: FastGame, seat: int | None) -> bool:
    """The amulet pile: seen by the seat choosing an amulet (``amulet_pile_visible``;
    ``None``: by every seat, which never happens, one seat choosing)."""
    agenda = game.agenda
    if not agenda or agenda[0][0] != D_TAKE_AMULET:
        return False
    if seat is None:
        return game.T.players == 1
    return agenda[0][2] == seat


def _amulet_turns(game: FastGame, book: Any, piece: int) -> Any:
    """The turn in which the traveller took each of its amulets, by amulet."""
    from tokaido_rules import FrozenMap

    assert isinstance(game, CrossroadsGame)
    names = game.T.names
    return FrozenMap({names[a]: turn for a, turn in game.acq[piece].items()})


def _took_amulets(game: FastGame, piece: int) -> bool:
    assert isinstance(game, CrossroadsGame)
    return bool(game.acq[piece])


def _devotion(game: FastGame, book: Any, piece: int) -> int | None:
    """The turn in which Devotion is on (``None``: spent on a purchase)."""
    assert isinstance(game, CrossroadsGame)
    turn = game.devo[piece]
    return None if turn < 0 else turn


def _devoted(game: FastGame, piece: int) -> bool:
    assert isinstance(game, CrossroadsGame)
    return game.devo[piece] >= 0


_CrossroadsGame = CrossroadsGame  # the name the Crossroads tests know

RULES = FastRules(
    game=CrossroadsGame, tables=CrossroadsTables, kinds=_KINDS,
    automatic={D_OPTION: 1, D_JIROCHO: 1}, card_kinds=_CARD_KINDS,
    powers={name: 10 + i for i, name in enumerate(_CROSS_TRAVELLERS)},
    categories=_CROSS_CATEGORIES, options=_OPTIONS, views=True)
"""Crossroads' fast rules (what its ``tokaido_fast_rules`` returns)."""


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    from tokaido_rules.fast import take_compiled

    take_compiled(globals())
