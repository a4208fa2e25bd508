package lineproto

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadReply(t *testing.T) {
	ftp := Limits{Line: 10, Lines: 3, Bytes: 64, Cut: true, Continue: FreeText, MinCode: 100, MaxCode: 599}
	smtp := Limits{Line: 10, Lines: 3, Continue: SameCode, MinCode: 200, MaxCode: 599}
	nntp := Limits{Line: 10, Lines: 1, Continue: Single, MinCode: 100, MaxCode: 599}
	for _, tc := range []struct {
		name  string
		lim   Limits
		in    string
		code  int
		lines string // joined with "|"
		err   error
	}{
		{"single", nntp, "200 ok\r\nrest", 200, "200 ok", nil},
		{"bare LF", nntp, "200 ok\n", 200, "200 ok", nil},
		{"code alone", nntp, "200\r\n", 200, "200", nil},
		{"no dash in NNTP", nntp, "200-ok\r\n", 0, "", ErrMalformed},
		{"code out of range", smtp, "150 go\r\n", 0, "", ErrMalformed},
		{"not digits", ftp, "2x0 ok\r\n", 0, "", ErrMalformed},
		{"FTP free middle", ftp, "211-a\r\n any\r\n211 end\r\n", 211, "211-a| any|211 end", nil},
		{"FTP 211- is no end", ftp, "211-a\r\n211-b\r\n211 c\r\n", 211, "211-a|211-b|211 c", nil},
		{"SMTP same code", smtp, "250-a\r\n250-b\r\n250 c\r\n", 250, "250-a|250-b|250 c", nil},
		{"SMTP other code", smtp, "250-a\r\n251 c\r\n", 0, "", ErrMalformed},
		{"SMTP free text", smtp, "250-a\r\nhello\r\n", 0, "", ErrMalformed},
		{"too many lines", smtp, "250-a\r\n250-b\r\n250-c\r\n250 d\r\n", 0, "", ErrTooManyLines},
		{"line cut", ftp, "200 0123456789abc\r\n", 200, "200 012345", nil},
		{"line refused", nntp, "200 0123456789abc\r\n", 0, "", ErrLineTooLong},
		{"line just fits", nntp, "200 012345\r\n", 200, "200 012345", nil},
		{"CR at the limit", nntp, "200 01234\r\r\n", 200, "200 01234\r", nil},
		{"reply too long", ftp, "211-" + strings.Repeat("x", 80) + "\r\n211 end\r\n", 0, "", ErrTooLong},
		{"EOF before", nntp, "", 0, "", io.EOF},
		{"EOF in a line", nntp, "200 o", 0, "", io.ErrUnexpectedEOF},
		{"EOF in a reply", ftp, "211-a\r\n", 0, "", io.ErrUnexpectedEOF},
	} {
		var seen []string
		code, lines, err := ReadReply(bufio.NewReaderSize(strings.NewReader(tc.in), 16), &tc.lim, func(l string) { seen = append(seen, l) })
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || code != tc.code || strings.Join(lines, "|") != tc.lines || strings.Join(seen, "|") != tc.lines {
			t.Errorf("%s: %d %q %v (seen %q), want %d %q", tc.name, code, lines, err, seen, tc.code, tc.lines)
		}
	}
}
