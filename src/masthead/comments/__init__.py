"""Comments, the pure part: what a submission is, the rules that decide its status, sanitizing
of readers' text, client identity (IP, commenter cookie, edit tokens). No SQL and no HTTP here:
`masthead.store.comments` keeps them, `masthead.comments.submit` ties the two together."""
