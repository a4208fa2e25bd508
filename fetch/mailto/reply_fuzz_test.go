package mailto

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzReadReply: the replies read one after another from any bytes keep
// the reader's bounds (a code of 200–599, the same on every line, at most
// maxReplyLines lines), their text, the verbose log and the errors are
// sanitized, and the work is bounded by the input.
func FuzzReadReply(f *testing.F) {
	fuzzcheck.Seeds(f,
		"220 localhost ESMTP OpenSMTPD\r\n",
		"250-localhost Hello [127.0.0.1], pleased to meet you\r\n250-8BITMIME\r\n250-ENHANCEDSTATUSCODES\r\n250-SIZE 36700160\r\n250-DSN\r\n250 HELP\r\n",
		"220 example ESMTP Exim 4.96\r\n250-example Hello\r\n250-STARTTLS\r\n250-AUTH PLAIN LOGIN\r\n250 HELP\r\n",
		"354 Enter mail, end with \".\" on a line by itself\r\n250 2.0.0 Ok: queued as 1234\r\n",
		"550 5.1.1 <nobody@example.net>: Recipient address rejected\r\n",
		"250-a\r\n251 b\r\n", "25\r\n", "199 low\r\n", "250x\r\n", "250\r\n", "250-never ends\r\n",
		"421 \x1b]0;title\x07 closing\r\n",
		"250 "+strings.Repeat("x", maxReplyLine)+"\r\n",
		strings.Repeat("250-x\r\n", maxReplyLines+1)+"250 end\r\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var verbose bytes.Buffer
		s := &session{ctx: context.Background(), nc: readConn{}, br: bufio.NewReaderSize(bytes.NewReader(data), maxReplyLine), verbose: &verbose}
		fuzzcheck.Bounded(t, len(data), func() {
			for {
				code, lines, err := s.read(time.Minute, "the test")
				if err != nil {
					fuzzcheck.Printable(t, "the error", err.Error())
					return
				}
				if code < 200 || code > 599 || len(lines) == 0 || len(lines) > maxReplyLines {
					t.Fatalf("reply %d of %d lines", code, len(lines))
				}
				for _, l := range lines {
					fuzzcheck.Printable(t, "a reply line", l)
				}
			}
		})
		fuzzcheck.Printable(t, "the verbose log", verbose.String())
	})
}

// readConn is the connection of a session that only reads from its
// bufio.Reader: deadlines and Close do nothing.
type readConn struct{ net.Conn }

func (readConn) SetDeadline(time.Time) error { return nil }
func (readConn) Close() error                { return nil }
