"""Study files that ship with gapsweep (installed as ``gapsweep.examples``).

``gapsweep examples`` lists them; ``gapsweep run --example clearance_x_stiffness`` (also
``submit``, ``study validate``) runs one without a copy of the repository. The files stay
plain TOML in the repository's ``examples/`` folder, where the README points to them.
"""
