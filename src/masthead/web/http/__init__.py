"""HTTP plumbing: forms, CSRF, CORS, security headers, media, redirects, the served address."""
