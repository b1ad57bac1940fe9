"""The published variants of Tokaido, one module (and one plugin) each.

- ``rare-and-precious`` (requires ``crossroads``): fewer Crossroads cards in play.
- ``good-luck`` (requires ``crossroads``): a random amulet for a coin at the start.
"""
