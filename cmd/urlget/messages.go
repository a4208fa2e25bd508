package main

import (
	"errors"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

// replyStatus is the protocol reply code inside a failure (an FTP 550, an
// NNTP 411), for -w %{response_code} as curl reports it; 0 when none.
func replyStatus(err error) int {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch v := e.(type) {
		case *ftp.ReplyError:
			return v.Code
		case *fetch.Error:
			if v.Status != 0 {
				return v.Status
			}
		}
	}
	return 0
}
