"""Crossroads steps and resolvers: the option choice, every Crossroads action, the
travellers, amulets in use, and calligraphy scoring."""

from __future__ import annotations

from collections.abc import Callable

from tokaido_base import (
    INN_HAND,
    INN_MEALS,
    PANORAMAS,
    SOUVENIRS,
    achievement_count,
    after_temple_action,
    ate_here_key,
    donate,
    eat_meal,
    gain_souvenir,
    meals_eaten,
    panorama_complete,
    souvenir_points,
)
from tokaido_rules import (
    Action,
    Context,
    GameState,
    Step,
    collection_zone,
    schedule_arrival,
)

from . import content as c
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
    die_purpose,
)
from .amulets import amulet_window, devotion_key, gain_amulet, spend_amulet, usable

# --- options of a stop (rules reference, One action per stop) ------------------------------

CROSSROADS_OPTION = {
    "paddy": "crossroads.cherry_tree",
    "mountain": "crossroads.cherry_tree",
    "sea": "crossroads.cherry_tree",
    "hot_spring": "crossroads.bath_house",
    "farm": "crossroads.gaming_room",
    "temple": "crossroads.amulet",
    "village": "crossroads.legendary",
    "encounter": "crossroads.calligraphy",
}
"""The Crossroads action of each kind of road space."""

BOTH_OPTIONS = {c.MIYATAKA: "temple", c.KITA: "encounter"}
"""Travellers who may take both options at one kind of space."""


def _coins(state: GameState, piece: int) -> int:
    return state.pieces[piece].coins


def _available_legendary(state: GameState, piece: int) -> list[str]:
    cards = state.rules.registry.cards
    return [x for x in state.zone(c.LEGENDARY) if cards[x].price <= _coins(state, piece)]


def _optional_purchase(state: GameState) -> bool:
    return bool(state.rules.option("crossroads.optional_purchase"))


AVAILABLE: dict[str, Callable[[GameState, int], bool]] = {
    "base.panorama": lambda s, p: not panorama_complete(
        s, p, s.rules.board[s.pieces[p].position].kind),
    "base.temple": lambda s, p: _coins(s, p) >= 1,  # a donation is 1 to 3 coins
    "base.village": lambda s, p: _coins(s, p) >= 1,  # as for stopping at a village
    "crossroads.cherry_tree": lambda s, p: bool(s.zone(c.CHERRY_TREES)),
    "crossroads.bath_house": lambda s, p: bool(s.zone(c.BATH_HOUSES)) and _coins(s, p) >= 1,
    "crossroads.gaming_room": lambda s, p: _coins(s, p) >= 2,
    "crossroads.amulet": lambda s, p: bool(s.zone(c.AMULETS)) and (
        _coins(s, p) >= 1 or _optional_purchase(s)),
    "crossroads.legendary": lambda s, p: bool(_available_legendary(s, p)) or (
        _optional_purchase(s) and bool(s.zone(c.LEGENDARY))),
    "crossroads.calligraphy": lambda s, p: bool(s.zone(c.CALLIGRAPHY)) and (
        _coins(s, p) >= 1 or _optional_purchase(s)),
}
"""Whether an option can be taken now: an option that cannot be paid for, or whose pile
is empty, is not offered (with ``crossroads.optional_purchase``, the legendary-object,
calligraphy and amulet options only need a card in their pile). Options not listed are
always available."""


def available(state: GameState, piece: int, option: str) -> bool:
    check = AVAILABLE.get(option)
    return check is None or check(state, piece)


def run_choose_option(ctx: Context, step: Step) -> None:
    """At a road stop: the base action or the Crossroads action (both for Kita at an
    encounter and Miyataka at a temple, or with the Health amulet).

    A lone available option is still a decision, which the engine takes alone
    (recorded) unless the traveller may use an amulet now (:func:`amulet_window`); a
    traveller entitled to both may still take the other one afterwards if it has become
    affordable meanwhile.
    """
    state = ctx.state
    kind = state.rules.board[state.pieces[step.piece].position].kind
    options = (str(step.data["base"]), CROSSROADS_OPTION[kind])
    if not any(available(state, step.piece, o) for o in options):
        return
    both = BOTH_OPTIONS.get(state.pieces[step.piece].traveller or "") == kind
    ctx.schedule(Step("crossroads.option", step.piece, step.seat,
                      {"options": options, "both": both}))


def legal_option(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    return [TakeOption(seat, step.piece, o) for o in sorted(map(str, step.data["options"]))
            if available(state, step.piece, o)]


def resolve_take_option(ctx: Context, step: Step, action: TakeOption) -> None:
    """Schedule the option taken, then the other one as a second option (for a traveller
    entitled to both, or with Health, which is spent: with
    ``crossroads.health_where_both`` also where both were open anyway)."""
    if action.option is None:
        return
    ctx.schedule(Step(action.option, action.piece, action.seat))
    if action.health:
        spend_amulet(ctx, action.piece, c.HEALTH)
    if step.kind == "crossroads.option" and (action.health or step.data["both"]):
        other = [o for o in step.data["options"] if o != action.option]
        ctx.schedule(Step("crossroads.second_option", action.piece, action.seat,
                          {"option": other[0]}))


def legal_second_option(state: GameState, step: Step) -> list[Action]:
    option = str(step.data["option"])
    if not available(state, step.piece, option):
        return []
    seat = step.seat if step.seat is not None else -1
    return [TakeOption(seat, step.piece, None), TakeOption(seat, step.piece, option)]


# --- the Crossroads actions (rules reference, The Crossroads actions) -----------------------


def run_cherry_tree(ctx: Context, step: Step) -> None:
    ctx.gain(step.piece, "cherry_tree", c.CHERRY_TREES, from_top=True,
             category="cherry_trees", points=c.CHERRY_TREE_POINTS)
    ctx.coins(step.piece, 1)


def run_bath_house(ctx: Context, step: Step) -> None:
    ctx.pay_for_cards(step.piece, 1, ("bath_house",))
    ctx.gain(step.piece, "bath_house", c.BATH_HOUSES, from_top=True,
             category="bath_houses", points=c.BATH_HOUSE_POINTS)


def roll(ctx: Context, piece: int) -> int:
    """Roll the Fortune die (a chance event); return the face (X = 0)."""
    face = ctx.random_pick(c.DIE, c.DIE_FACES, die_purpose(piece))
    ctx.emit(DieRolled(piece, face))
    return face


def run_gaming_room(ctx: Context, step: Step) -> None:
    """Stake 2 coins, roll, receive the stake times the face."""
    ctx.coins(step.piece, -2)
    ctx.coins(step.piece, 2 * roll(ctx, step.piece))


def run_amulet(ctx: Context, step: Step) -> None:
    ctx.schedule(Step("crossroads.take_amulet", step.piece, step.seat))


def _none_first(state: GameState, actions: list[Action], nothing: Action) -> list[Action]:
    """With ``crossroads.optional_purchase``, "buy nothing" comes first among the
    answers of a purchase; without it, a purchase decision is a purchase."""
    return [nothing, *actions] if _optional_purchase(state) else actions


def legal_take_amulet(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    amulets: list[Action] = []
    if _coins(state, step.piece) >= 1:
        amulets = [TakeAmulet(seat, step.piece, a) for a in sorted(set(state.zone(c.AMULETS)))]
    return _none_first(state, amulets, TakeAmulet(seat, step.piece, None))


def resolve_take_amulet(ctx: Context, step: Step, action: TakeAmulet) -> None:
    """Buy the amulet; a temple action, so Hirotada's automatic bank coin follows. Buying
    nothing (optional purchases) has no effect at all, that coin included (ruling)."""
    if action.amulet is None:
        return
    ctx.pay_for_cards(action.piece, 1, (action.amulet,))
    gain_amulet(ctx, action.piece, action.amulet)
    after_temple_action(ctx, action.piece)


def run_legendary(ctx: Context, step: Step) -> None:
    ctx.schedule(Step("crossroads.buy_legendary", step.piece, step.seat))


def legal_buy_legendary(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    objects: list[Action] = [BuyLegendary(seat, step.piece, x)
                             for x in sorted(set(_available_legendary(state, step.piece)))]
    return _none_first(state, objects, BuyLegendary(seat, step.piece, None))


def resolve_buy_legendary(ctx: Context, step: Step, action: BuyLegendary) -> None:
    if action.card is None:
        return
    card = ctx.registry.cards[action.card]
    ctx.pay_for_cards(action.piece, card.price, (action.card,))
    if card.family is not None:  # Buppatsu, Ema: a fifth souvenir family
        points, category = souvenir_points(ctx.state, action.piece, card.family), "souvenirs"
    elif action.card in c.SCROLLS:  # +1 per souvenir and legendary object already owned
        points = sum(1 for x in ctx.state.collection(action.piece)
                     if ctx.registry.cards[x].kind in ("souvenir", "legendary"))
        category = "legendary_objects"
    else:
        points, category = card.points, "legendary_objects"
    ctx.gain(action.piece, action.card, c.LEGENDARY, from_top=False, category=category,
             points=points)


def run_calligraphy(ctx: Context, step: Step) -> None:
    ctx.schedule(Step("crossroads.take_calligraphy", step.piece, step.seat))


def legal_take_calligraphy(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    cards: list[Action] = []
    if _coins(state, step.piece) >= 1:
        cards = [TakeCalligraphy(seat, step.piece, x) for x in sorted(state.zone(c.CALLIGRAPHY))]
    return _none_first(state, cards, TakeCalligraphy(seat, step.piece, None))


def resolve_take_calligraphy(ctx: Context, step: Step, action: TakeCalligraphy) -> None:
    if action.card is None:
        return
    ctx.pay_for_cards(action.piece, 1, (action.card,))
    ctx.gain(action.piece, action.card, c.CALLIGRAPHY, from_top=False)


def later_scroll_bonus(ctx: Context, piece: int, card: str) -> None:
    """Shodo and Emaki: +1 each per souvenir acquired later (and per later legendary
    object with option ``crossroads.shodo_emaki_counts_legendary``)."""
    kind = ctx.registry.cards[card].kind
    counts = kind == "souvenir" or (
        kind == "legendary" and bool(ctx.rules.option("crossroads.shodo_emaki_counts_legendary")))
    if not counts:
        return
    owned = ctx.state.collection(piece)
    bonus = sum(1 for s in c.SCROLLS if s in owned and s != card)
    ctx.score(piece, "legendary_objects", bonus)


# --- Crossroads travellers (rules reference, Crossroads travellers) -------------------------


def run_gotozaemon(ctx: Context, step: Step) -> None:
    ctx.coins(step.piece, 1)


def run_daigoro(ctx: Context, step: Step) -> None:
    deck = ctx.state.zone(SOUVENIRS)
    if deck:
        gain_souvenir(ctx, step.piece, deck[0], SOUVENIRS, from_top=True)


def legal_gamble(state: GameState, step: Step) -> list[Action]:
    """Jirocho stakes a coin or not; without a coin, not staking is the only answer,
    which the engine takes alone (recorded)."""
    seat = step.seat if step.seat is not None else -1
    if _coins(state, step.piece) < 1:
        return [Gamble(seat, step.piece, False)]
    return [Gamble(seat, step.piece, False), Gamble(seat, step.piece, True)]


def resolve_gamble(ctx: Context, step: Step, action: Gamble) -> None:
    if action.stake:
        ctx.coins(action.piece, -1)
        ctx.coins(action.piece, roll(ctx, action.piece))


def nampo_bonus(ctx: Context, piece: int, card: str, source: str) -> None:
    """Nampo scores the printed price of the meal he takes at an inn."""
    if ctx.registry.cards[card].kind == "meal" and source == INN_HAND:
        ctx.score(piece, "traveller_powers", ctx.registry.cards[card].price)


# --- amulets in use (rules reference, Amulets) ----------------------------------------------


def run_vitality_check(ctx: Context, step: Step) -> None:
    """After the stop is resolved: a traveller now in the lead who may use an amulet
    now is asked whether to use Vitality (whichever amulet it holds: the question
    tells the table nothing; only a Vitality holder can say yes)."""
    state = ctx.state
    p = state.pieces[step.piece]
    if state.rules.board[p.position].inn or state.leader() != step.piece:
        return
    if amulet_window(state, step.piece, step):
        ctx.schedule(Step("crossroads.vitality", step.piece, step.seat))


def legal_vitality(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    if not usable(state, step.piece, c.VITALITY, step):
        return [UseVitality(seat, step.piece, False)]
    return [UseVitality(seat, step.piece, False), UseVitality(seat, step.piece, True)]


def resolve_vitality(ctx: Context, step: Step, action: UseVitality) -> None:
    if action.use:
        spend_amulet(ctx, action.piece, c.VITALITY)
        ctx.schedule(Step("core.move", action.piece, action.seat))


def resolve_fortune(ctx: Context, step: Step, action: UseFortune) -> None:
    spend_amulet(ctx, action.piece, c.FORTUNE)
    ctx.coins(action.piece, roll(ctx, action.piece))


def resolve_friendship(ctx: Context, step: Step, action: FriendshipMove) -> None:
    spend_amulet(ctx, action.piece, c.FRIENDSHIP)
    schedule_arrival(ctx, action.piece)


def friendship_moves(state: GameState, step: Step) -> list[Action]:
    """Stops on a single-slot road space another traveller occupies, up to the next inn."""
    piece = step.piece
    p = state.pieces[piece]
    rules = state.rules
    occupied: dict[int, int] = {}
    for q in state.pieces:
        occupied[q.position] = occupied.get(q.position, 0) + 1
    candidates = tuple(
        pos for pos in range(p.position + 1, rules.next_inn[p.position])
        if rules.slots[pos] == 1 and occupied.get(pos) == 1
    )
    if not candidates:
        return []
    forbidden = rules.ruleset.hooks.forbidden_stops(state, piece, candidates)
    seat = step.seat if step.seat is not None else -1
    return [FriendshipMove(seat, piece, pos, 1) for pos in candidates if pos not in forbidden]


def hospitality_meals(state: GameState, step: Step) -> list[Action]:
    p = state.pieces[step.piece]
    if state.data.get(ate_here_key(step.piece)) == p.position:
        return []
    eaten = meals_eaten(state, step.piece)
    seat = step.seat if step.seat is not None else -1
    meals = [HospitalityMeal(seat, step.piece, m) for m in sorted(set(state.zone(INN_HAND)))
             if m not in eaten]
    if not meals:
        return []
    from tokaido_base import BuyMeal

    return [BuyMeal(seat, step.piece, None), *meals]


def resolve_hospitality(ctx: Context, step: Step, action: HospitalityMeal) -> None:
    spend_amulet(ctx, action.piece, c.HOSPITALITY)
    eat_meal(ctx, action.piece, action.meal, INN_HAND, from_top=False)


def resolve_devotion(ctx: Context, step: Step, action: UseDevotion) -> None:
    spend_amulet(ctx, action.piece, c.DEVOTION)
    ctx.emit_data(devotion_key(action.piece), ctx.state.turn)


def devotion_pay(ctx: Context, piece: int, amount: int, cards: tuple[str, ...]) -> bool:
    """With Devotion active, coins paid for cards become donations.

    ``crossroads.devotion = "stop"`` (printed): every purchase of the stop.
    ``"dearest_card"`` (online): only the next purchase; for souvenirs the printed price
    of the dearest one bought is donated (from the bank where a discount paid less) and
    other coins go to the bank; for anything else the coins paid.
    """
    key = devotion_key(piece)
    if ctx.state.data.get(key) != ctx.state.turn:
        return False
    if ctx.rules.option("crossroads.devotion") == "stop":
        donate(ctx, piece, amount)
        return True
    registry_cards = ctx.registry.cards
    if cards and all(registry_cards[x].kind == "souvenir" for x in cards):
        dearest = max(registry_cards[x].price for x in cards)
        ctx.coins(piece, -max(0, amount - dearest))
        donate(ctx, piece, min(amount, dearest), from_bank=max(0, dearest - amount))
    else:
        donate(ctx, piece, amount)
    ctx.emit_data(key, None)  # spent on this purchase
    return True


PURCHASE_DECISIONS = frozenset({
    "base.buy_souvenirs", "base.meal", "crossroads.option", "crossroads.second_option",
    "crossroads.take_amulet", "crossroads.buy_legendary", "crossroads.take_calligraphy",
})
"""Decisions at which a traveller may switch Devotion on before paying."""
MEAL_DECISION = "base.meal"


# --- end of game: calligraphy (rules reference, Calligraphy) ---------------------------------


def calligraphy_points(state: GameState, piece: int, card: str) -> int:
    p = state.pieces[piece]
    owned = state.collection(piece)
    cards = state.rules.registry.cards
    if card == c.FORESIGHT:
        return 2 * p.coins
    if card == c.CONTEMPLATION:
        complete = sum(1 for k in PANORAMAS if panorama_complete(state, piece, k))
        return 3 * complete + owned.count("cherry_tree")
    if card == c.NOSTALGIA:
        legendary = sum(1 for x in owned if cards[x].kind == "legendary")
        souvenirs = sum(1 for x in owned if cards[x].kind == "souvenir")
        return 2 * legendary + souvenirs
    if card == c.PATIENCE:
        order = sorted(range(len(state.pieces)), key=lambda i: state.pieces[i].slot)
        rank_from_last = len(order) - 1 - order.index(piece)
        return 6 if rank_from_last == 0 else 4 if rank_from_last == 1 else 2
    if card == c.PERFECTION:
        return 2 * achievement_count(state, piece) + sum(
            1 for x in owned if cards[x].kind == "calligraphy")
    if card == c.FASTING:
        return 3 * max(0, 4 - p.counter(INN_MEALS))
    return 0


def run_end_calligraphy(ctx: Context, step: Step) -> None:
    for i, p in enumerate(ctx.state.pieces):
        if p.seat is None:
            continue
        for card in ctx.state.zone(collection_zone(i)):
            if ctx.registry.cards[card].kind == "calligraphy":
                ctx.score(i, "calligraphy", calligraphy_points(ctx.state, i, card))

