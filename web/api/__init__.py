"""The JSON API (design.md 4.4) and the health routes on the Dash app's Flask server."""
