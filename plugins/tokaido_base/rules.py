"""The base game's steps and resolvers: setup, every space, inns and the end of game."""

from __future__ import annotations

from itertools import combinations

from tokaido_rules import Action, Context, GameState, Step, TravellerSet

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
from .content import ACHIEVEMENT_POINTS, BATHER, CHATTERBOX, COLLECTOR, GOURMET, PANORAMAS
from .scoring import (
    DONATION,
    achievement_count,
    meals_eaten,
    open_panoramas,
    panorama_sections,
    souvenir_points,
    tagged_count,
    tagged_price,
    temple_ranking,
)

SOUVENIRS = "base.souvenirs"
MEALS = "base.meals"
HOT_SPRINGS = "base.hot_springs"
ENCOUNTERS = "base.encounters"
PANORAMA_SUPPLY = "base.panoramas"
ACHIEVEMENT_SUPPLY = "base.achievements"
VILLAGE_OFFER = "base.village"
INN_HAND = "base.inn_hand"
DRAWN = "base.drawn"
"""Zone family ``base.drawn.<piece>``: cards a traveller has drawn privately and must
decide on (Yoshiyasu, Satsuki); only that traveller's seat sees them."""


def drawn(piece: int) -> str:
    return f"{DRAWN}.{piece}"


def hand_inn(state: GameState) -> int | None:
    """The inn whose meal hand is out: the furthest inn a traveller has reached (nobody
    leaves an inn before the last arrival, when the hand goes back under the deck)."""
    rules = state.rules
    board = rules.board
    start = rules.start
    furthest = None
    for p in state.pieces:  # a loop, not max() of a list: every view of a seat asks
        position = p.position
        if position != start and board[position].inn and (
                furthest is None or position > furthest):
            furthest = position
    return furthest


def inn_hand_visible(state: GameState, seat: int, zone: str) -> bool:
    """A seat sees the inn's meal hand from its own arrival at that inn."""
    at = hand_inn(state)
    return at is not None and state.pieces[seat].position == at

INN_MEALS = "base.inn_meals"
"""Counter: meals a traveller has taken at inns."""


def ate_here_key(piece: int) -> str:
    return f"base.meal_at.{piece}"


# --- shared effects -------------------------------------------------------------------


def gain_souvenir(ctx: Context, piece: int, card: str, source: str, *, from_top: bool) -> None:
    family = ctx.registry.cards[card].family
    points = souvenir_points(ctx.state, piece, family) if family else 0
    ctx.gain(piece, card, source, from_top=from_top, category="souvenirs", points=points)


def take_panorama(ctx: Context, piece: int, kind: str) -> None:
    """Take the next section of a panorama; completing it first earns its achievement."""
    n = panorama_sections(ctx.state, piece, kind) + 1
    if n > PANORAMAS[kind]:
        return
    ctx.gain(piece, f"{kind}.{n}", PANORAMA_SUPPLY, from_top=False, category="panoramas",
             points=n)
    if n == PANORAMAS[kind] and not any(
        f"achievement.{kind}" in ctx.state.collection(i) for i in range(len(ctx.state.pieces))
    ):
        award(ctx, piece, kind)


def award(ctx: Context, piece: int, achievement: str) -> None:
    ctx.gain(piece, f"achievement.{achievement}", ACHIEVEMENT_SUPPLY, from_top=False,
             category="achievements", points=ACHIEVEMENT_POINTS)


def choose_panorama(ctx: Context, piece: int, seat: int | None) -> None:
    """Take a section of a panorama of the traveller's choice (not complete). A single
    open panorama is still a decision, which the engine takes alone (recorded) unless it
    may be refused (``base.panorama_choice_optional``)."""
    options = open_panoramas(ctx.state, piece)
    if options:
        ctx.schedule(Step("base.choose_panorama", piece, seat, {"options": tuple(options)}))


def draw_encounter(ctx: Context, piece: int, seat: int | None, *, keep_one_of_two: bool) -> None:
    """Draw an encounter into the collection and apply it (Yoshiyasu: two, keep one)."""
    deck = ctx.state.zone(ENCOUNTERS)
    if not deck:
        return
    if keep_one_of_two and len(deck) >= 2:
        ctx.move_cards(ENCOUNTERS, drawn(piece), deck[:2], from_top=True)
        ctx.schedule(Step("base.keep_encounter", piece, seat))
        return
    ctx.gain(piece, deck[0], ENCOUNTERS, from_top=True)
    apply_encounter(ctx, piece, seat, deck[0])


def apply_encounter(ctx: Context, piece: int, seat: int | None, card: str) -> None:
    effect = ctx.registry.cards[card].effect
    if effect is not None:
        ctx.schedule(Step(effect, piece, seat, {"card": card}))


def eat_meal(ctx: Context, piece: int, meal: str, source: str, *, from_top: bool) -> None:
    card = ctx.registry.cards[meal]
    ctx.gain(piece, meal, source, from_top=from_top, category="meals", points=card.points)
    ctx.count(piece, INN_MEALS, 1)
    ctx.emit_data(ate_here_key(piece), ctx.state.pieces[piece].position)


# --- setup ------------------------------------------------------------------------------


def set_traveller(ctx: Context, seat: int, name: str) -> None:
    ctx.emit(TravellerSet(seat, name))
    ctx.coins(seat, ctx.registry.travellers[name].coins)


def run_offer_travellers(ctx: Context, step: Step) -> None:
    given = ctx.rules.setup.travellers
    if given is not None:
        for seat, name in enumerate(given):
            set_traveller(ctx, seat, name)
        return
    pool = sorted(ctx.registry.travellers)
    for seat in range(ctx.rules.players):
        kind = f"travellers.{seat}"
        scripted = ctx.scripted(kind)
        if scripted is not None:
            offer = tuple(scripted)
            if len(offer) != 2 or len(set(offer)) != 2 or not set(offer) <= set(pool):
                from tokaido_rules import SetupError

                raise SetupError(f"scripted {kind!r} must be 2 of {pool}, got {scripted!r}")
        else:
            first = pool[ctx.random_below(len(pool), kind)]
            rest = [t for t in pool if t != first]
            offer = (first, rest[ctx.random_below(len(rest), kind)])
        ctx.emit(TravellersOffered(seat, offer))
        pool = [t for t in pool if t not in offer]
    ctx.schedule(*(Step("base.choose_traveller", seat, seat) for seat in range(ctx.rules.players)))


def legal_choose_traveller(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    return [ChooseTraveller(seat, t) for t in sorted(state.data.get(f"base.offer.{seat}", ()))]


def resolve_choose_traveller(ctx: Context, step: Step, action: ChooseTraveller) -> None:
    set_traveller(ctx, action.seat, action.traveller)


# --- spaces -------------------------------------------------------------------------------


def run_farm(ctx: Context, step: Step) -> None:
    ctx.coins(step.piece, 3)


def run_panorama(ctx: Context, step: Step) -> None:
    p = ctx.state.pieces[step.piece]
    take_panorama(ctx, step.piece, ctx.rules.board[p.position].kind)


def run_hot_spring(ctx: Context, step: Step) -> None:
    deck = ctx.state.zone(HOT_SPRINGS)
    if deck:
        card = ctx.registry.cards[deck[0]]
        ctx.gain(step.piece, deck[0], HOT_SPRINGS, category="hot_springs", points=card.points)


def run_village(ctx: Context, step: Step) -> None:
    ctx.move_cards(SOUVENIRS, VILLAGE_OFFER, ctx.state.zone(SOUVENIRS)[:3], from_top=True)
    ctx.schedule(Step("base.buy_souvenirs", step.piece, step.seat), Step("base.village_end"))


Purchase = tuple[tuple[str, ...], str | None]
"""Souvenirs bought and the card Zen-emon discounts."""


def _souvenir_options(state: GameState, step: Step) -> dict[Purchase, int]:
    """Every affordable purchase -> its cost."""
    offer = state.zone(VILLAGE_OFFER)
    cards = state.rules.registry.cards
    coins = state.pieces[step.piece].coins
    options: dict[Purchase, int] = {}
    for r in range(len(offer) + 1):
        for combo in combinations(offer, r):
            prices = tuple(cards[c].price for c in combo)
            for discount, cost, needed in tv.souvenir_prices(state, step.piece, prices, combo):
                if needed <= coins:
                    options.setdefault((combo, discount), cost)
    return options


def legal_buy_souvenirs(state: GameState, step: Step) -> list[Action]:
    """Every affordable purchase, "buy nothing" first. With nothing affordable, "buy
    nothing" is the only answer, which the engine takes alone (the offer and the coins
    are public)."""
    options = _souvenir_options(state, step)
    seat = step.seat if step.seat is not None else -1
    return [BuySouvenirs(seat, step.piece, cards, discount)
            for cards, discount in sorted(options, key=_purchase_order)]


def _purchase_order(purchase: Purchase) -> tuple[tuple[str, ...], bool, str]:
    """The canonical order of purchases: by the cards, then no discount first."""
    cards, discount = purchase
    return cards, discount is not None, discount or ""


def explain_buy_souvenirs(state: GameState, step: Step, action: Action) -> str | None:
    if not isinstance(action, BuySouvenirs):
        return None
    offer = list(state.zone(VILLAGE_OFFER))
    for c in action.cards:
        if c not in offer:
            return f"{c} is not among the revealed souvenirs {state.zone(VILLAGE_OFFER)}"
        offer.remove(c)
    cards = state.rules.registry.cards
    price = sum(cards[c].price for c in action.cards)
    return (f"cannot buy {', '.join(action.cards)} (printed price {price}) with "
            f"{state.pieces[step.piece].coins} coins this way")


def _purchase_cost(state: GameState, piece: int, cards: tuple[str, ...],
                   discount: str | None) -> int:
    """What a legal purchase costs (its own price only: the engine has checked it is one
    of the options)."""
    registry_cards = state.rules.registry.cards
    prices = tuple(registry_cards[c].price for c in cards)
    for named, cost, _ in tv.souvenir_prices(state, piece, prices, cards):
        if named == discount:
            return cost
    raise AssertionError(f"no price for {cards} with discount {discount}")


def resolve_buy_souvenirs(ctx: Context, step: Step, action: BuySouvenirs) -> None:
    cost = _purchase_cost(ctx.state, action.piece, action.cards, action.discount)
    ctx.pay_for_cards(action.piece, cost, action.cards)
    for card in action.cards:
        gain_souvenir(ctx, action.piece, card, VILLAGE_OFFER, from_top=False)


def run_village_end(ctx: Context, step: Step) -> None:
    ctx.return_to_bottom(VILLAGE_OFFER, SOUVENIRS, ctx.state.zone(VILLAGE_OFFER))


def legal_donate(state: GameState, step: Step) -> list[Action]:
    coins = state.pieces[step.piece].coins
    seat = step.seat if step.seat is not None else -1
    return [Donate(seat, step.piece, amount) for amount in range(1, min(3, coins) + 1)]


def explain_donate(state: GameState, step: Step, action: Action) -> str | None:
    if isinstance(action, Donate):
        if not 1 <= action.amount <= 3:
            return "a donation is 1, 2 or 3 coins"
        if action.amount > state.pieces[step.piece].coins:
            return f"cannot donate {action.amount} with {state.pieces[step.piece].coins} coins"
    return None


def donate(ctx: Context, piece: int, coins: int, *, from_bank: int = 0) -> None:
    """Put coins on a traveller's temple donation: +1 point each."""
    ctx.coins(piece, -coins)
    ctx.count(piece, DONATION, coins + from_bank)
    ctx.score(piece, "temple_donations", coins + from_bank)


def resolve_donate(ctx: Context, step: Step, action: Donate) -> None:
    donate(ctx, action.piece, action.amount)
    after_temple_action(ctx, action.piece)


def after_temple_action(ctx: Context, piece: int) -> None:
    """What follows each temple action a traveller takes (the donation, or a plugin's
    own temple option): Hirotada's automatic bank coin."""
    if tv.bank_coin_after_temple_action(ctx.state, piece):
        donate(ctx, piece, 0, from_bank=1)


def run_hirotada(ctx: Context, step: Step) -> None:
    """Hirotada's bank coin at a temple stop, his decision (option ``"choice"``; with
    ``"auto"`` it follows each temple action instead: :func:`after_temple_action`)."""
    ctx.schedule(Step("base.bank_coin", step.piece, step.seat))


def legal_bank_coin(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    return [AddBankCoin(seat, step.piece, False), AddBankCoin(seat, step.piece, True)]


def resolve_bank_coin(ctx: Context, step: Step, action: AddBankCoin) -> None:
    if action.add:
        donate(ctx, action.piece, 0, from_bank=1)


def run_umegae(ctx: Context, step: Step) -> None:
    """Umegae: +1 point and +1 coin at each encounter stop, before the card."""
    ctx.score(step.piece, tv.POWER, 1)
    ctx.coins(step.piece, 1)


def run_encounter(ctx: Context, step: Step) -> None:
    draw_encounter(ctx, step.piece, step.seat,
                   keep_one_of_two=tv.draws_two_encounters(ctx.state, step.piece))


def legal_keep_encounter(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    return [KeepEncounter(seat, step.piece, c) for c in sorted(set(state.zone(drawn(step.piece))))]


def resolve_keep_encounter(ctx: Context, step: Step, action: KeepEncounter) -> None:
    zone = drawn(action.piece)
    others = list(ctx.state.zone(zone))
    others.remove(action.card)
    ctx.gain(action.piece, action.card, zone, from_top=False)
    ctx.move_cards(zone, ENCOUNTERS, others)
    apply_encounter(ctx, action.piece, action.seat, action.card)


def run_neutral_temple(ctx: Context, step: Step) -> None:
    donate_for_neutral(ctx, step.piece)


def donate_for_neutral(ctx: Context, piece: int) -> None:
    """The neutral traveller's temple stop: 1 coin from the bank on its donation."""
    ctx.count(piece, DONATION, 1)


# --- encounter effects ----------------------------------------------------------------------


def effect_shokunin(ctx: Context, step: Step) -> None:
    deck = ctx.state.zone(SOUVENIRS)
    if deck:
        gain_souvenir(ctx, step.piece, deck[0], SOUVENIRS, from_top=True)


def effect_samurai(ctx: Context, step: Step) -> None:
    ctx.score(step.piece, "encounters", 3)


def effect_kuge(ctx: Context, step: Step) -> None:
    ctx.coins(step.piece, 3)


def effect_miko(ctx: Context, step: Step) -> None:
    ctx.count(step.piece, DONATION, 1)
    ctx.score(step.piece, "temple_donations", 1)


def effect_annaibito(ctx: Context, step: Step) -> None:
    kind = str(step.data["card"]).split(".")[1]
    if panorama_sections(ctx.state, step.piece, kind) < PANORAMAS[kind]:
        take_panorama(ctx, step.piece, kind)
    else:
        choose_panorama(ctx, step.piece, step.seat)


def legal_choose_panorama(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    still_open = open_panoramas(state, step.piece)
    actions: list[Action] = [ChoosePanorama(seat, step.piece, k)
                             for k in sorted(step.data["options"]) if k in still_open]
    if actions and state.rules.option("base.panorama_choice_optional"):
        actions.insert(0, ChoosePanorama(seat, step.piece, None))
    return actions


def resolve_choose_panorama(ctx: Context, step: Step, action: ChoosePanorama) -> None:
    if action.panorama is not None:
        take_panorama(ctx, action.piece, action.panorama)


# --- inns ---------------------------------------------------------------------------------


def run_hiroshige(ctx: Context, step: Step) -> None:
    choose_panorama(ctx, step.piece, step.seat)


def run_chuubei(ctx: Context, step: Step) -> None:
    draw_encounter(ctx, step.piece, step.seat, keep_one_of_two=False)


def run_satsuki_draw(ctx: Context, step: Step) -> None:
    """Satsuki draws a meal privately; she always decides on it, even on one she has
    eaten (which she can only return), so that the others learn nothing of the card."""
    deck = ctx.state.zone(MEALS)
    if not deck:
        return
    ctx.move_cards(MEALS, drawn(step.piece), deck[:1], from_top=True)
    ctx.schedule(Step("base.satsuki_meal", step.piece, step.seat))


def legal_satsuki_meal(state: GameState, step: Step) -> list[Action]:
    seat = step.seat if step.seat is not None else -1
    keep = [SatsukiMeal(seat, step.piece, True)]
    if set(state.zone(drawn(step.piece))) <= set(meals_eaten(state, step.piece)):
        keep = []  # never the same meal twice
    return [SatsukiMeal(seat, step.piece, False), *keep]


def resolve_satsuki_meal(ctx: Context, step: Step, action: SatsukiMeal) -> None:
    zone = drawn(action.piece)
    card = ctx.state.zone(zone)[:1]
    if action.keep:
        eat_meal(ctx, action.piece, card[0], zone, from_top=True)
    else:
        ctx.move_cards(zone, MEALS, card, from_top=True)


def hand_size(state: GameState) -> int:
    if state.rules.option("base.meal_hand") == "players":
        return state.rules.players
    return state.rules.players + 1


def run_inn_hand(ctx: Context, step: Step) -> None:
    """The first traveller to arrive draws the inn's meal hand."""
    if ctx.state.pieces[step.piece].slot == 0:
        ctx.move_cards(MEALS, INN_HAND, ctx.state.zone(MEALS)[: hand_size(ctx.state)],
                       from_top=True)


def _meal_options(state: GameState, step: Step) -> dict[str, int]:
    p = state.pieces[step.piece]
    if state.data.get(ate_here_key(step.piece)) == p.position:
        return {}
    eaten = meals_eaten(state, step.piece)
    cards = state.rules.registry.cards
    options = {}
    for meal in sorted(set(state.zone(INN_HAND))):
        cost = tv.meal_price(state, step.piece, cards[meal].price)
        if meal not in eaten and cost <= p.coins:
            options[meal] = cost
    return options


def legal_buy_meal(state: GameState, step: Step) -> list[Action]:
    """"No meal" and every affordable meal of the hand; nothing (the decision lapses)
    only where every seat can see why: an empty hand, or a meal already taken here.

    With nothing affordable, "no meal" is the only answer: the engine takes it alone
    where every seat sees the hand (:func:`hand_seen_by_all`), and asks it otherwise, so
    that whether a traveller is asked never tells the others what the hand holds.
    """
    p = state.pieces[step.piece]
    if not state.zone(INN_HAND) or state.data.get(ate_here_key(step.piece)) == p.position:
        return []
    seat = step.seat if step.seat is not None else -1
    options = _meal_options(state, step)
    return [BuyMeal(seat, step.piece, None), *(BuyMeal(seat, step.piece, m) for m in options)]


def hand_seen_by_all(state: GameState, step: Step) -> bool:
    """Whether every seat sees the inn's meal hand (each has arrived at that inn)."""
    at = hand_inn(state)
    return at is not None and all(p.position == at for p in state.pieces if p.seat is not None)


def explain_buy_meal(state: GameState, step: Step, action: Action) -> str | None:
    if not isinstance(action, BuyMeal) or action.meal is None:
        return None
    if action.meal not in state.zone(INN_HAND):
        return f"{action.meal} is not in the inn's hand"
    if action.meal in meals_eaten(state, step.piece):
        return f"{action.meal} was already eaten: never the same meal twice"
    return f"{action.meal} costs more than the {state.pieces[step.piece].coins} coins available"


def resolve_buy_meal(ctx: Context, step: Step, action: BuyMeal) -> None:
    if action.meal is None:
        return
    cost = tv.meal_price(ctx.state, action.piece, ctx.registry.cards[action.meal].price)
    ctx.pay_for_cards(action.piece, cost, (action.meal,))
    eat_meal(ctx, action.piece, action.meal, INN_HAND, from_top=False)


def run_neutral_discard(ctx: Context, step: Step) -> None:
    """The neutral traveller discards a random card of the inn's hand, unseen."""
    hand = ctx.state.zone(INN_HAND)
    if hand:
        kind = f"discard.{INN_HAND}"
        card = ctx.random_pick(kind, hand)
        ctx.move_cards(INN_HAND, MEALS, (card,), chance=kind)


def run_inn_close(ctx: Context, step: Step) -> None:
    """When the last traveller has arrived, the unbought meals go under the deck."""
    position = ctx.state.pieces[step.piece].position
    if all(p.position == position for p in ctx.state.pieces):
        ctx.return_to_bottom(INN_HAND, MEALS, ctx.state.zone(INN_HAND))


# --- end of game ------------------------------------------------------------------------------


END_ACHIEVEMENTS = (
    ("gourmet", GOURMET, tagged_price),  # total printed price of meals
    ("collector", COLLECTOR, tagged_count),
    ("bather", BATHER, tagged_count),
    ("chatterbox", CHATTERBOX, tagged_count),
)


def run_end_achievements(ctx: Context, step: Step) -> None:
    """Each end achievement goes to every traveller with the highest count (not 0)."""
    seated = [i for i, p in enumerate(ctx.state.pieces) if p.seat is not None]
    for name, tag, measure in END_ACHIEVEMENTS:
        values = {i: measure(ctx.state, i, tag) for i in seated}
        best = max(values.values())
        if best > 0:
            for i in seated:
                if values[i] == best:
                    award(ctx, i, name)


def run_end_temple(ctx: Context, step: Step) -> None:
    pieces = ctx.state.pieces
    points = temple_ranking([p.counter(DONATION) for p in pieces])
    for i, p in enumerate(pieces):
        if p.seat is not None:
            ctx.score(i, "temple_ranking", points[i])


def tiebreak(state: GameState, piece: int) -> int:
    return achievement_count(state, piece)
