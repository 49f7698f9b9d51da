"""Moving in: whole sites made into masthead sites (Hugo), with a report of what came across."""
