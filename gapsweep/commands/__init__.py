"""The subcommands of ``gapsweep``, one module per group; each exposes ``register(sub)``."""
