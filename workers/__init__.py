"""The Celery app and tasks. Built in a later issue."""
