package lineproto

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// The seeds' forms: form%3 is the Continuation, form&4 Cut, form&8 codes
// from 200 (SMTP) rather than 100.
const (
	ftpForm  = uint8(FreeText) | 4
	smtpForm = uint8(SameCode) | 8
	nntpForm = uint8(Single)
)

// FuzzReadReply: the replies read one after another from any bytes, in
// every form and within any limits, keep them: a code in range that starts
// the first line, at most Lines lines of at most Line bytes and no LF, at
// most Bytes in all, one line for Single, the code on every line for
// SameCode, a multi-line reply ending on its code, every line given to
// seen; and the work is bounded by the input. It replaces the targets of
// the FTP, SMTP and NNTP readers this one became (their seeds are here).
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		"220 (vsFTPd 3.0.3)\r\n",
		"220---------- Welcome to Pure-FTPd [privsep] [TLS] ----------\r\n220-You are user number 1 of 50 allowed.\r\n" +
			"220-Local time is now 12:00. Server port: 21.\r\n220 You will be disconnected after 15 minutes of inactivity.\r\n",
		"211-Features:\r\n MDTM\r\n REST STREAM\r\n SIZE\r\n MLST type*;size*;modify*;\r\n UTF8\r\n211 End\r\n",
		"230-first\r\n 230 indented is text\r\n230-still going\r\n230\r\n",
		"211-x\r\n123 other code\r\n211 End\r\n150 Here comes the directory listing.\r\n226 Directory send OK.\r\n",
		"2200 bad\r\n", "099 low\r\n", "220-never ends\r\n", "220 bare LF\n", "220 \x1b[31mred\x1b[0m\r\n",
		"220 " + strings.Repeat("x", 3*4096) + "\r\n221 next\r\n",
		"230-a\r\n" + strings.Repeat("x\r\n", 2001) + "230 end\r\n",
	} {
		f.Add([]byte(s), ftpForm, uint16(4096), uint16(2000), uint32(256<<10))
	}
	for _, s := range []string{
		"220 localhost ESMTP OpenSMTPD\r\n",
		"250-localhost Hello [127.0.0.1], pleased to meet you\r\n250-8BITMIME\r\n250-ENHANCEDSTATUSCODES\r\n250-SIZE 36700160\r\n250-DSN\r\n250 HELP\r\n",
		"220 example ESMTP Exim 4.96\r\n250-example Hello\r\n250-STARTTLS\r\n250-AUTH PLAIN LOGIN\r\n250 HELP\r\n",
		"354 Enter mail, end with \".\" on a line by itself\r\n250 2.0.0 Ok: queued as 1234\r\n",
		"550 5.1.1 <nobody@example.net>: Recipient address rejected\r\n",
		"250-a\r\n251 b\r\n", "25\r\n", "199 low\r\n", "250x\r\n", "250\r\n", "250-never ends\r\n",
		"421 \x1b]0;title\x07 closing\r\n", "250 " + strings.Repeat("x", 2048) + "\r\n", strings.Repeat("250-x\r\n", 101) + "250 end\r\n",
	} {
		f.Add([]byte(s), smtpForm, uint16(2046), uint16(100), uint32(0))
	}
	for _, s := range []string{
		"200 news.example.net InterNetNews NNRP server INN 2.7.1 ready (posting ok)\r\n",
		"101 Capability list:\r\n", "211 3 1 3 misc.test\r\n", "480 Authentication required\r\n",
		"411 no such group\n", "20 short\r\n", "2000 long code\r\n", "600 high\r\n", "211\r\n", "211-x\r\n",
		"200 \x1b[2J\x9b\xff\r\n", "200 " + strings.Repeat("x", 4097) + "\r\n",
	} {
		f.Add([]byte(s), nntpForm, uint16(4096), uint16(1), uint32(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, form uint8, line, lines uint16, total uint32) {
		lim := &Limits{Line: int(line%8192) + 1, Lines: int(lines%4096) + 1, Bytes: int(total % (1 << 20)),
			Cut: form&4 != 0, Continue: Continuation(form % 3), MinCode: 100, MaxCode: 599}
		if form&8 != 0 {
			lim.MinCode = 200
		}
		fuzzcheck.Bounded(t, len(data), func() {
			br := bufio.NewReaderSize(bytes.NewReader(data), max(lim.Line+2, 16))
			for {
				var seen []string
				code, got, err := ReadReply(br, lim, func(l string) { seen = append(seen, l) })
				if err != nil {
					return
				}
				checkReply(t, lim, code, got, seen)
			}
		})
	})
}

func checkReply(t *testing.T, lim *Limits, code int, lines, seen []string) {
	t.Helper()
	c := strconv.Itoa(code)
	switch {
	case code < lim.MinCode || code > lim.MaxCode:
		t.Fatalf("code %d outside %d–%d", code, lim.MinCode, lim.MaxCode)
	case len(lines) == 0 || len(lines) > lim.Lines || lim.Continue == Single && len(lines) != 1:
		t.Fatalf("reply %d of %d lines (%+v)", code, len(lines), lim)
	case !strings.HasPrefix(lines[0], c) || len(seen) != len(lines):
		t.Fatalf("reply %d: lines %q, seen %q", code, lines, seen)
	}
	n := 0
	for _, l := range lines {
		n += len(l) + 1
		if len(l) > lim.Line || strings.Contains(l, "\n") || lim.Continue == SameCode && !strings.HasPrefix(l, c) {
			t.Fatalf("reply %d: line %q (%+v)", code, l, lim)
		}
	}
	if lim.Bytes > 0 && n > lim.Bytes {
		t.Fatalf("reply %d of %d bytes kept (max %d)", code, n, lim.Bytes)
	}
	if last := lines[len(lines)-1]; len(lines) > 1 && last != c && !strings.HasPrefix(last, c+" ") {
		t.Fatalf("multi-line reply %d ends with %q", code, last)
	}
}
