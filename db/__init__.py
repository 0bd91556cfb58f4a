"""The study archive (SQLAlchemy models, repository functions). Built in a later issue."""
