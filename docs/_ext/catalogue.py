"""Sphinx directives that generate reference tables from the shipped plugins themselves,
so the documentation cannot drift from the code:

- ``tokaido-events``: every event and action type of every shipped plugin.
- ``tokaido-options``: every rule option.
- ``tokaido-plugins``: every shipped plugin.
"""

from __future__ import annotations

import inspect
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from tokaido_rules import Action, Ruleset, field_names
from tokaido_rules.ruleset import plugin_info

SHIPPED = ("base", "crossroads", "new-encounters", "initiation", "return-journey",
           "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga")


def shipped_ruleset() -> Ruleset:
    """One ruleset with every shipped plugin enabled."""
    return Ruleset.build(SHIPPED)


def _doc(obj: Any) -> str:
    text = inspect.getdoc(obj) or ""
    return " ".join(text.split("\n\n")[0].split())


def _visibility(cls: type) -> str:
    if getattr(cls, "PUBLIC", False):
        return "public"
    if "visible_fields" in vars(cls) or any(
            "visible_fields" in vars(base) for base in cls.__mro__[1:-1]
            if base.__name__ not in ("Event", "Action")):
        return "partly hidden"
    return "withheld"


class _Table(SphinxDirective):
    def render(self, rst: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(rst), self.content_offset, container)
        return list(container.children)


class EventsDirective(_Table):
    def run(self) -> list[nodes.Node]:
        events = shipped_ruleset().registry.events
        rst: list[str] = []
        plugins: dict[str, list[type]] = {}
        for name, cls in events.items():
            plugins.setdefault(name.split(".")[0], []).append(cls)
        for plugin, classes in plugins.items():
            rst += [f".. rubric:: {plugin}", "", ".. list-table::", "   :header-rows: 1",
                    "   :widths: 25 6 8 12 49", "",
                    "   * - type", "     - v", "     - kind", "     - seats see",
                    "     - fields and meaning"]
            for cls in classes:
                kind = "decision" if issubclass(cls, Action) else "event"
                fields = ", ".join(f"``{f}``" for f in field_names(cls)) or "(none)"
                rst += [f"   * - ``{cls.TYPE}``", f"     - {cls.VERSION}", f"     - {kind}",
                        f"     - {_visibility(cls)}", f"     - {fields}: {_doc(cls)}"]
            rst.append("")
        return self.render(rst)


class OptionsDirective(_Table):
    def run(self) -> list[nodes.Node]:
        options = shipped_ruleset().registry.options
        rst = [".. list-table::", "   :header-rows: 1", "   :widths: 30 15 20 35", "",
               "   * - option", "     - default", "     - values", "     - meaning"]
        for spec in options.values():
            values = ", ".join(f"``{v!r}``" for v in spec.choices)
            rst += [f"   * - ``{spec.name}``", f"     - ``{spec.default!r}``",
                    f"     - {values}", f"     - {spec.doc}"]
        return self.render(rst)


class PluginsDirective(_Table):
    def run(self) -> list[nodes.Node]:
        rst = [".. list-table::", "   :header-rows: 1", "   :widths: 18 10 18 54", "",
               "   * - id", "     - version", "     - requires", "     - description"]
        for plugin in shipped_ruleset().plugins:
            info = plugin_info(plugin)
            requires = ", ".join(f"``{r}``" for r in info.requires) or "-"
            rst += [f"   * - ``{info.id}``", f"     - {info.version}", f"     - {requires}",
                    f"     - {info.description}"]
        return self.render(rst)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("tokaido-events", EventsDirective)
    app.add_directive("tokaido-options", OptionsDirective)
    app.add_directive("tokaido-plugins", PluginsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
