"""Comments in and out: WordPress WXR, Disqus and masthead JSON (parsers and the service)."""
