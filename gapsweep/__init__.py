"""gapsweep: clearance-joint parameter studies for planar mechanisms.

The Python face of the archive, for notebooks and scripts::

    import gapsweep

    archive = gapsweep.open()                    # GAPSWEEP_URL, else the configured database
    archive = gapsweep.open("~/runs/gapsweep")   # a data folder (its SQLite file and workers)
    archive = gapsweep.open("postgresql+psycopg://user@db/gapsweep")
    archive = gapsweep.open("https://gapsweep-host:8050", token="gsw_...")

    study_id = archive.submit("examples/clearance_x_stiffness.toml")  # or a dict, a StudySpec
    archive.wait(study_id)
    cases = archive.cases(study_id)              # pandas DataFrame, one row per case
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gapsweep.archive.protocol import Archive


def open(where: str | os.PathLike[str] | None = None, *, token: str | None = None) -> Archive:
    """Open an archive of studies.

    Parameters
    ----------
    where : str or path-like, optional
        A data folder (its SQLite file and workers), a database URL
        (``postgresql+psycopg://...``) or a server's ``http(s)://`` address; None means
        ``GAPSWEEP_URL``, else the configured database (see
        :func:`gapsweep.archive.opening.open_archive`).
    token : str, optional
        An API token (``gsw_...``, ``gapsweep user token NAME``) for a server; default
        ``GAPSWEEP_TOKEN``. A local archive needs none.

    Returns
    -------
    Archive
        With ``studies()``, ``study(id)``, ``submit(spec)``, ``wait(id)``, ``cases(id)``
        and the changes (``cancel``, ``retry`` ...). A local one acts as the machine's
        admin.
    """
    # imported here: `import gapsweep` (every subpackage's parent) stays free of SQLAlchemy
    from gapsweep.archive.opening import open_archive

    return open_archive(where, token=token)
