package main

import "github.com/urlget/urlget/fetch"

// replyStatus is the protocol reply code inside a failure (an FTP 550, an
// NNTP 411), for -w %{response_code} as curl reports it; 0 when none.
func replyStatus(err error) int { return fetch.StatusOf(err) }
