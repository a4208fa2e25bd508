package ftp

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzReadReply: the replies read one after another from any bytes keep
// ReadReply's bounds (a code of 100–599 that starts the first line, at most
// MaxReplyLines lines of at most MaxReplyLine bytes, a multi-line reply
// ending on its code), the verbose log is sanitized, and the work is
// bounded by the input.
func FuzzReadReply(f *testing.F) {
	fuzzcheck.Seeds(f,
		"220 (vsFTPd 3.0.3)\r\n",
		"220---------- Welcome to Pure-FTPd [privsep] [TLS] ----------\r\n220-You are user number 1 of 50 allowed.\r\n"+
			"220-Local time is now 12:00. Server port: 21.\r\n220 You will be disconnected after 15 minutes of inactivity.\r\n",
		"211-Features:\r\n MDTM\r\n REST STREAM\r\n SIZE\r\n MLST type*;size*;modify*;\r\n UTF8\r\n211 End\r\n",
		"230-first\r\n 230 indented is text\r\n230-still going\r\n230\r\n",
		"211-x\r\n123 other code\r\n211 End\r\n150 Here comes the directory listing.\r\n226 Directory send OK.\r\n",
		"2200 bad\r\n", "099 low\r\n", "220-never ends\r\n", "220 bare LF\n",
		"220 \x1b[31mred\x1b[0m\r\n",
		"220 "+strings.Repeat("x", 3*MaxReplyLine)+"\r\n221 next\r\n",
		"230-a\r\n"+strings.Repeat("x\r\n", MaxReplyLines+1)+"230 end\r\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var verbose bytes.Buffer
		fuzzcheck.Bounded(t, len(data), func() {
			br := bufio.NewReaderSize(bytes.NewReader(data), MaxReplyLine)
			for {
				code, lines, err := ReadReply(br, &verbose)
				if err != nil {
					return
				}
				checkReply(t, code, lines)
			}
		})
		fuzzcheck.Printable(t, "the verbose log", verbose.String())
	})
}

func checkReply(t *testing.T, code int, lines []string) {
	t.Helper()
	c := strconv.Itoa(code)
	switch {
	case code < 100 || code > 599:
		t.Fatalf("code %d", code)
	case len(lines) == 0 || len(lines) > MaxReplyLines:
		t.Fatalf("reply %d of %d lines", code, len(lines))
	case !strings.HasPrefix(lines[0], c):
		t.Fatalf("reply %d starts %q", code, lines[0])
	}
	for _, l := range lines {
		if len(l) > MaxReplyLine || strings.Contains(l, "\n") {
			t.Fatalf("reply %d: line of %d bytes %q", code, len(l), l)
		}
	}
	if last := lines[len(lines)-1]; len(lines) > 1 && !(last == c || strings.HasPrefix(last, c+" ")) {
		t.Fatalf("multi-line reply %d ends with %q", code, last)
	}
}
