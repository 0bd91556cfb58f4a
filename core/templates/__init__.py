"""Mechanism templates: the reference mechanisms a study can be run on."""
