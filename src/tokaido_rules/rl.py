"""Reinforcement-learning environments: a PettingZoo AEC environment and a single-agent
Gymnasium wrapper, for any player count and any ruleset (extra ``tokaido-rules[rl]``).

- **Actions**: a fixed :class:`ActionIndex` per ruleset and player count numbers every
  possible decision once (the keys plugins declare with ``tokaido_action_space``; see
  :meth:`~tokaido_rules.events.Action.key`). Observations carry the mask of the legal
  ones.
- **Observations**: a float32 vector built from the acting seat's
  :class:`~tokaido_rules.views.View` only (:class:`ObservationEncoder`), so nothing hidden
  can reach an agent; seats are listed starting with the observer.
- **Rewards**: at the end of the game only: ``"score_difference"`` (the seat's total
  minus the best other seat's) or ``"win"`` (+1 for a winner, shared wins included,
  -1 otherwise).
- **Branching**: :meth:`TokaidoAEC.clone` and :meth:`TokaidoGymEnv.clone` copy an
  environment cheaply, for tree search (a reference game is immutable and shared; a fast
  one is copied, :meth:`~tokaido_rules.fast.FastGame.clone`).
- **Engines**: ``engine="auto"`` (the default) plays on the fast simulator
  (:class:`~tokaido_rules.fast.ViewableGame`) where it covers the ruleset
  (:func:`~tokaido_rules.fast.covers`) and builds its views itself
  (:func:`~tokaido_rules.fast.views_direct`), else on the reference engine; ``"fast"`` insists
  (:class:`~tokaido_rules.fast.NotCoveredError` elsewhere), ``"reference"`` never uses
  it. Both give the same episodes: the same observations, masks, rewards and bot moves
  for the same seeds. :attr:`TokaidoGymEnv.played` is the game played;
  :attr:`TokaidoGymEnv.game` the reference game (on the fast path, rebuilt when asked).
- **Baselines**: :func:`evaluate` plays a policy of one seat against bots and gives its
  win rate with a Wilson interval; :func:`first_legal`, :func:`random_legal` and
  :func:`bot_policy` are the baselines a learning agent must beat.
- **Conventions**: :func:`env` and :func:`raw_env` are PettingZoo's module-level
  factories; importing this module registers :data:`GYM_ID` with Gymnasium, so
  ``gymnasium.make("tokaido_rules/Tokaido-v0", players=3)`` works;
  :meth:`TokaidoGymEnv.action_masks` is the mask sb3-contrib's ``MaskablePPO`` asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from attrs import frozen

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper
except ImportError as exc:  # say which extra brings them, not only what is missing
    raise ImportError(f"tokaido_rules.rl needs the 'rl' extra ({exc.name} is missing): "
                      "pip install '.[rl]' in a clone, or the wheel with [rl]") from exc

from .bots import Bot, BotLike, bot_name, check_bot, check_options, make_bot, next_action
from .chance import new_seed
from .engine import Game, make_rules, new_game
from .errors import IllegalActionError, SetupError, TokaidoError
from .events import Action
from .fast import FastGame, NotCoveredError, ViewableGame, covers, views_direct
from .frozen import EMPTY
from .model import COLLECTION, SECRET, GameState
from .render import text as render_text
from .ruleset import Rules, Ruleset, Setup
from .simulate import wilson_interval
from .views import View

__all__ = ["ActionIndex", "ObservationEncoder", "TokaidoAEC", "TokaidoGymEnv", "Evaluation",
           "Policy", "Played", "first_legal", "random_legal", "bot_policy", "evaluate",
           "raw_env", "env", "REWARDS", "ENGINES", "GYM_ID"]

REWARDS = ("score_difference", "win")
ENGINES = ("auto", "fast", "reference")
"""The engines an environment may play on (as ``tokaido simulate --engine``)."""
GYM_ID = "tokaido_rules/Tokaido-v0"
"""The Gymnasium id of :class:`TokaidoGymEnv`, registered when this module is imported."""


def _render(mode: str | None, subject: Game | View) -> str | None:
    """A render mode's output: the picture as text (``"ansi"``), printed (``"human"``),
    or nothing."""
    if mode not in ("ansi", "human"):
        return None
    picture = render_text(subject, width=80)
    if mode == "ansi":
        return picture
    print(picture)
    return None


_LIMIT = 1e4


Played = Game | FastGame
"""A game an environment plays: the reference engine's (immutable) or the fast
simulator's (changed in place, so copied when the environment is)."""


class ActionIndex:
    """Every decision of a ruleset and player count, numbered once.

    A decision's number comes from its key (:meth:`~tokaido_rules.events.Action.key`),
    which reads the state: a reference game's own, or for a fast game a state made of the
    deciding seat's view (:meth:`FastGame.view <tokaido_rules.fast.FastGame.view>`): the
    keys read whose traveller a piece is and the cards the seat sees (the village's)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        keys: list[tuple[object, ...]] = []
        for position in range(1, rules.end + 1):
            keys.append(("core.move", "self", position))
            if rules.neutrals:
                keys.append(("core.move", "neutral", position))
        keys.extend(rules.ruleset.hooks.action_space(rules))
        self.keys: tuple[tuple[object, ...], ...] = tuple(dict.fromkeys(keys))
        self._number = {k: i for i, k in enumerate(self.keys)}

    def __len__(self) -> int:
        return len(self.keys)

    def number(self, action: Action, game: Played) -> int:
        """The number of a decision; raise if no plugin declared it."""
        return self._number_in(action, self._state(game))

    def _number_in(self, action: Action, state: GameState) -> int:
        key = action.key(state)
        try:
            return self._number[key]
        except KeyError:
            raise TokaidoError(f"decision {key} is not in the ruleset's action space: its "
                               "plugin does not declare it (tokaido_action_space)") from None

    def _state(self, game: Played) -> GameState:
        """What keys are read from: the reference state, or one made of the deciding
        seat's view of a fast game (the public view once the game is over)."""
        if isinstance(game, Game):
            return game.state
        view = game.view(game.current_player)
        state: GameState = object.__new__(GameState)
        object.__setattr__(state, "__dict__", {
            "rules": self.rules, "seed": 0, "pieces": view.pieces, "zones": view.zones,
            "agenda": view.agenda, "data": view.data, "script": EMPTY, "seq": view.seq,
            "turn": view.turn, "over": view.over})
        return state

    def legal(self, game: Played) -> dict[int, Action]:
        """The legal actions of the current decision, by number."""
        actions = game.legal_actions()
        if not actions:
            return {}
        state = self._state(game)
        return {self._number_in(a, state): a for a in actions}

    def mask(self, legal: Iterable[int]) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(len(self.keys), dtype=np.int8)
        mask[list(legal)] = 1
        return mask


class ObservationEncoder:
    """Turns a seat's view into a fixed-length float32 vector.

    Per traveller (the observer first, then the following seats, then seatless ones):
    position, slot, coins, total points, each score category, each counter a plugin
    declared ``observed`` (:meth:`~tokaido_rules.Registry.add_counter`), its collection
    (a count per card), how many secret cards it holds. Per zone that is not
    a traveller's: its size and, when the observer may see it, a count per card; the
    observer's own private zones likewise. Then the decision being taken (one-hot over
    the step kinds) and whether it is the observer's. Everything comes from the view.
    """

    def __init__(self, rules: Rules) -> None:
        registry = rules.registry
        self.rules = rules
        self.cards = {c: i for i, c in enumerate(sorted(registry.cards))}
        self.categories = list(registry.categories)
        self.counters = list(registry.observed_counters())  # the plugins' own choice
        self.families = sorted({COLLECTION, SECRET} | {z for z, v in registry.zones.items()
                                                      if v == "seat"})
        self.zones = sorted(z for z in registry.zones if z not in self.families)
        self.steps = {k: i for i, k in enumerate(sorted(registry.steps))}
        self.pieces = rules.players + rules.neutrals
        n_cards = len(self.cards)
        per_piece = 6 + len(self.categories) + len(self.counters) + n_cards + 1
        own = len(self.families) * (1 + n_cards)
        self.size = (self.pieces * per_piece + len(self.zones) * (1 + n_cards) + own
                     + len(self.steps) + 2)

    def encode(self, view: View) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The observation of ``view``'s seat. Written into one array (each value as
        ``np.float32`` rounds it; the card counts added last, all at once): a
        decision's observation is made at every step of an episode."""
        if view.seat is None:
            raise ValueError("an observation is a seat's: the public view has no seat")
        end = float(self.rules.end)
        out = np.zeros(self.size, dtype=np.float32)
        cards = self.cards
        n_cards = len(cards)
        zones = view.zones
        sizes = view.zone_sizes
        categories = self.categories
        counters = self.counters
        head_size = 6 + len(categories) + len(counters)
        counted: list[int] = []  # the place of each card counted
        order = [(view.seat + k) % view.players for k in range(view.players)]
        order += list(range(view.players, len(view.pieces)))
        at = 0
        for i in order:
            p = view.pieces[i]
            score = p.score
            out[at:at + head_size] = [
                p.position / end, p.slot / 5, p.coins / 20, p.total / 100,
                float(p.seat is None), float(i == view.seat),
                *[score.get(c, 0) / 20 for c in categories],
                *[p.counter(c) / 20 for c in counters]]
            at += head_size
            counted += [at + cards[c] for c in zones.get(f"{COLLECTION}.{i}", ())]
            at += n_cards
            out[at] = sizes.get(f"{SECRET}.{i}", 0)
            at += 1
        for zone in self.zones:
            out[at] = sizes.get(zone, 0) / 30
            at += 1
            counted += [at + cards[c] for c in zones.get(zone, ())]
            at += n_cards
        for family in self.families:
            mine = f"{family}.{view.seat}"
            out[at] = sizes.get(mine, 0)
            at += 1
            counted += [at + cards[c] for c in zones.get(mine, ())]
            at += n_cards
        if view.current_step is not None:
            out[at + self.steps[view.current_step.kind]] = 1
        at += len(self.steps)
        out[at] = float(view.current_player == view.seat)
        out[at + 1] = float(view.over)
        if counted:
            places = np.array(counted, dtype=np.intp)
            np.add(out, np.bincount(places, minlength=self.size), out=out, casting="unsafe")
        return out


def _seed_source(generator: np.random.Generator | None) -> Callable[[], int]:
    """Where seeds come from: 64-bit draws from ``generator``, reproducible, or without
    one 64 bits from :mod:`secrets` each, seeds nobody can guess."""
    if generator is None:
        return new_seed
    return lambda: int(generator.integers(0, 2**64, dtype=np.uint64))


def _reward(game: Played, seat: int, scheme: str) -> float:
    scores = game.scores()
    if scheme == "win":
        return 1.0 if seat in game.winners() else -1.0
    mine = scores[seat].total
    return float(mine - max(s.total for s in scores if s.seat != seat))


def _spaces(actions: ActionIndex,
            encoder: ObservationEncoder) -> tuple[spaces.Dict, spaces.Discrete]:
    observation = spaces.Dict({
        "observation": spaces.Box(-_LIMIT, _LIMIT, (encoder.size,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (len(actions),), dtype=np.int8),
    })
    return observation, spaces.Discrete(len(actions))


class _Table:
    """What both environments share: the ruleset, its action index and encoder, and the
    engine that plays it."""

    def __init__(self, players: int, plugins: Iterable[str | object],
                 options: Mapping[str, object] | None, reward: str,
                 engine: str = "auto") -> None:
        if reward not in REWARDS:
            raise TokaidoError(f"reward must be one of {REWARDS}, got {reward!r}")
        if engine not in ENGINES:
            raise SetupError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        self.players = players
        self.ruleset = Ruleset.build(plugins, options)
        rules = make_rules(self.ruleset, players, Setup())
        self.actions = ActionIndex(rules)
        self.encoder = ObservationEncoder(rules)
        self.reward = reward
        covered = covers(self.ruleset)
        if engine == "fast" and not covered:
            raise NotCoveredError(f"the fast simulator does not cover the ruleset "
                                  f"{list(self.ruleset.ids)} with options "
                                  f"{dict(self.ruleset.options)}: use engine 'reference' "
                                  "(or 'auto')")
        self.fast = covered and (engine == "fast" or (engine == "auto" and views_direct(
            self.ruleset, players)))
        """Whether games are played on the fast simulator: with ``"auto"``, where it
        covers the ruleset and builds its views itself (an observation at every step:
        views made by replay would cost more than the reference engine saves)."""
        self._legal_kept: tuple[Played, int, dict[int, Action]] | None = None

    def start(self, seed: int) -> Played:
        """A new game of this table, on its engine."""
        if self.fast:
            return ViewableGame.new(self.players, seed=seed, plugins=self.ruleset)
        return new_game(self.players, seed=seed, plugins=self.ruleset)

    def legal(self, game: Played) -> dict[int, Action]:
        """:meth:`ActionIndex.legal`, kept for the game and point it was made for: an
        environment's step asks for the numbers its last observation's mask was made
        from (read it, do not change it)."""
        kept = self._legal_kept
        seq = game.state.seq if isinstance(game, Game) else game.state_seq
        if kept is not None and kept[0] is game and kept[1] == seq:
            return kept[2]
        legal = self.actions.legal(game)
        self._legal_kept = (game, seq, legal)
        return legal

    def mask(self, game: Played, seat: int) -> np.ndarray[Any, np.dtype[np.int8]]:
        """1 for the numbers of the seat's legal actions; all zeros when it does not
        decide (the game is over, or another seat decides)."""
        legal = self.legal(game) if game.current_player == seat else {}
        return self.actions.mask(legal)

    def observe(self, game: Played, seat: int) -> dict[str, np.ndarray[Any, Any]]:
        return {"observation": self.encoder.encode(game.view(seat)),
                "action_mask": self.mask(game, seat)}


class _Plays:
    """What both environments share of the game they play: :attr:`played`, and
    :attr:`game`, the reference game it stands for."""

    played: Played

    @property
    def game(self) -> Game:
        """The game played, as a reference :class:`~tokaido_rules.Game`. On the fast
        path (engine ``"fast"``, or ``"auto"`` on a ruleset the fast simulator covers)
        it is rebuilt from the decisions when asked: a replay through the reference
        engine, about what playing the game so far there costs (kept until the next
        decision). Read :attr:`played` where speed matters. Setting it plays on from
        the game given (a reference game, or a :class:`~tokaido_rules.fast.FastGame`)."""
        played = self.played
        if isinstance(played, Game):
            return played
        kept = self.__dict__.get("_replayed")
        made = len(played.decisions)
        if kept is None or kept[0] is not played or kept[1] != made:
            kept = self.__dict__["_replayed"] = (played, made, played.to_game())
        game: Game = kept[2]
        return game

    @game.setter
    def game(self, game: Played) -> None:
        self.played = game


class TokaidoAEC(_Plays, AECEnv):  # type: ignore[misc]
    """Tokaido as a PettingZoo AEC environment: agents ``player_0`` ... one per seat; in
    2-player games the leading seat also decides for the neutral traveller. ``engine``:
    ``"auto"``, ``"fast"`` or ``"reference"`` (:data:`ENGINES`; the same episodes on
    each)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "tokaido_v0",
                                          "render_modes": ["ansi", "human"],
                                          "is_parallelizable": False}

    def __init__(self, players: int = 4, plugins: Iterable[str | object] = ("base",),
                 options: Mapping[str, object] | None = None,
                 reward: str = "score_difference", render_mode: str | None = None,
                 engine: str = "auto") -> None:
        super().__init__()
        self.table = _Table(players, plugins, options, reward, engine)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        observation, action = _spaces(self.table.actions, self.table.encoder)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self.played: Played = self.table.start(0)
        """The game played: a reference game, or a fast one (see :data:`ENGINES`)."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of an agent (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of an agent: the ruleset's numbered decisions."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (``seed``: the game's seed; the same seed, the same game;
        without one, 64 bits from :mod:`secrets`, a seed nobody can guess)."""
        game_seed = seed if seed is not None else new_seed()
        self.played = self.table.start(game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = f"player_{self.played.current_player}"

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """The agent's observation and action mask (zeros when it does not decide)."""
        return self.table.observe(self.played, self.possible_agents.index(agent))

    def step(self, action: int | None) -> None:
        """Apply the selected agent's decision (its number in the action space)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.table.legal(self.played)
        if action is None or int(action) not in legal:
            raise IllegalActionError(f"action {action} is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        self.played = self.played.apply(legal[int(action)])
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.played.is_over:
            for a in self.agents:
                seat = self.possible_agents.index(a)
                self.rewards[a] = _reward(self.played, seat, self.table.reward)
                self.terminations[a] = True
        else:
            self.agent_selection = f"player_{self.played.current_player}"
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The whole game as text (:func:`tokaido_rules.render.text`, 80 columns):
        returned with ``render_mode="ansi"``, printed with ``"human"``."""
        return _render(self.render_mode, self.game)

    def close(self) -> None:
        """Nothing to release."""

    def clone(self) -> TokaidoAEC:
        """An independent copy: in constant time on the reference engine (its games are
        immutable), with a copy of the game on the fast simulator."""
        other = TokaidoAEC.__new__(TokaidoAEC)
        other.__dict__.update(self.__dict__)
        if isinstance(self.played, FastGame):
            other.played = self.played.clone()
        for name in ("agents", "rewards", "_cumulative_rewards", "terminations",
                     "truncations"):
            if name in self.__dict__:
                other.__dict__[name] = type(self.__dict__[name])(self.__dict__[name])
        if "infos" in self.__dict__:
            other.infos = {a: dict(i) for a, i in self.infos.items()}
        return other


class TokaidoGymEnv(_Plays, gymnasium.Env[dict[str, np.ndarray[Any, Any]], np.int64]):
    """One seat of Tokaido as a single-agent Gymnasium environment; the other seats are
    played by bots (names from :data:`tokaido_rules.bots.BOTS`, or bot objects, classes
    or factories: :func:`~tokaido_rules.bots.make_bot`; cycled), each made with its
    options in ``bot_options`` (bot name -> options).

    An illegal action ends the episode with reward -1 (``info["illegal"]``): agents
    should sample from ``observation["action_mask"]``. ``engine``: ``"auto"``,
    ``"fast"`` or ``"reference"`` (:data:`ENGINES`; the same episodes on each).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 - gymnasium declares it per instance

    def __init__(self, players: int = 4, seat: int = 0,
                 opponents: Sequence[BotLike] = ("greedy",),
                 plugins: Iterable[str | object] = ("base",),
                 options: Mapping[str, object] | None = None,
                 reward: str = "score_difference", render_mode: str | None = None,
                 engine: str = "auto",
                 bot_options: Mapping[str, Mapping[str, object]] | None = None) -> None:
        if not 0 <= seat < players:
            raise TokaidoError(f"seat must be from 0 to {players - 1}")
        if not opponents or isinstance(opponents, str):
            raise TokaidoError("opponents: at least one bot (a sequence of names or bots)")
        names = [check_bot(o) for o in opponents]
        given = dict(bot_options or {})
        self._bot_options = [check_options(o, given.get(n))
                             for n, o in zip(names, opponents, strict=True)]
        self.table = _Table(players, plugins, options, reward, engine)
        self.seat = seat
        self.opponents = tuple(opponents)
        self.render_mode = render_mode
        observation, action = _spaces(self.table.actions, self.table.encoder)
        self.observation_space: spaces.Space[Any] = observation
        self.action_space: spaces.Space[Any] = action
        self.played: Played = self.table.start(0)
        """The game played: a reference game, or a fast one (see :data:`ENGINES`)."""
        self.bots: dict[int, Bot] = {}

    def _advance(self) -> None:
        played = self.played
        while not played.is_over and played.current_player != self.seat:
            seat = played.current_player
            assert seat is not None
            played = played.apply(next_action(self.bots[seat], played))
        self.played = played

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, Any]]:
        """Start a new game and play the bots until the agent's first decision.

        The game's seed and the bots' are drawn from the environment's generator once it
        has one (seeded by ``seed``, now or before: the same seed, the same episodes),
        else 64 bits each from :mod:`secrets`. The bots' seeds are drawn, not derived
        from the game's, so a bot's seed does not give the game's away."""
        super().reset(seed=seed)
        draw = _seed_source(self._np_random)
        self.played = self.table.start(draw())
        others = [s for s in range(self.table.players) if s != self.seat]
        count = len(self.opponents)
        self.bots = {s: make_bot(self.opponents[i % count], draw(),
                                 self._bot_options[i % count])
                     for i, s in enumerate(others)}
        self._advance()
        return self.table.observe(self.played, self.seat), {}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray[Any, Any]], float, bool, bool,
                                         dict[str, Any]]:
        """Apply the agent's decision, then the bots' until the agent decides again or
        the game ends (the reward comes at the end)."""
        legal = self.table.legal(self.played)
        if int(action) not in legal:
            return self.table.observe(self.played, self.seat), -1.0, True, False, {"illegal": True}
        self.played = self.played.apply(legal[int(action)])
        self._advance()
        done = self.played.is_over
        reward = _reward(self.played, self.seat, self.table.reward) if done else 0.0
        return self.table.observe(self.played, self.seat), reward, done, False, {}

    def view(self) -> View:
        """What the agent's seat sees now, the view its observation is encoded from: for
        agents that compute features of their own (nothing hidden is in it)."""
        return self.played.view(self.seat)

    def legal_actions(self) -> dict[int, Action]:
        """The agent's legal decisions now, by their number in the action space (the ones
        of ``observation["action_mask"]``); empty once the game is over."""
        if self.played.current_player != self.seat:
            return {}
        return self.table.actions.legal(self.played)

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions of the agent's current decision, as booleans over the action
        space: ``observation["action_mask"]`` of the last observation, the method
        sb3-contrib's ``MaskablePPO`` calls. All false once the game is over."""
        return self.table.mask(self.played, self.seat).astype(np.bool_)

    def render(self) -> str | None:
        """What the agent's seat sees, as text (:func:`tokaido_rules.render.text`, 80
        columns): returned with ``render_mode="ansi"``, printed with ``"human"``."""
        return _render(self.render_mode, self.played.view(self.seat))

    def clone(self) -> TokaidoGymEnv:
        """An independent copy: bots are copied with their random state; the game is
        shared on the reference engine (immutable), copied on the fast simulator."""
        import copy

        other = copy.copy(self)
        other.bots = {s: copy.copy(b) for s, b in self.bots.items()}
        if isinstance(self.played, FastGame):
            other.played = self.played.clone()
        return other


Policy = Callable[[TokaidoGymEnv, dict[str, np.ndarray[Any, Any]]], int]
"""A player of one seat of :class:`TokaidoGymEnv`: given the environment and its last
observation, the number of a legal action."""


def first_legal(env: TokaidoGymEnv, observation: dict[str, np.ndarray[Any, Any]]) -> int:
    """The policy that always takes the first legal decision (the lowest number: the
    nearest free space, no souvenir, no meal, the smallest donation). It is a strong
    baseline against random bots, which skip much of the road (it wins almost every
    game), and a weak one against greedy bots: a learning agent must beat it."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def random_legal(seed: int = 0) -> Policy:
    """The policy that takes a uniformly random legal decision, from its own generator
    (seeded by ``seed``)."""
    generator = np.random.default_rng(seed)

    def policy(env: TokaidoGymEnv, observation: dict[str, np.ndarray[Any, Any]]) -> int:
        return int(generator.choice(np.flatnonzero(observation["action_mask"])))
    return policy


def bot_policy(name: BotLike, seed: int = 0,
               options: Mapping[str, object] | None = None) -> Policy:
    """A bot of :data:`~tokaido_rules.bots.BOTS` (``"greedy"``, any registered name, or
    a bot object, class or factory) as a policy, made with ``options``: it chooses from
    the seat's view (:meth:`TokaidoGymEnv.view`), as it does at a table. A bot that
    raises or answers an action that is not legal raises
    :class:`~tokaido_rules.BotError`."""
    bot = make_bot(name, seed, options)
    label = bot_name(name)

    def policy(env: TokaidoGymEnv, observation: dict[str, np.ndarray[Any, Any]]) -> int:
        chosen = next_action(bot, env.played, label)
        return next(n for n, a in env.legal_actions().items() if a == chosen)
    return policy


@frozen
class Evaluation:
    """How a policy did in :func:`evaluate`'s games."""

    games: int
    wins: float
    """Games won, a shared win counting 1/k for each of k winners (as in
    :class:`~tokaido_rules.simulate.Summary`)."""
    mean_margin: float
    """The mean of the seat's final total minus the best other seat's."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson score interval of the win rate
        (:func:`~tokaido_rules.simulate.wilson_interval`)."""
        return wilson_interval(min(self.wins, self.games), self.games, confidence)

    def __str__(self) -> str:
        low, high = self.interval()
        return (f"{self.win_rate:.3f} [{low:.3f}, {high:.3f}] over {self.games} games, "
                f"margin {self.mean_margin:+.1f}")


def evaluate(policy: Policy, games: int, *, players: int = 4, seat: int = 0,
             opponents: Sequence[BotLike] = ("random",),
             plugins: Iterable[str | object] = ("base",),
             options: Mapping[str, object] | None = None, seed: int = 0,
             engine: str = "auto",
             bot_options: Mapping[str, Mapping[str, object]] | None = None) -> Evaluation:
    """Play ``games`` games of ``policy`` in ``seat`` against bots (cycled over the other
    seats) and count its wins and margins.

    The games and the bots' seeds come from ``seed`` alone (the environment's generator),
    never from the policy: two policies evaluated with the same arguments meet the same
    deals and the same opponents, so their win rates compare fairly. ``engine``: as
    :class:`TokaidoGymEnv`'s (the same figures on either); ``opponents`` and
    ``bot_options``: as :class:`TokaidoGymEnv`'s."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TokaidoError(f"games must be a positive number, got {games!r}")
    env = TokaidoGymEnv(players=players, seat=seat, opponents=opponents, plugins=plugins,
                        options=options, reward="score_difference", engine=engine,
                        bot_options=bot_options)
    wins = margins = 0.0
    for game in range(games):
        observation, _ = env.reset(seed=seed if game == 0 else None)
        done = env.played.is_over
        while not done:
            number = policy(env, observation)
            observation, _, done, _, info = env.step(number)
            if info.get("illegal"):
                raise IllegalActionError(f"the policy chose action {number}, which is not "
                                         "legal now")
        winners = env.played.winners()
        wins += 1 / len(winners) if seat in winners else 0.0
        margins += _reward(env.played, seat, "score_difference")
    return Evaluation(games, wins, margins / games)


def raw_env(**kwargs: Any) -> TokaidoAEC:
    """PettingZoo's unwrapped factory: ``TokaidoAEC(**kwargs)``."""
    return TokaidoAEC(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """PettingZoo's factory: :func:`raw_env` wrapped as PettingZoo's own environments
    are, with ``AssertOutOfBoundsWrapper`` (an action outside the action space fails an
    assertion) and ``OrderEnforcingWrapper`` (no ``step`` or ``observe`` before
    ``reset``). A number inside the space but masked out still raises
    :class:`~tokaido_rules.errors.IllegalActionError`; ``env.unwrapped`` is the
    :class:`TokaidoAEC`."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw_env(**kwargs)))


def _register() -> None:
    """Register :data:`GYM_ID` with Gymnasium unless it is already (no second
    registration, no warning about overriding it)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="tokaido_rules.rl:TokaidoGymEnv")


_register()
