"""Rendering: the Renderer and the helpers that turn rows into template contexts."""
