"""`masthead build`: the public site written out as files for a static host or CDN."""
