// Package lineproto reads and writes what the line protocols urlget speaks
// (FTP, SMTP, NNTP, gopher) have in common. ReadReply reads their replies:
// a three-digit code and text on a line; in FTP and SMTP, "NNN-" lines
// that continue a reply and a "NNN " line that ends it. DotReader (a
// stream) and ReadDotLine (a line at a time) read the data of a
// dot-terminated block, undoing dot-stuffing and stopping at the "." line;
// DotWriter writes one. Every reader holds its input within hard bounds
// (line length, line count, bytes in all, or a fixed buffer), so that a
// hostile server cannot make it grow.
package lineproto

import (
	"bufio"
	"errors"
	"io"
)

// The reasons a reply is refused, for errors.Is on a *ReplyError.
var (
	ErrLineTooLong  = errors.New("reply line too long")
	ErrMalformed    = errors.New("malformed reply")
	ErrTooManyLines = errors.New("reply has too many lines")
	ErrTooLong      = errors.New("reply too long")
)

// A ReplyError says why a reply was refused: Err is one of the values
// above; Line is the line that did it (at most Limits.Line bytes of it);
// Code is the reply's code once known. The protocol words the message.
type ReplyError struct {
	Err  error
	Line string
	Code int
}

func (e *ReplyError) Error() string { return e.Err.Error() }
func (e *ReplyError) Unwrap() error { return e.Err }

// Continuation is how a reply goes on over several lines.
type Continuation uint8

const (
	// Single: a status line (NNTP); "NNN-" is malformed.
	Single Continuation = iota
	// FreeText: "NNN-" opens a reply that a line starting with the same
	// "NNN " ends; the lines between are any text (FTP, RFC 959 §4.2).
	FreeText
	// SameCode: every line starts with the code, "NNN-" on all but the
	// last, "NNN " on the last (SMTP, RFC 5321 §4.2.1).
	SameCode
)

// Limits bound one reply and say its form.
type Limits struct {
	Line  int // bytes of a line, its line end aside
	Lines int // lines of a reply
	Bytes int // bytes of a reply, line ends included; 0: no bound but Line and Lines
	// Cut: a longer line is cut to Line bytes and the rest dropped (FTP);
	// otherwise it is ErrLineTooLong.
	Cut              bool
	Continue         Continuation
	MinCode, MaxCode int // the codes taken
}

// ReadReply reads one reply from br: its code and its lines, whole (code
// included) and without their line ends (CRLF or a bare LF). seen, when
// not nil, is given each line as it is read (for verbose output). The
// connection ending before a reply begins is io.EOF, in the middle of one
// io.ErrUnexpectedEOF; other read errors are returned as they are.
func ReadReply(br *bufio.Reader, lim *Limits, seen func(line string)) (code int, lines []string, err error) {
	var each func(line, end string)
	if seen != nil {
		each = func(line, _ string) { seen(line) }
	}
	return ReadReplyEnds(br, lim, each)
}

// ReadReplyEnds is ReadReply whose seen is also given each line's end as
// it came: "\r\n", or "\n" for a bare LF (to write a reply as received).
func ReadReplyEnds(br *bufio.Reader, lim *Limits, seen func(line, end string)) (code int, lines []string, err error) {
	total := 0
	first, end, err := readLine(br, lim, &total)
	if err != nil {
		return 0, nil, err
	}
	if seen != nil {
		seen(first, end)
	}
	code, ok := lineCode(first, lim)
	if !ok {
		return 0, nil, &ReplyError{Err: ErrMalformed, Line: first}
	}
	lines = []string{first}
	if lim.Continue == Single || len(first) == 3 || first[3] == ' ' {
		return code, lines, nil
	}
	for {
		if len(lines) >= lim.Lines {
			return 0, nil, &ReplyError{Err: ErrTooManyLines, Line: lines[len(lines)-1], Code: code}
		}
		line, end, err := readLine(br, lim, &total)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return 0, nil, err
		}
		if seen != nil {
			seen(line, end)
		}
		lines = append(lines, line)
		last := len(line) >= 3 && line[:3] == first[:3] && (len(line) == 3 || line[3] == ' ')
		if lim.Continue == SameCode {
			if c, ok := lineCode(line, lim); !ok || c != code {
				return 0, nil, &ReplyError{Err: ErrMalformed, Line: line, Code: code}
			}
		}
		if last {
			return code, lines, nil
		}
	}
}

// lineCode reads the code that starts a line: three digits, then the end
// of the line, a space, or (but for Single replies) "-".
func lineCode(line string, lim *Limits) (int, bool) {
	if len(line) < 3 || len(line) > 3 && line[3] != ' ' && (line[3] != '-' || lim.Continue == Single) {
		return 0, false
	}
	n := 0
	for i := range 3 {
		d := line[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, n >= lim.MinCode && n <= lim.MaxCode
}

// readLine reads one line without its line end, which it gives apart
// ("\r\n" or "\n"), within lim.Line (cut or refused) and lim.Bytes for the
// reply (*total so far).
func readLine(br *bufio.Reader, lim *Limits, total *int) (line, end string, err error) {
	var keep []byte // the first Line+2 bytes: the line and room for CRLF
	n := 0
	cr := false // the byte before the "\n" is a "\r"
	for {
		part, err := br.ReadSlice('\n')
		// cr follows the byte before the "\n", which may end the part
		// before the one that holds the "\n".
		if k := len(part); k > 0 && part[k-1] != '\n' {
			cr = part[k-1] == '\r'
		} else if k >= 2 {
			cr = part[k-2] == '\r'
		}
		n += len(part)
		*total += len(part)
		if lim.Bytes > 0 && *total > lim.Bytes {
			return "", "", &ReplyError{Err: ErrTooLong, Line: string(keep[:min(len(keep), lim.Line)])}
		}
		if room := lim.Line + 2 - len(keep); room > 0 {
			keep = append(keep, part[:min(len(part), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if !lim.Cut && n > lim.Line+2 {
				return "", "", &ReplyError{Err: ErrLineTooLong, Line: string(keep[:lim.Line])}
			}
			continue
		}
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return "", "", err
		}
		break
	}
	size := n - 1 // less the "\n"
	end = "\n"
	if cr {
		size--
		end = "\r\n"
	}
	if size > lim.Line {
		if !lim.Cut {
			return "", "", &ReplyError{Err: ErrLineTooLong, Line: string(keep[:lim.Line])}
		}
		return string(keep[:lim.Line]), end, nil
	}
	return string(keep[:size]), end, nil
}
