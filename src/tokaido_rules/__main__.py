"""``python -m tokaido_rules``: the ``tokaido`` command line."""

from .cli import _entry

if __name__ == "__main__":  # pragma: no cover
    _entry()
