"""Regenerate the golden logs: ``python tests/golden/regenerate.py``.

One reference game per shipped ruleset and player count, with every seat's copy. CI
checks that the current code reproduces them exactly (engine version aside), so any
change of game behaviour shows up as a reviewed diff of these files.
"""

from __future__ import annotations

from pathlib import Path

from tokaido_rules.testing import golden_logs

HERE = Path(__file__).parent

ALL_COUNTS = (2, 3, 4, 5)
RULESETS: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "base": (("base",), ALL_COUNTS),
    "crossroads": (("base", "crossroads"), ALL_COUNTS),
    "rare-and-precious": (("base", "crossroads", "rare-and-precious"), ALL_COUNTS),
    "good-luck": (("base", "crossroads", "good-luck"), ALL_COUNTS),
    "base-variants": (("base", "new-encounters", "initiation", "return-journey",
                       "gastronomy", "preparations"), (3,)),
    "crossroads-new-encounters": (("base", "crossroads", "new-encounters", "preparations"),
                                  (4,)),
    "bga": (("base", "bga"), (3,)),
    "crossroads-bga": (("base", "crossroads", "bga"), (4,)),
}
"""Golden ruleset name -> (plugins, player counts)."""


def seed_for(players: int) -> int:
    return 1000 + players


def expected() -> dict[Path, str]:
    """Every golden file and its content, from the current code."""
    files = {}
    for name, (plugins, counts) in RULESETS.items():
        for players in counts:
            for suffix, text in golden_logs(plugins, players, seed_for(players)).items():
                files[HERE / name / f"{players}p.{suffix}.jsonl"] = text
    return files


def main() -> None:
    for path, text in expected().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
