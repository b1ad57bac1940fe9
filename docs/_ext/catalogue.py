"""Sphinx directives that generate reference tables from the shipped plugins themselves,
so the documentation cannot drift from the code:

- ``tokaido-events``: every event and action type of every shipped plugin.
- ``tokaido-options``: every rule option.
- ``tokaido-plugins``: every shipped plugin.
- ``tokaido-steps``: every step kind (decisions and engine steps).
- ``tokaido-schema``: the wire format's JSON Schema document of a ruleset, as
  ``tokaido schema`` prints it.

The tables are built as docutils nodes, not as reStructuredText handed back to the
parser: the pages are Markdown, whose parser does not read reStructuredText directives
(it printed ``.. list-table::`` as text, and the strict build did not notice).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from tokaido_rules import Action, Ruleset, field_names
from tokaido_rules.registry import StepType
from tokaido_rules.ruleset import plugin_info
from tokaido_rules.wire import schema_text

SHIPPED = ("base", "crossroads", "new-encounters", "initiation", "return-journey",
           "gastronomy", "preparations", "rare-and-precious", "good-luck", "bga")

EVENT_OBJECT = "tokaido-event"
"""The object type under which each event row is noted, so other tables link to it."""

AUTOMATIC = "taken by the engine when it has one possible answer"


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


Cell = str | nodes.Node | Sequence[nodes.Node]
"""A table cell: text (with inline ``literals``), a node, or several nodes."""

_MARKUP = re.compile(r"``(?P<code>.+?)``|:[\w:]+:`(?P<short>~?)(?P<target>.+?)`")


def _inline(text: str) -> list[nodes.Node]:
    """Text as nodes, with the inline markup of docstrings (double backquotes, and roles
    such as ``:class:``) as literals: as plain text it would show its backquotes."""
    result: list[nodes.Node] = []
    at = 0
    for match in _MARKUP.finditer(text):
        if match.start() > at:
            result.append(nodes.Text(text[at:match.start()]))
        code = match["code"]
        if code is None:  # a role: shown as Sphinx shows it (~: the last part only)
            code = match["target"]
            if match["short"]:
                code = code.rsplit(".", 1)[-1]
        result.append(_literal(code))
        at = match.end()
    if at < len(text):
        result.append(nodes.Text(text[at:]))
    return result


def _literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def _joined(parts: Iterable[nodes.Node], empty: str = "-") -> list[nodes.Node]:
    """Nodes separated by commas (``empty`` if there are none)."""
    result: list[nodes.Node] = []
    for part in parts:
        if result:
            result.append(nodes.Text(", "))
        result.append(part)
    return result or [nodes.Text(empty)]


def _entry(cell: Cell) -> nodes.entry:
    paragraph = nodes.paragraph()
    if isinstance(cell, str):
        paragraph.extend(_inline(cell))
    elif isinstance(cell, nodes.Node):
        paragraph.append(cell)
    else:
        paragraph.extend(cell)
    entry = nodes.entry()
    entry.append(paragraph)
    return entry


def _row(cells: Sequence[Cell]) -> nodes.row:
    row = nodes.row()
    row.extend(_entry(cell) for cell in cells)
    return row


def _table(header: Sequence[str], widths: Sequence[int],
           rows: Iterable[nodes.row | Sequence[Cell]]) -> nodes.table:
    """A table with a header row; ``widths`` are relative column widths."""
    table = nodes.table(classes=["colwidths-given", "tokaido-catalogue"])
    group = nodes.tgroup(cols=len(header))
    table.append(group)
    group.extend(nodes.colspec(colwidth=width) for width in widths)
    head = nodes.thead()
    head.append(_row(header))
    body = nodes.tbody()
    body.extend(row if isinstance(row, nodes.row) else _row(row) for row in rows)
    group.extend((head, body))
    return table


def _rubric(text: str) -> nodes.rubric:
    return nodes.rubric(text, text)


def _event_label(type_name: str) -> str:
    return "tokaido-event-" + re.sub(r"[^a-z0-9]+", "-", type_name.lower())


class EventsDirective(SphinxDirective):
    """Every event and action type, grouped by plugin; each row is a link target."""

    def run(self) -> list[nodes.Node]:
        events = shipped_ruleset().registry.events
        plugins: dict[str, list[type]] = {}
        for name, cls in events.items():
            plugins.setdefault(name.split(".")[0], []).append(cls)
        std = self.env.domains.standard_domain
        result: list[nodes.Node] = []
        for plugin, classes in plugins.items():
            rows = []
            for cls in classes:
                kind = "decision" if issubclass(cls, Action) else "event"
                fields = _joined((_literal(f) for f in field_names(cls)), "(none)")
                row = _row([_literal(cls.TYPE), str(cls.VERSION), kind, _visibility(cls),
                            [*fields, nodes.Text(": "), *_inline(_doc(cls))]])
                label = _event_label(cls.TYPE)
                row["ids"].append(label)
                std.note_object(EVENT_OBJECT, cls.TYPE, label, location=row)
                rows.append(row)
            result += [_rubric(plugin),
                       _table(("type", "v", "kind", "seats see", "fields and meaning"),
                              (25, 6, 8, 12, 49), rows)]
        return result


class OptionsDirective(SphinxDirective):
    """Every rule option: default, accepted values and meaning."""

    def run(self) -> list[nodes.Node]:
        options = shipped_ruleset().registry.options
        rows: list[list[Cell]] = [
            [_literal(spec.name), _literal(repr(spec.default)),
             _joined(_literal(repr(v)) for v in spec.choices), spec.doc]
            for spec in options.values()]
        return [_table(("option", "default", "values", "meaning"), (30, 15, 20, 35), rows)]


class PluginsDirective(SphinxDirective):
    """Every shipped plugin: id, version, requirements and description."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[Cell]] = []
        for plugin in shipped_ruleset().plugins:
            info = plugin_info(plugin)
            rows.append([_literal(info.id), info.version,
                         _joined(_literal(r) for r in info.requires), info.description])
        return [_table(("id", "version", "requires", "description"), (18, 10, 18, 54),
                       rows)]


def _event_link(type_name: str) -> addnodes.pending_xref:
    """A link to an event type's row of the event catalogue, shown as its wire name."""
    xref = addnodes.pending_xref("", refdomain="std", reftype=EVENT_OBJECT,
                                 reftarget=type_name, refexplicit=True, refwarn=True)
    xref.append(_literal(type_name))
    return xref


def _decided_by(step: StepType) -> list[nodes.Node]:
    if not step.is_decision:
        return [nodes.Text("the engine")]
    who: list[nodes.Node] = [nodes.Text("the traveller's player")]
    if step.automatic is True:
        who.append(nodes.Text(f"; {AUTOMATIC}"))
    elif step.automatic is not False:
        test = step.automatic  # its docstring says where (a question: "Whether ...")
        who += [nodes.Text(f"; {AUTOMATIC}, where "),
                _literal(getattr(test, "__name__", "a test")), nodes.Text(" holds")]
        where = _doc(test).rstrip(".")
        if where:
            who += [nodes.Text(" ("), *_inline(where[:1].lower() + where[1:]), nodes.Text(")")]
    return who


class StepsDirective(SphinxDirective):
    """Every step kind (``Game.current_step.kind``), grouped by the plugin registering
    it: decision or engine step, who decides, the actions that answer it, and what it is."""

    def run(self) -> list[nodes.Node]:
        plugins: dict[str, list[StepType]] = {}
        for step in shipped_ruleset().registry.steps.values():
            plugins.setdefault(step.plugin, []).append(step)
        result: list[nodes.Node] = []
        for plugin, steps in plugins.items():
            rows = [[_literal(step.kind), "decision" if step.is_decision else "engine step",
                     _decided_by(step), _joined(_event_link(a.TYPE) for a in step.answers),
                     (step.doc or "-") + (f' Shown as "{step.words}".' if step.words else "")]
                    for step in steps]
            result += [_rubric(plugin),
                       _table(("kind", "step", "decided by", "answered by", "what it is"),
                              (22, 9, 19, 18, 32), rows)]
        return result


class SchemaDirective(SphinxDirective):
    """The JSON Schema document of the wire format for the ruleset of ``:plugins:``
    (comma-separated ids; the base game if none), generated as the page is built."""

    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "plugins": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        plugins = [p.strip() for p in self.options.get("plugins", "base").split(",")]
        text = schema_text(Ruleset.build(plugins)).rstrip("\n")
        block = nodes.literal_block(text, text, language="json")
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_object_type(EVENT_OBJECT, EVENT_OBJECT, objname="event type")
    app.add_directive("tokaido-events", EventsDirective)
    app.add_directive("tokaido-options", OptionsDirective)
    app.add_directive("tokaido-plugins", PluginsDirective)
    app.add_directive("tokaido-steps", StepsDirective)
    app.add_directive("tokaido-schema", SchemaDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
