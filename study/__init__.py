"""Studies: the spec a file, form or API gives, its designs (the case lists) and their analyses.

Knows nothing of SQL, Celery or Dash: the CLI, the API and the pages all use it."""
