package main

// Placeholders while the subcommands are written.
func runURL(e env) int   { return fail(e, 2, "url: not yet built") }
func runFetch(e env) int { return fail(e, 2, "fetch: not yet built") }
