"""Import a planar ADAMS/Solver dataset (.adm) as a mechanism study (design.md 4.13).

:mod:`.tokenizer` splits the dataset into statements, :mod:`.statements` resolves their
keyword abbreviations and values, :mod:`.functions` reads the FUNCTION expressions it
supports, :mod:`.to_mechanism` maps them onto a ``[mechanism]`` table and
:mod:`.study_file` writes the study; :mod:`.export` writes a mechanism back as a dataset.
"""

from .errors import AdamsError
from .to_mechanism import Import, import_dataset

__all__ = ["AdamsError", "Import", "import_dataset"]
