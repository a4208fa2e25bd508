package fetch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Netrc is a parsed netrc file (the ~/.netrc of ftp(1) and curl).
//
// The file is a sequence of tokens separated by spaces, tabs and newlines:
//
//	machine NAME     starts the entry for host NAME
//	default          starts the entry for every other host
//	login NAME       the user name for the current entry
//	password PASS    its password ("passwd" is accepted too)
//	account ACCT     an account (kept, unused by urlget)
//	macdef NAME      an ftp(1) macro: its body runs to the next empty line
//	                 and is skipped
//
// A token may be written in double quotes, with \" \\ \n \r \t escapes,
// to hold spaces. '#' at the start of a token comments out the rest of the
// line. Unknown tokens are ignored; login, password or account before any
// machine or default are ignored too.
type Netrc struct {
	Machines []NetrcMachine // in file order, the default entry included
}

// NetrcMachine is one entry of a netrc file.
type NetrcMachine struct {
	Name        string // host name; "" for the default entry
	Default     bool
	Login       string
	Password    string
	HasPassword bool
	Account     string
}

// maxNetrcSize bounds what ReadNetrc and ParseNetrc read.
const maxNetrcSize = 1 << 20

// DefaultNetrcPath is $HOME/.netrc.
func DefaultNetrcPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".netrc"), nil
}

// ReadNetrc reads and parses the netrc file at path.
func ReadNetrc(path string) (*Netrc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := ParseNetrc(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// ParseNetrc parses a netrc file (see Netrc for the syntax).
func ParseNetrc(r io.Reader) (*Netrc, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxNetrcSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxNetrcSize {
		return nil, errors.New("netrc file larger than 1 MiB")
	}
	t := netrcTokens{s: string(data)}
	n := &Netrc{}
	var cur *NetrcMachine
	for {
		tok, ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return n, nil
		}
		switch tok {
		case "machine":
			name, err := t.value(tok)
			if err != nil {
				return nil, err
			}
			n.Machines = append(n.Machines, NetrcMachine{Name: name})
			cur = &n.Machines[len(n.Machines)-1]
		case "default":
			n.Machines = append(n.Machines, NetrcMachine{Default: true})
			cur = &n.Machines[len(n.Machines)-1]
		case "login", "password", "passwd", "account":
			v, err := t.value(tok)
			if err != nil {
				return nil, err
			}
			if cur == nil {
				continue
			}
			switch tok {
			case "login":
				cur.Login = v
			case "account":
				cur.Account = v
			default:
				cur.Password, cur.HasPassword = v, true
			}
		case "macdef":
			if _, err := t.value(tok); err != nil {
				return nil, err
			}
			t.skipMacro()
		}
	}
}

// Lookup finds the entry for host: the first, in file order, that is the
// machine entry of that name (compared without regard to case) or the
// default entry, whose login is login, or any login when login is "". The
// default entry belongs after every machine entry; one before them
// matches first, as in curl.
func (n *Netrc) Lookup(host, login string) (NetrcMachine, bool) {
	if n == nil {
		return NetrcMachine{}, false
	}
	for _, m := range n.Machines {
		if (m.Default || strings.EqualFold(m.Name, host)) && (login == "" || m.Login == login) {
			return m, true
		}
	}
	return NetrcMachine{}, false
}

// netrcTokens splits a netrc file into tokens.
type netrcTokens struct {
	s string
	i int
}

func (t *netrcTokens) next() (string, bool, error) {
	for t.i < len(t.s) {
		c := t.s[t.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			t.i++
		case c == '#':
			for t.i < len(t.s) && t.s[t.i] != '\n' {
				t.i++
			}
		case c == '"':
			return t.quoted()
		default:
			j := t.i
			for j < len(t.s) && !strings.ContainsRune(" \t\n\r\f\v", rune(t.s[j])) {
				j++
			}
			tok := t.s[t.i:j]
			t.i = j
			return tok, true, nil
		}
	}
	return "", false, nil
}

func (t *netrcTokens) quoted() (string, bool, error) {
	var b strings.Builder
	for t.i++; t.i < len(t.s); t.i++ {
		c := t.s[t.i]
		switch c {
		case '"':
			t.i++
			return b.String(), true, nil
		case '\\':
			t.i++
			if t.i == len(t.s) {
				break
			}
			switch e := t.s[t.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false, errors.New("netrc: unterminated quoted token")
}

func (t *netrcTokens) value(after string) (string, error) {
	v, ok, err := t.next()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("netrc: " + after + " without a value at the end of the file")
	}
	return v, nil
}

// skipMacro skips a macdef body: the rest of the macdef line, then every
// line up to and including the next empty one.
func (t *netrcTokens) skipMacro() {
	nl := strings.IndexByte(t.s[t.i:], '\n')
	if nl < 0 {
		t.i = len(t.s)
		return
	}
	t.i += nl + 1
	for t.i < len(t.s) {
		nl := strings.IndexByte(t.s[t.i:], '\n')
		if nl < 0 {
			t.i = len(t.s)
			return
		}
		line := strings.TrimRight(t.s[t.i:t.i+nl], "\r")
		t.i += nl + 1
		if line == "" {
			return
		}
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
