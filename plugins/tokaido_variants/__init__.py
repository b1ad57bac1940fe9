"""The published variants of Tokaido, one module (and one plugin) each.

Base variants (require ``base``): ``initiation``, ``return-journey``, ``gastronomy``,
``preparations``. Crossroads variants (require ``crossroads``): ``rare-and-precious``,
``good-luck``. All of them combine with each other and with 2 to 5 players. The preset
``bga`` (requires ``base``) sets the options of the rules as played online.
"""
