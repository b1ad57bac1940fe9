"""The fast simulator plays exactly the reference's games with the New Encounters promo
cards (Itamae, Kitoushi, Saru, Takuhatsuso).

Random games at every player count, with and without the ``bga`` preset, compared with
the reference at every decision; then crafted games (stacked and cut decks, chosen
travellers and coins, every piece on a route of its own) for each card and each branch
of its rule, where the fast and the reference game are compared at every decision too,
and the rule's outcome is checked on the reference's state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

import pytest

from tokaido_rules import Action, Game, Move, Ruleset, Setup, new_game
from tokaido_rules.fast import FastGame, _Policy, compare, covers, differential
from tokaido_rules.testing import covered_plugin_sets, covered_rulesets

NE = Ruleset.build(["base", "new-encounters"])
NE_BGA = Ruleset.build(["base", "new-encounters", "bga"])
ENCOUNTERS, MEALS, HOT_SPRINGS = "base.encounters", "base.meals", "base.hot_springs"
PAY, KITOUSHI = "new-encounters.pay", "new-encounters.kitoushi"
PROMOS = ("itamae", "kitoushi", "saru", "takuhatsuso")
CHOICES = {"itamae": "new-encounters.itamae_choice",
           "takuhatsuso": "new-encounters.takuhatsuso_choice",
           "kitoushi": "new-encounters.kitoushi_choice"}
PANORAMA_ROUTE = (4, 6, 11, 12, 14, 15, 18, 19, 23, 24, 27, 28)
"""Stops that complete the paddy (4, 18, 28) and mountain (6, 12, 19, 23) panoramas and
give three sea sections (11, 15, 24), by way of the first two inns."""


def test_covers_new_encounters_with_base_and_bga() -> None:
    assert covers(NE) and covers(NE_BGA)
    assert ("base", "new-encounters") in covered_plugin_sets()
    assert ("base", "bga", "new-encounters") in covered_plugin_sets()
    assert (("base", "new-encounters"), {}) in covered_rulesets()
    assert covers(Ruleset.build(["base", "new-encounters", "crossroads"]))
    game = FastGame.new(3, seed=1, plugins=["base", "new-encounters"])
    assert game.ruleset.ids == NE.ids


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("ruleset", [NE, NE_BGA], ids=["base", "bga"])
def test_random_games_equal_the_reference_at_every_decision(players: int,
                                                            ruleset: Ruleset) -> None:
    """Offered and given travellers; random, eager (paying whenever asked) and seek
    (decks run out) choices: the same decisions, scores and logs."""
    base = 100 * players
    reports = [
        differential(players, range(base, base + 12), plugins=ruleset),
        differential(players, range(base + 12, base + 24), plugins=ruleset, travellers=True,
                     policy="eager"),
        differential(players, range(base + 24, base + 36), plugins=ruleset,
                     travellers=True, policy="seek", logs=False),
    ]
    for report in reports:
        assert report.ok, str(report)


@pytest.mark.parametrize("options", [
    {"base.meal_hand": "players", "base.hirotada_bank_coin": "auto",
     "base.zenemon_discount": "most_expensive", "base.panorama_choice_optional": True},
    {"base.meal_hand": "players_plus_one", "base.hirotada_bank_coin": "choice",
     "base.zenemon_discount": "choice", "base.panorama_choice_optional": False},
], ids=["changed", "bga-undone"])
def test_with_the_base_options_changed(options: dict[str, object]) -> None:
    """Every base option away from its default; and bga with each option set back."""
    ruleset = Ruleset.build(["base", "new-encounters", *(
        ["bga"] if options["base.meal_hand"] == "players_plus_one" else [])], options)
    assert covers(ruleset)
    report = differential((2, 3, 4, 5), range(8), plugins=ruleset, travellers=True,
                          policy="eager")
    assert report.ok, str(report)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_promo_cards_on_top_of_the_deck(players: int) -> None:
    """The four promo cards stacked on top, so that every game meets them early, with
    every traveller among the given ones in turn."""
    promos = Setup(stacks={ENCOUNTERS: ("kitoushi", "takuhatsuso", "itamae", "saru")})
    for policy in ("random", "eager"):
        report = differential(players, range(12), plugins=NE, travellers=True,
                              policy=policy, setup=promos)
        assert report.ok, str(report)


@pytest.mark.parametrize("seed", range(16))
def test_decks_that_run_out_are_played_exactly(seed: int) -> None:
    """The promo cards on top of an encounter deck cut short, the meal and hot spring
    decks too: Yoshiyasu finds one card or none, Saru and Itamae an empty deck."""
    rng = random.Random(seed)
    players = 2 + seed % 4
    names = rng.sample(["yoshiyasu", "chuubei", "umegae", "mitsukuni", "kinko", "satsuki",
                        "hiroshige", "zenemon", "sasayakko", "hirotada"], players)
    promos = list(PROMOS)
    rng.shuffle(promos)
    setup = Setup(travellers=tuple(names), stacks={ENCOUNTERS: tuple(promos)})
    game = new_game(players, seed=seed, plugins=NE, setup=setup)
    fast = FastGame.new(players, seed=seed, plugins=NE, setup=setup)
    state = game.state
    for zone, attribute, count in ((ENCOUNTERS, "encounters", rng.randrange(1, 7)),
                                   (MEALS, "meals", rng.randrange(0, 9)),
                                   (HOT_SPRINGS, "springs", rng.randrange(0, 4))):
        state = state.with_zone(zone, state.zone(zone)[:count])
        setattr(fast, attribute, getattr(fast, attribute)[:count])
    policy = _Policy(rng.choice(["random", "eager", "seek"]), rng, NE.registry.board)
    difference, made = compare(Game(state, ()), fast, policy, logs=False)
    assert difference is None, difference
    assert made > 0


# --- crafted games ---------------------------------------------------------------------------


class Twin:
    """A reference game and a fast game of the same setup, played side by side and
    compared at every decision (seat, step kind, legal actions, count of events, coins
    and scores). Each piece follows its ``routes`` (stops at the nearest free position
    of its route ahead, else the inn ahead); ``answers`` choose, per step kind, among
    the legal actions (else the first: decline, buy nothing, no meal)."""

    def __init__(self, players: int, travellers: Sequence[str], *,
                 routes: Mapping[int, Sequence[int]] | None = None,
                 stacks: Mapping[str, Sequence[str]] | None = None,
                 cut: Mapping[str, int] | None = None,
                 coins: Mapping[int, int] | None = None,
                 queue: Sequence[int] | None = None,
                 answers: Mapping[str, Callable[[Action], bool]] | None = None,
                 ruleset: Ruleset = NE, seed: int = 0) -> None:
        pieces = players + (1 if players == 2 else 0)
        # the last of the queue moves first: piece 0, then the others in turn
        queue = tuple(queue) if queue is not None else (*range(1, pieces), 0)
        setup = Setup(travellers=tuple(travellers), queue=queue,
                      stacks={k: tuple(v) for k, v in (stacks or {}).items()},
                      coins=dict(coins or {}))
        self.game = new_game(players, seed=seed, plugins=ruleset, setup=setup)
        self.fast = FastGame.new(players, seed=seed, plugins=ruleset, setup=setup)
        self.cut = bool(cut)
        if cut:  # both games with decks cut to their top cards (as in test_fast.py)
            state = self.game.state
            lists = {ENCOUNTERS: "encounters", MEALS: "meals", HOT_SPRINGS: "springs"}
            for zone, count in cut.items():
                state = state.with_zone(zone, state.zone(zone)[:count])
                setattr(self.fast, lists[zone], getattr(self.fast, lists[zone])[:count])
            self.game = Game(state, ())
        self.routes = {piece: tuple(route) for piece, route in (routes or {}).items()}
        self.answers = dict(answers or {})
        self.kinds: list[str] = []
        self.check()

    @property
    def kind(self) -> str | None:
        step = self.game.current_step
        return None if step is None else step.kind

    def check(self) -> None:
        game, fast = self.game, self.fast
        assert fast.state_seq == game.state.seq
        assert (fast.current_player, fast.is_over) == (game.current_player, game.is_over)
        assert fast.current_kind == self.kind
        assert fast.legal_actions() == game.legal_actions()
        assert fast.coins == [p.coins for p in game.state.pieces]
        assert fast.scores() == game.scores()

    def choose(self) -> int:
        legal = self.game.legal_actions()
        first = legal[0]
        if isinstance(first, Move):
            here = self.game.state.pieces[first.piece].position
            for stop in self.routes.get(first.piece, ()):
                if stop > here:
                    for i, move in enumerate(legal):
                        if isinstance(move, Move) and move.position == stop:
                            return i
            return len(legal) - 1  # the inn ahead
        wanted = self.answers.get(self.kind or "")
        if wanted is not None:
            for i, action in enumerate(legal):
                if wanted(action):
                    return i
        return 0

    def play(self, until: Callable[[Twin], bool] | None = None) -> Twin:
        """Play on until ``until`` holds (checked before each decision) or the game ends."""
        while not self.game.is_over and not (until is not None and until(self)):
            index = self.choose()
            self.kinds.append(self.kind or "")
            action = self.game.legal_actions()[index]
            self.game = self.game.apply(action)
            self.fast.apply(self.fast.legal_actions()[index])
            self.check()
        return self

    def until_kind(self, kind: str) -> Twin:
        self.play(lambda t: t.kind == kind)
        assert self.kind == kind, f"no {kind} decision came"
        return self

    def until_at(self, piece: int, position: int) -> Twin:
        """Play until ``piece`` has arrived at ``position`` and its stop is resolved up to
        the next decision."""
        self.play(lambda t: t.game.state.pieces[piece].position == position)
        assert self.game.state.pieces[piece].position == position
        return self

    def answer(self, **fields: object) -> Twin:
        """Apply the legal action with these field values."""
        legal = self.game.legal_actions()
        index = next(i for i, a in enumerate(legal)
                     if all(getattr(a, k) == v for k, v in fields.items()))
        self.kinds.append(self.kind or "")
        self.game = self.game.apply(legal[index])
        self.fast.apply(self.fast.legal_actions()[index])
        self.check()
        return self

    def finish(self) -> Twin:
        """The rest of the game by the routes, then the end compared (scores, and the log
        of the fast game's replay unless decks were cut)."""
        self.play()
        difference, _ = compare(self.game, self.fast, lambda legal: 0, logs=not self.cut)
        assert difference is None, difference
        return self

    # the reference's state, read for the rule's outcome
    def coins(self, piece: int) -> int:
        return self.game.state.pieces[piece].coins

    def points(self, piece: int, category: str) -> int:
        return self.game.state.pieces[piece].score.get(category, 0)

    def collection(self, piece: int) -> tuple[str, ...]:
        return self.game.state.collection(piece)

    def zone(self, name: str) -> tuple[str, ...]:
        return self.game.state.zone(name)


def pays(yes: bool) -> Callable[[Action], bool]:
    return lambda action: getattr(action, "pay", None) is yes


def test_the_first_stop_is_the_routed_encounter() -> None:
    twin = Twin(3, ("hiroshige", "kinko", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("samurai",)})
    twin.until_at(0, 3)
    assert "samurai" in twin.collection(0) and twin.points(0, "encounters") == 3
    twin.finish()


@pytest.mark.parametrize("pay", [False, True])
def test_takuhatsuso_one_coin_for_four_points(pay: bool) -> None:
    twin = Twin(3, ("hiroshige", "kinko", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("takuhatsuso",)})
    twin.until_kind(CHOICES["takuhatsuso"])
    legal = twin.game.legal_actions()
    assert [(a.TYPE, getattr(a, "card", None), getattr(a, "pay", None)) for a in legal] == [
        (PAY, "takuhatsuso", False), (PAY, "takuhatsuso", True)]
    twin.answer(pay=pay)
    assert "takuhatsuso" in twin.collection(0)
    assert twin.coins(0) == (2 if pay else 3)
    assert twin.points(0, "encounters") == (4 if pay else 0)
    twin.finish()


@pytest.mark.parametrize("card", ["itamae", "kitoushi", "takuhatsuso"])
def test_without_a_coin_no_payment_is_offered_and_the_card_counts_for_chatterbox(
        card: str) -> None:
    """The card joins the collection unpaid; the only encounter card of the game, it wins
    Chatterbox."""
    twin = Twin(3, ("hiroshige", "kinko", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: (card,)}, coins={0: 0})
    twin.until_at(0, 3)
    assert card in twin.collection(0) and twin.coins(0) == 0
    twin.finish()
    assert not any(kind.startswith("new-encounters") for kind in twin.kinds)
    assert "achievement.chatterbox" in twin.collection(0)
    assert not any("achievement.chatterbox" in twin.collection(i) for i in (1, 2))


def test_umegae_pays_with_the_coin_of_her_power() -> None:
    """Umegae's coin comes before the card: with none of her own, she may pay."""
    twin = Twin(3, ("umegae", "kinko", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("takuhatsuso",)}, coins={0: 0})
    twin.until_kind(CHOICES["takuhatsuso"]).answer(pay=True)
    assert twin.coins(0) == 0
    assert twin.points(0, "encounters") == 4 and twin.points(0, "traveller_powers") == 1
    twin.finish()


@pytest.mark.parametrize("pay", [False, True])
def test_itamae_a_meal_not_eaten_joins_the_collection_at_full_price_for_kinko(
        pay: bool) -> None:
    """Kinko pays the whole coin (not a card price); the meal scores as a meal."""
    twin = Twin(3, ("kinko", "hiroshige", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("itamae",), MEALS: ("sushi", "fugu")})
    twin.until_kind(CHOICES["itamae"]).answer(pay=pay)
    assert "itamae" in twin.collection(0)
    if pay:
        assert twin.coins(0) == 6 and twin.points(0, "meals") == 6
        assert "sushi" in twin.collection(0) and twin.zone(MEALS)[0] == "fugu"
    else:
        assert twin.coins(0) == 7 and twin.points(0, "meals") == 0
        assert twin.zone(MEALS)[:2] == ("sushi", "fugu")
    twin.finish()


def test_itamae_a_meal_already_eaten_goes_under_the_deck() -> None:
    """Satsuki, last at the first inn, eats her free dango (the first to arrive dealt the
    four cards above it, back under the deck at her arrival) and leaves first; Itamae
    then draws the second dango: the coin is paid, the meal goes to the bottom, no
    points."""
    twin = Twin(3, ("satsuki", "kinko", "zenemon"), routes={0: (14, 20)}, coins={0: 5},
                queue=(0, 1, 2),
                stacks={ENCOUNTERS: ("itamae",),
                        MEALS: ("tofu", "soba", "udon", "fugu", "dango", "dango", "sushi")},
                answers={"base.satsuki_meal": lambda a: getattr(a, "keep", None) is True})
    twin.until_kind(CHOICES["itamae"])
    assert "dango" in twin.collection(0) and twin.points(0, "meals") == 6
    assert twin.zone(MEALS)[0] == "dango"
    twin.answer(pay=True)
    assert twin.coins(0) == 4 and twin.points(0, "meals") == 6
    assert twin.collection(0).count("dango") == 1
    assert twin.zone(MEALS)[0] == "sushi" and twin.zone(MEALS)[-1] == "dango"
    twin.finish()


@pytest.mark.parametrize("first", [True, False])
def test_chuubei_meets_itamae_at_an_inn_and_still_buys_a_meal(first: bool) -> None:
    """Chuubei's inn encounter, before the hand is dealt (first to arrive) or after it
    (last): Itamae's meal is no inn meal, so the meal decision follows."""
    meals = ("tofu", "soba", "udon", "fugu")
    twin = Twin(3, ("chuubei", "kinko", "zenemon"), routes={0: (14,)},
                queue=None if first else (0, 1, 2),
                stacks={ENCOUNTERS: ("itamae",),
                        MEALS: ("sushi", *meals) if first else (*meals, "sushi")})
    twin.until_kind(CHOICES["itamae"]).answer(pay=True)
    assert "sushi" in twin.collection(0) and twin.coins(0) == 3
    assert sorted(twin.zone("base.inn_hand")) == sorted(meals)
    assert twin.kind == "base.meal"
    twin.answer(meal="tofu")
    assert twin.points(0, "meals") == 12 and twin.coins(0) == 1
    twin.finish()


def test_itamae_with_an_empty_meal_deck_asks_nothing() -> None:
    twin = Twin(3, ("kinko", "hiroshige", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("itamae",)}, cut={MEALS: 0})
    twin.until_at(0, 3)
    assert "itamae" in twin.collection(0) and twin.coins(0) == 7
    twin.finish()
    assert CHOICES["itamae"] not in twin.kinds


def test_kitoushi_offers_every_open_panorama() -> None:
    twin = Twin(3, ("kinko", "hiroshige", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("kitoushi",)})
    twin.until_kind(CHOICES["kitoushi"])
    assert [(a.TYPE, getattr(a, "panorama", "")) for a in twin.game.legal_actions()] == [
        (KITOUSHI, None), (KITOUSHI, "mountain"), (KITOUSHI, "paddy"), (KITOUSHI, "sea")]
    twin.answer(panorama="mountain")
    assert "mountain.1" in twin.collection(0) and twin.points(0, "panoramas") == 1
    assert twin.coins(0) == 6
    twin.finish()


@pytest.mark.parametrize("pay", [False, True])
def test_kitoushi_only_the_open_panorama(pay: bool) -> None:
    """Paddy and mountain complete: only the sea is offered (its fourth section)."""
    twin = Twin(3, ("sasayakko", "kinko", "zenemon"), routes={0: (*PANORAMA_ROUTE, 30)},
                stacks={ENCOUNTERS: ("kitoushi",)})
    twin.until_kind(CHOICES["kitoushi"])
    assert [getattr(a, "panorama", "") for a in twin.game.legal_actions()] == [None, "sea"]
    before = twin.points(0, "panoramas")
    twin.answer(panorama="sea" if pay else None)
    assert twin.coins(0) == (4 if pay else 5)
    assert twin.points(0, "panoramas") == before + (4 if pay else 0)
    assert ("sea.4" in twin.collection(0)) is pay
    twin.finish()


def test_kitoushi_completing_a_panorama_gives_its_achievement_and_mitsukuni_a_point() -> None:
    twin = Twin(3, ("mitsukuni", "kinko", "zenemon"),
                routes={0: (*PANORAMA_ROUTE, 34, 38)}, stacks={ENCOUNTERS: ("kitoushi",)})
    twin.until_kind(CHOICES["kitoushi"])
    power, achievements = twin.points(0, "traveller_powers"), twin.points(0, "achievements")
    twin.answer(panorama="sea")
    assert "sea.5" in twin.collection(0) and "achievement.sea" in twin.collection(0)
    assert twin.points(0, "traveller_powers") == power + 1
    assert twin.points(0, "achievements") > achievements
    twin.finish()


def test_kitoushi_with_every_panorama_complete_asks_nothing() -> None:
    twin = Twin(3, ("sasayakko", "kinko", "zenemon"),
                routes={0: (*PANORAMA_ROUTE, 34, 39, 41, 44)},
                stacks={ENCOUNTERS: ("kitoushi",)})
    twin.until_at(0, 44)
    assert "kitoushi" in twin.collection(0) and twin.coins(0) == 5
    assert {"sea.5", "paddy.3", "mountain.4"} <= set(twin.collection(0))
    twin.finish()
    assert CHOICES["kitoushi"] not in twin.kinds


@pytest.mark.parametrize("coins", [0, 3])
def test_saru_a_hot_spring_card_at_once_and_mitsukuni_a_point(coins: int) -> None:
    twin = Twin(3, ("mitsukuni", "kinko", "zenemon"), routes={0: (3,)}, coins={0: coins},
                stacks={ENCOUNTERS: ("saru",), HOT_SPRINGS: ("hot_spring.3",)})
    twin.until_at(0, 3)
    assert {"saru", "hot_spring.3"} <= set(twin.collection(0))
    assert twin.points(0, "hot_springs") == 3 and twin.points(0, "traveller_powers") == 1
    assert twin.coins(0) == coins
    twin.finish()


def test_saru_with_an_empty_hot_spring_deck_gives_nothing() -> None:
    twin = Twin(3, ("mitsukuni", "kinko", "zenemon"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("saru",)}, cut={HOT_SPRINGS: 0})
    twin.until_at(0, 3)
    assert "saru" in twin.collection(0)
    assert twin.points(0, "hot_springs") == 0 and twin.points(0, "traveller_powers") == 0
    twin.finish()


@pytest.mark.parametrize("keep", ["takuhatsuso", "samurai"])
def test_yoshiyasu_draws_a_promo_among_two(keep: str) -> None:
    """Yoshiyasu keeps one of two cards, the other goes under the deck; a kept promo
    card then asks for its coin."""
    twin = Twin(2, ("yoshiyasu", "kinko"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("takuhatsuso", "samurai")})
    twin.until_kind("base.keep_encounter")
    assert [getattr(a, "card", None) for a in twin.game.legal_actions()] == [
        "samurai", "takuhatsuso"]
    twin.answer(card=keep)
    other = "samurai" if keep == "takuhatsuso" else "takuhatsuso"
    assert twin.zone(ENCOUNTERS)[-1] == other and other not in twin.collection(0)
    if keep == "takuhatsuso":
        assert twin.kind == CHOICES["takuhatsuso"]
        twin.answer(pay=True)
        assert twin.points(0, "encounters") == 4 and twin.coins(0) == 8
    else:
        assert twin.points(0, "encounters") == 3
    twin.finish()


def test_yoshiyasu_keeps_saru_over_itamae() -> None:
    twin = Twin(2, ("yoshiyasu", "kinko"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("itamae", "saru"), HOT_SPRINGS: ("hot_spring.2",)})
    twin.until_kind("base.keep_encounter").answer(card="saru")
    assert "hot_spring.2" in twin.collection(0) and twin.zone(ENCOUNTERS)[-1] == "itamae"
    twin.finish()


@pytest.mark.parametrize("left", [0, 1])
def test_yoshiyasu_at_a_deck_of_one_card_or_none(left: int) -> None:
    """One card left: drawn as anyone draws it (no choice), and its payment is asked;
    none: nothing happens."""
    twin = Twin(2, ("yoshiyasu", "kinko"), routes={0: (3,)},
                stacks={ENCOUNTERS: ("takuhatsuso",)}, cut={ENCOUNTERS: left})
    twin.until_at(0, 3)
    if left:
        assert twin.kind == CHOICES["takuhatsuso"]
        twin.answer(pay=False)
        assert "takuhatsuso" in twin.collection(0)
    else:
        assert not any(twin.game.ruleset.registry.cards[c].kind == "encounter"
                       for c in twin.collection(0))
    twin.finish()
    assert "base.keep_encounter" not in twin.kinds


@pytest.mark.parametrize("players", [2, 4, 5])
def test_every_promo_in_turn_with_bga(players: int) -> None:
    """One traveller meets all four cards at the first four encounter stops and pays
    every time (bga: the panorama choice may be refused, the hand is smaller)."""
    names = ("kinko", "mitsukuni", "umegae", "hiroshige", "yoshiyasu")[:players]
    twin = Twin(players, names, routes={0: (3, 10, 20, 30)}, ruleset=NE_BGA,
                stacks={ENCOUNTERS: ("saru", "itamae", "kitoushi", "takuhatsuso")},
                answers={CHOICES["itamae"]: pays(True), CHOICES["takuhatsuso"]: pays(True),
                         CHOICES["kitoushi"]: lambda a: getattr(a, "panorama", None) == "sea"})
    twin.until_at(0, 30).play(lambda t: t.kind != CHOICES["takuhatsuso"])
    assert {"saru", "itamae", "kitoushi", "takuhatsuso", "sea.1"} <= set(twin.collection(0))
    assert twin.coins(0) == 7 - 3
    twin.finish()
