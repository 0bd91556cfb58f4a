"""The Dash pages, one module per route (registered with dash.register_page)."""
