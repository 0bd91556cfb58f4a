"""What several test folders share: fixtures' building blocks, HTTP helpers, process
helpers and the import-graph finder. ``tests/`` is on ``sys.path`` (``pythonpath`` in
pyproject.toml's ``[tool.pytest.ini_options]``), so a test imports ``support.<module>``
from any folder; the fixtures themselves live in the conftest.py files."""
