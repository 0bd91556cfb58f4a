"""Plotly figures as pure functions: data in, go.Figure out."""
