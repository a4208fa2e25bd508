package nntp

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// fuzzBase is the URL prefix of the listing lines the fuzz targets format.
const fuzzBase = "nntp://127.0.0.1:119/misc.test/"

// fuzzConn is a session that reads data.
func fuzzConn(data []byte, verbose *bytes.Buffer) *conn {
	return &conn{ctx: context.Background(), br: newReader(bytes.NewReader(data)), verbose: verbose}
}

// FuzzReadReply: the status lines read one after another from any bytes
// have a code of 100–599 and at most MaxReplyLine bytes, the verbose log
// and the errors are sanitized, and the work is bounded by the input.
func FuzzReadReply(f *testing.F) {
	fuzzcheck.Seeds(f,
		"200 news.example.net InterNetNews NNRP server INN 2.7.1 ready (posting ok)\r\n",
		"101 Capability list:\r\n", "211 3 1 3 misc.test\r\n", "480 Authentication required\r\n",
		"411 no such group\n", "20 short\r\n", "2000 long code\r\n", "600 high\r\n", "211\r\n",
		"200 \x1b[2J\x9b\xff\r\n", "200 "+strings.Repeat("x", MaxReplyLine+1)+"\r\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var verbose bytes.Buffer
		c := fuzzConn(data, &verbose)
		fuzzcheck.Bounded(t, len(data), func() {
			for {
				r, err := c.readReply()
				if err != nil {
					fuzzcheck.Printable(t, "the error", err.Error())
					return
				}
				if r.code < 100 || r.code > 599 || len(r.line) > MaxReplyLine || !strings.HasPrefix(r.line, strconv.Itoa(r.code)) {
					t.Fatalf("reply %d %q", r.code, r.line)
				}
			}
		})
		fuzzcheck.Printable(t, "the verbose log", verbose.String())
	})
}

// FuzzArticleLine: an overview line from the server (OVER) makes a listing
// line that ParseArticleLine reads back, with the article's number, the
// URL of that number and sanitized fields; any line that ParseArticleLine
// takes, formatted again, reads back the same the second time (the first
// formatting sanitizes); every entry keeps the fetch.Entry contract.
func FuzzArticleLine(f *testing.F) {
	fuzzcheck.Seeds(f,
		"1\tSubject 1\tposter1@example.net\tMon, 2 Jan 2006 15:04:05 +0000\t<gen1@example.net>\t\t100\t3",
		"3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17\tXref: news.example.com misc.test:3000363",
		"12\t2024-03-01T12:00:00Z\tA <a@b>\tHi\tnntp://h:119/g/12\n",
		"7\t \x1b[31m red \t\x00from\tnot a date", "-1\ta\tb\tc", "99999999999999999999\ta\tb\tc", "x\ta\tb\tc\td", "1\t2\t3\t4\t5\t6\t7",
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzcheck.Bounded(t, len(line), func() {
			if out := overviewLine(line, fuzzBase); out != nil {
				num, _, _ := bytes.Cut(line, []byte{'\t'})
				n, _ := strconv.ParseInt(string(num), 10, 64)
				a := readBack(t, out)
				if a.Number != n || a.URL != fuzzBase+strconv.FormatInt(n, 10) {
					t.Fatalf("OVER %q: listed as %+v", line, a)
				}
			}
			fuzzcheck.Entry(t, entryOf(line))
			a, err := ParseArticleLine(line)
			if err != nil {
				return
			}
			if a.Number < 0 {
				t.Fatalf("%q: article %d", line, a.Number)
			}
			once := readBack(t, formatArticle(a.Number, a.Date, a.Author, a.Subject, fuzzBase))
			if twice := readBack(t, formatArticle(once.Number, once.Date, once.Author, once.Subject, fuzzBase)); twice != once {
				t.Fatalf("%q: formatted again reads %+v, then %+v", line, once, twice)
			}
		})
	})
}

// readBack parses a listing line the package formatted: it must parse, as
// an entry too, and its text fields must be sanitized.
func readBack(t *testing.T, line []byte) ArticleEntry {
	t.Helper()
	a, err := ParseArticleLine(line)
	if err != nil {
		t.Fatalf("formatted line %q does not parse: %v", line, err)
	}
	for _, s := range []string{a.Date, a.Author, a.Subject} {
		fuzzcheck.Printable(t, "a listing field", s)
	}
	fuzzcheck.Entry(t, entryOf(line))
	return a
}

// FuzzGroupLine: a group listing line parses to a named group (a name
// without TAB) or not at all, and its entry keeps the fetch.Entry contract.
func FuzzGroupLine(f *testing.F) {
	fuzzcheck.Seeds(f,
		"g\t10\t2\tm\tdesc\tnntp://h:119/g", "misc.test\t3\t1\ty\t\tnntp://127.0.0.1:119/misc.test\n",
		"\t1\t1\ty\t\tu", "a\tx\t1\ty\t\tu", "a\t1\t1\ty\t\tu\textra", "a/../b\t-5\t9\t=other.group\t\x1b\tu",
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzcheck.Bounded(t, len(line), func() {
			if g, err := ParseGroupLine(line); err == nil && (g.Name == "" || strings.Contains(g.Name, "\t")) {
				t.Fatalf("%q: group %+v", line, g)
			}
			fuzzcheck.Entry(t, entryOf(line))
		})
	})
}

// FuzzReadHeaders: the headers of a HEAD reply are kept within
// maxHeaderField bytes each, however many folded lines the server sends,
// the work is bounded by the input, and the listing line made of them
// parses.
func FuzzReadHeaders(f *testing.F) {
	long := strings.Repeat("s", maxHeaderField+10)
	fuzzcheck.Seeds(f,
		"Path: news.example.net!not-for-mail\r\nFrom: \"Demo User\" <nobody@example.com>\r\nNewsgroups: misc.test\r\n"+
			"Subject: I am just a test article\r\nDate: 6 Oct 1998 04:38:40 -0500\r\nMessage-ID: <45223423@example.com>\r\n.\r\n",
		"Subject: folded\r\n  over\r\n\ttwo lines\r\nsubject: second is ignored\r\n.\r\n",
		"Subject: "+long+"\r\n .\r\n",
		"Subject: "+long+"\r\n"+strings.Repeat(" x\r\n", 2000)+".\r\n",
		"From: a\r\n"+strings.Repeat(" \r\n", 4000)+".\r\n",
		"Date: Mon, 2 Jan 2006 15:04:05 +0000\r\nno colon\r\n..dot\r\n", "Subject: no end\r\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			h, err := readHeaders(fuzzConn(data, nil))
			if err != nil {
				return
			}
			for _, v := range []string{h.subject, h.from, h.date} {
				if len(v) > maxHeaderField {
					t.Fatalf("a header of %d bytes kept (max %d)", len(v), maxHeaderField)
				}
			}
			readBack(t, formatArticle(1, h.date, h.from, h.subject, fuzzBase))
		})
	})
}
