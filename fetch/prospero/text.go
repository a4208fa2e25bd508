package prospero

import (
	"errors"
	"strings"
)

// This file is the lexical layer of Prospero protocol v5, as the ISI
// server's code quotes and scans tokens (its %'s and qsscanf): quoting
// tokens for a request, and cutting a reply into lines of unquoted tokens.

// needsQuote are the bytes that make the ISI code start quoting a token.
const needsQuote = " \t\f\v\n\r/'+,"

// Quote writes s as one protocol token the way the ISI server does: ""
// is two quotes; otherwise bytes are copied until the first one of SP TAB FF VT
// LF CR / ' + , where a "'" opens a quoted run that lasts to the end of
// the token, with "'" doubled inside it.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	i := strings.IndexAny(s, needsQuote)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	b.WriteString(s[:i])
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s[i:], "'", "''"))
	b.WriteByte('\'')
	return b.String()
}

// Limits on a parsed reply.
const (
	maxTokens = 4096 // per line
)

var errUnterminated = errors.New("unterminated quoted string")

// Lines cuts a message into lines of unquoted tokens. Lines end at an
// unquoted LF (the last may lack it); tokens are separated by runs of
// unquoted spaces and tabs; a "'" anywhere in a token opens a quoted run
// in which every byte is literal and a doubled quote is one "'". Empty lines are
// dropped.
func Lines(msg []byte) ([][]string, error) {
	var (
		lines [][]string
		line  []string
		tok   []byte
		inTok bool
	)
	endTok := func() error {
		if inTok {
			if len(line) >= maxTokens {
				return errors.New("too many tokens on a line")
			}
			line = append(line, string(tok))
			tok, inTok = tok[:0], false
		}
		return nil
	}
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch c {
		case '\'':
			inTok = true
			j := i + 1
			for {
				k := indexByte(msg[j:], '\'')
				if k < 0 {
					return nil, errUnterminated
				}
				tok = append(tok, msg[j:j+k]...)
				j += k + 1
				if j < len(msg) && msg[j] == '\'' {
					tok = append(tok, '\'')
					j++
					continue
				}
				break
			}
			i = j - 1
		case ' ', '\t':
			if err := endTok(); err != nil {
				return nil, err
			}
		case '\n':
			if err := endTok(); err != nil {
				return nil, err
			}
			if len(line) > 0 {
				lines = append(lines, line)
			}
			line = nil
		default:
			inTok = true
			tok = append(tok, c)
		}
	}
	if err := endTok(); err != nil {
		return nil, err
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines, nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
