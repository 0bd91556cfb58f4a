"""The Dash pages and Plotly figures. Built in a later issue."""
