"""Two example plugins for tokaido-rules, written only against its public API.

- ``pilgrim``: a new traveller, Basho the poet (content and a power).
- ``tea-ceremony``: a house rule with its own rule option, score category and event type.
"""
