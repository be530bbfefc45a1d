"""Jinja2 templates for prompts and rendered test files, shipped as package data."""
