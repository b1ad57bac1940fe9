"""The fast simulator plays exactly the reference engine's Crossroads games.

As for the base game (``test_fast.py``): at every decision the same seat, the same legal
actions in the same order and the same count of events; at the end the same scores and
the same log. Besides random games, a policy keen on Crossroads (its options, every
amulet whenever it may be used) and piles cut short reach the rarer paths.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tokaido_crossroads import CALLIGRAPHY, PILES, calligraphy_points
from tokaido_crossroads.content import CALLIGRAPHIES
from tokaido_crossroads.fast import (
    X_AMULET,
    X_BATH,
    X_CALLIGRAPHY,
    X_CHERRY,
    X_LEGENDARY,
    _CrossroadsGame,
)
from tokaido_rules import Action, Game, PluginInfo, Ruleset, Setup, hookimpl, new_game
from tokaido_rules.fast import (
    FastGame,
    NotCoveredError,
    compare,
    covers,
    differential,
)

CROSSROADS = ("base", "crossroads")
ONLINE = {"crossroads.cherry_tree_on_completed_panorama": True,
          "crossroads.fortune_timing": "any_time_in_turn", "crossroads.amulet_same_turn": True,
          "crossroads.shodo_emaki_counts_legendary": True, "crossroads.devotion": "dearest_card",
          "crossroads.optional_purchase": True, "crossroads.health_where_both": True}
NEW_TRAVELLERS = ("jirocho", "daigoro", "nampo", "gotozaemon", "miyataka", "kita")
_PILE_OF = {"crossroads.cherry_trees": X_CHERRY, "crossroads.bath_houses": X_BATH,
            "crossroads.legendary": X_LEGENDARY, "crossroads.calligraphy": X_CALLIGRAPHY,
            "crossroads.amulets": X_AMULET}


class _Keen:
    """Mostly the Crossroads way: its option of a stop, a purchase rather than none,
    Jirocho's stake, and every amulet as soon as it may be used (Vitality, Fortune,
    Health, Friendship, Hospitality, Devotion); otherwise at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @staticmethod
    def keen(action: Action) -> bool:
        kind = action.TYPE
        if kind in ("crossroads.friendship_move", "crossroads.use_fortune",
                    "crossroads.use_devotion", "crossroads.hospitality_meal"):
            return True
        if kind == "crossroads.take_option":
            option: Any = getattr(action, "option", None)
            return bool(getattr(action, "health", False)) or (
                option is not None and option.startswith("crossroads."))
        if kind in ("crossroads.take_amulet", "crossroads.buy_legendary",
                    "crossroads.take_calligraphy"):
            return any(getattr(action, name, None) is not None
                       for name in ("amulet", "card"))
        if kind == "crossroads.gamble":
            return bool(getattr(action, "stake", False))
        if kind == "crossroads.use_vitality":
            return bool(getattr(action, "use", False))
        return False

    def __call__(self, legal: tuple[Action, ...]) -> int:
        keen = [i for i, action in enumerate(legal) if self.keen(action)]
        if keen and self.rng.random() < 0.85:
            return self.rng.choice(keen)
        return self.rng.randrange(len(legal))


def _play(players: int, seed: int, ruleset: Ruleset, *, travellers: tuple[str, ...] | None
          = None, setup: Setup | None = None,
          cut: dict[str, int] | None = None) -> tuple[Game, FastGame, int]:
    """A game played to the end on both engines with :class:`_Keen`, compared at every
    decision; ``cut``: piles cut to so many top cards before play (in both games)."""
    game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers, setup=setup)
    fast = FastGame.new(players, seed=seed, plugins=ruleset, travellers=travellers,
                        setup=setup)
    if cut:
        assert isinstance(fast, _CrossroadsGame)
        state = game.state
        for zone, count in cut.items():
            state = state.with_zone(zone, state.zone(zone)[:count])
            pile = fast.piles[_PILE_OF[zone]]
            del pile[count:]
        game = Game(state, ())
    rng = random.Random(seed)
    difference, made = compare(game, fast, _Keen(rng), logs=not cut)
    assert difference is None, f"{players} players, seed {seed}: {difference}"
    return game, fast, made


def _final(players: int, seed: int, ruleset: Ruleset,
           travellers: tuple[str, ...] | None = None) -> tuple[Game, _CrossroadsGame]:
    """Both games at their end, played the :class:`_Keen` way (compared throughout)."""
    game = new_game(players, seed=seed, plugins=ruleset, travellers=travellers)
    fast = FastGame.new(players, seed=seed, plugins=ruleset, travellers=travellers)
    assert isinstance(fast, _CrossroadsGame)
    choose = _Keen(random.Random(seed))
    while not game.is_over:
        legal = game.legal_actions()
        assert fast.legal_actions() == legal
        index = choose(legal)
        game = game.apply(legal[index])
        fast.apply(fast.legal_actions()[index])
    assert fast.is_over and fast.scores() == game.scores()
    return game, fast


class _Impostor:
    """A plugin that calls itself ``crossroads`` but is not the built-in one."""

    tokaido_plugin = PluginInfo("crossroads", "9.9.9", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Any) -> None:
        return None


def test_covers_crossroads_and_only_the_built_in_one() -> None:
    """Crossroads with any of its option values, alone or with the bga preset and its
    variants (Rare & Precious, Good Luck); not an impostor taking its id."""
    assert covers(Ruleset.build(CROSSROADS))
    assert covers(Ruleset.build(CROSSROADS, ONLINE))
    assert covers(Ruleset.build(("base", "crossroads", "bga")))
    assert isinstance(FastGame.new(3, plugins=CROSSROADS), _CrossroadsGame)
    assert not isinstance(FastGame.new(3), _CrossroadsGame)  # the base game keeps its class
    assert covers(Ruleset.build(("base", "crossroads", "rare-and-precious", "good-luck")))
    for plugins in (("base", _Impostor()), ("base", _Impostor(), "good-luck")):
        ruleset = Ruleset.build(plugins)
        assert not covers(ruleset)
        with pytest.raises(NotCoveredError):
            FastGame.new(3, plugins=ruleset)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_equal_the_reference(players: int) -> None:
    """Offered and given travellers, random, eager and seek: the same decisions, scores
    and log."""
    seeds = range(100 * players, 100 * players + 24)
    ruleset = Ruleset.build(CROSSROADS)
    reports = [
        differential(players, seeds[:8], plugins=ruleset),
        differential(players, seeds[8:16], plugins=ruleset, travellers=True, policy="seek"),
        differential(players, seeds[16:], plugins=ruleset, travellers=True, policy="eager",
                     logs=False),
    ]
    for report in reports:
        assert report.ok, str(report)


@pytest.mark.parametrize("options", [
    *({name: value} for name, value in ONLINE.items()), ONLINE, "bga"])
def test_every_option_value_is_played_exactly(options: dict[str, object] | str) -> None:
    """Each Crossroads option at its online value (the printed ones are the defaults),
    all of them at once, and the bga preset (base's online values too)."""
    ruleset = (Ruleset.build(("base", "crossroads", "bga")) if options == "bga"
               else Ruleset.build(CROSSROADS, options))  # type: ignore[arg-type]
    assert covers(ruleset)
    report = differential((2, 3, 4, 5), range(3), plugins=ruleset, travellers=True,
                          policy="seek", logs=False)
    assert report.ok, str(report)
    for players in (2, 3, 4, 5):
        _play(players, 40 + players, ruleset)


def test_amulets_and_the_keen_way_are_played_exactly() -> None:
    """Every amulet used as soon as it may be, printed and online rules, 2-5 players:
    the same decisions throughout, and each of the six amulets is used."""
    used: set[str] = set()
    for seed in range(10):
        ruleset = Ruleset.build(CROSSROADS, ONLINE if seed % 2 else {})
        for players in (2, 3, 4, 5):
            _, fast, made = _play(players, seed * 10 + players, ruleset)
            assert made > 0
            used |= {"health" if getattr(d, "health", False) else d.TYPE.split(".")[1]
                     for d in fast.decisions if d.TYPE.startswith("crossroads.")}
    assert {"use_vitality", "use_fortune", "health", "friendship_move", "hospitality_meal",
            "use_devotion"} <= used, used


@pytest.mark.parametrize("seed", range(12))
def test_piles_that_run_out_are_played_exactly(seed: int) -> None:
    """Crossroads piles cut to 0-2 cards: options that are not offered, amulets that
    cannot be taken, calligraphy and legendary objects gone."""
    rng = random.Random(seed)
    players = 2 + seed % 4
    options = ONLINE if seed % 2 else {}
    cut = {zone: rng.randrange(0, 3) for zone in PILES}
    travellers = tuple(rng.sample(NEW_TRAVELLERS, min(players, len(NEW_TRAVELLERS))))
    _play(players, seed, Ruleset.build(CROSSROADS, options), travellers=travellers, cut=cut)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_new_traveller_is_played_exactly(players: int) -> None:
    """Each Crossroads traveller in play (with Mitsukuni, Umegae, Hirotada, Zen-emon,
    whose powers reach Crossroads cards), printed and online rules, with starting
    coins crafted; Nampo's bonus is the printed price of his inn meals."""
    others = ("mitsukuni", "umegae", "hirotada", "zenemon", "kinko")
    for i, name in enumerate(NEW_TRAVELLERS):
        travellers = (name, *random.Random(i).sample(others, players - 1))
        for options in ({}, ONLINE):
            ruleset = Ruleset.build(CROSSROADS, options)
            setup = Setup(travellers=travellers, coins={0: 1 + i})
            _play(players, 7 * i + players, ruleset, setup=setup)
        game, fast = _final(players, i + 3 * players, Ruleset.build(CROSSROADS), travellers)
        if name == "nampo":
            cards = game.ruleset.registry.cards
            meals = sum(cards[c].price for c in game.state.collection(0)
                        if cards[c].kind == "meal")  # all from the inns' hands
            assert fast.scores()[0].categories["traveller_powers"] == meals


def test_calligraphy_scores_as_the_reference_counts_it() -> None:
    """At the end of many games, each of the six calligraphy cards would score for each
    seat what the reference's ``calligraphy_points`` gives (owned or not), and the
    calligraphy category is what the cards owned score."""
    ruleset = Ruleset.build(CROSSROADS)
    scored = 0
    for seed in range(8):
        players = 2 + seed % 4
        game, fast = _final(players, seed, ruleset)
        cards = game.ruleset.registry.cards
        for seat in range(players):
            for card in CALLIGRAPHIES:
                code = fast.T.code[card]
                assert (fast._calligraphy_points(seat, code)
                        == calligraphy_points(game.state, seat, card)), (seed, seat, card)
            owned = [c for c in game.state.collection(seat) if cards[c].kind == "calligraphy"]
            total = sum(calligraphy_points(game.state, seat, c) for c in owned)
            assert game.scores()[seat].categories["calligraphy"] == total
            scored += total
        assert not set(game.state.zone(CALLIGRAPHY)) & {
            c for s in range(players) for c in game.state.collection(s)}
    assert scored > 0


def test_a_clone_of_a_crossroads_game_is_independent() -> None:
    """A copy taken mid-game (amulets held, piles drawn) plays on alone: the original is
    unchanged, and both still equal the reference."""
    ruleset = Ruleset.build(CROSSROADS)
    fast = FastGame.new(4, seed=3, plugins=ruleset)
    game = new_game(4, seed=3, plugins=ruleset)
    choose = _Keen(random.Random(3))
    for _ in range(50):
        index = choose(game.legal_actions())
        game = game.apply(game.legal_actions()[index])
        fast.apply(fast.legal_actions()[index])
    copy = fast.clone()
    assert isinstance(copy, _CrossroadsGame)
    branch = game
    while not branch.is_over:
        index = choose(branch.legal_actions())
        branch = branch.apply(branch.legal_actions()[index])
        copy.apply(copy.legal_actions()[index])
    assert copy.scores() == branch.scores()
    assert fast.state_seq == game.state.seq and fast.legal_actions() == game.legal_actions()


@pytest.mark.parametrize("variants", [("rare-and-precious",), ("good-luck",),
                                      ("rare-and-precious", "good-luck", "bga")])
def test_the_crossroads_variants_are_played_exactly(variants: tuple[str, ...]) -> None:
    """Rare & Precious (random cards leave each pile before the travellers are dealt)
    and Good Luck (a random amulet bought at the start, usable from the first move),
    alone and together with the online rules, offered or given travellers."""
    ruleset = Ruleset.build((*CROSSROADS, *variants))
    assert covers(ruleset)
    for travellers in (False, True):
        report = differential((2, 3, 4, 5), range(6), plugins=ruleset, travellers=travellers,
                              policy="seek" if travellers else "random")
        assert report.ok, str(report)
    bought = 0
    for players in (2, 3, 4, 5):
        _, fast, _ = _play(players, players, ruleset, setup=Setup(coins={0: 0, 1: 2}))
        bought += sum(1 for d in fast.decisions if d.TYPE == "good-luck.buy"
                      and getattr(d, "buy", False))
        if "rare-and-precious" in variants:  # the same cards left in each pile
            start = FastGame.new(players, seed=players, plugins=ruleset)
            assert isinstance(start, _CrossroadsGame)
            reference = new_game(players, seed=players, plugins=ruleset).state
            for zone, x in _PILE_OF.items():
                assert len(start.piles[x]) == (4 if players <= 3 else 5)
                assert [start.T.names[c] for c in start.piles[x]] == list(
                    reference.zone(zone))
    assert bought > 0 or "good-luck" not in variants


def test_stacked_piles_are_played_exactly() -> None:
    """Piles and decks stacked (``Setup(stacks=...)``): the amulet Good Luck draws at
    random comes from the stacked order, Daigoro draws the stacked souvenirs."""
    ruleset = Ruleset.build(("base", "crossroads", "good-luck"))
    setup = Setup(travellers=("daigoro", "kita", "miyataka"),
                  stacks={"crossroads.amulets": ("devotion", "health", "vitality"),
                          "crossroads.legendary": ("masamune", "shodo"),
                          "base.souvenirs": ("sake", "yukata", "koma")}, coins={1: 9})
    for seed in range(8):
        assert differential(3, [seed], plugins=ruleset, setup=setup, policy="eager").ok
        _play(3, seed, ruleset, setup=setup)


# --- Crossroads with New Encounters ----------------------------------------------------------
# The promo cards among Crossroads' rules: Itamae's meal is no inn meal, so Fasting does not
# count it and Nampo scores no bonus for it.

CROSS_NE = ("base", "crossroads", "new-encounters")


@pytest.mark.parametrize("variants", [(), ("good-luck",), ("bga",),
                                      ("rare-and-precious", "good-luck", "bga")])
def test_crossroads_with_new_encounters_is_covered_and_played_exactly(
        variants: tuple[str, ...]) -> None:
    """Random, seek and eager games at 2-5 players, offered and given travellers."""
    ruleset = Ruleset.build((*CROSS_NE, *variants))
    assert covers(ruleset)
    assert isinstance(FastGame.new(3, plugins=ruleset), _CrossroadsGame)
    for offset, (policy, travellers) in enumerate(
            [("random", False), ("random", True), ("seek", True), ("eager", False)]):
        seeds = range(300 + 6 * offset, 306 + 6 * offset)
        report = differential((2, 3, 4, 5), seeds, plugins=ruleset, policy=policy,
                              travellers=travellers, logs=policy == "random")
        assert report.ok, str(report)


def test_crossroads_with_new_encounters_the_keen_way_and_online() -> None:
    """Crossroads' options and amulets taken whenever they may be, printed and online
    rules, with the promo cards in the encounter deck."""
    for seed in range(4):
        ruleset = Ruleset.build(CROSS_NE, ONLINE if seed % 2 else {})
        for players in (2, 3, 4, 5):
            _play(players, 60 + seed * 10 + players, ruleset)


def _promo_twin(travellers: tuple[str, ...], **kwargs: Any) -> Any:
    """A crafted game of Crossroads with New Encounters (the New Encounters tests'
    :class:`Twin`: both engines compared at every decision); piece 0 stops first at
    the encounter space 3, where Itamae offers the top meal, sushi."""
    from test_fast_new_encounters import Twin

    return Twin(3, travellers, routes={0: (3,)}, ruleset=Ruleset.build(CROSS_NE),
                stacks={"base.encounters": ("itamae",), "base.meals": ("sushi", "fugu"),
                        "crossroads.calligraphy": ("fasting",)}, **kwargs)


def test_fasting_does_not_count_itamaes_meal() -> None:
    """Kita takes both options at the encounter: Itamae's sushi, paid for, and the
    Fasting calligraphy; she eats at no inn, so Fasting scores its full 12 (it counts
    inn meals only, and Itamae's meal is none)."""
    twin = _promo_twin(("kita", "kinko", "zenemon"))
    twin.until_kind("crossroads.option").answer(option="base.encounter")
    twin.answer(pay=True)
    assert twin.kind == "crossroads.second_option"
    twin.answer(option="crossroads.calligraphy").answer(card="fasting")
    assert {"itamae", "sushi", "fasting"} <= set(twin.collection(0))
    twin.finish()
    assert twin.game.state.pieces[0].counter("base.inn_meals") == 0
    assert twin.points(0, "meals") == 6 and twin.points(0, "calligraphy") == 12


def test_nampo_scores_no_bonus_for_itamaes_meal() -> None:
    """Nampo's bonus is the printed price of his inn meals: none for Itamae's sushi,
    the price of each meal he buys at the inns."""
    twin = _promo_twin(("nampo", "kinko", "zenemon"),
                       answers={"base.meal": lambda a: getattr(a, "meal", None) is not None})
    twin.until_kind("crossroads.option").answer(option="base.encounter")
    twin.answer(pay=True)
    assert "sushi" in twin.collection(0)
    assert twin.points(0, "meals") == 6 and twin.points(0, "traveller_powers") == 0
    twin.finish()
    cards = twin.game.ruleset.registry.cards
    inn_meals = [c for c in twin.collection(0) if cards[c].kind == "meal" and c != "sushi"]
    assert inn_meals
    assert twin.points(0, "traveller_powers") == sum(cards[c].price for c in inn_meals)
