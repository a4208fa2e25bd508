package ftp

import (
	"strings"

	"github.com/urlget/urlget/fetch"
)

// ParseList parses one line of a LIST reply on its own, in whichever format
// it is (see ListFormat for the formats). A listing is better read with a
// ListParser, which settles the format on the first lines and keeps to it,
// and joins the two lines of a wrapped VMS entry; ParseList is a
// ListParser that sees one line.
//
// Names are kept byte for byte (leading spaces, "/", "..", control bytes
// included; a VMS name with its ";version"): they are data, never paths —
// see SafeName. A line that fits no format ("total 12", a localised date,
// garbage) gives an Entry with Unparsed set and only Raw; it is never an
// error. Times without a year or zone are taken as UTC, in the year that
// puts them not after tomorrow. A size the line gives but that does not fit
// in an int64 is unknown (-1); the entry is kept.
func ParseList(line string) fetch.Entry {
	return NewListParser(ListAuto).Parse(line)
}

// ParseNLST makes an entry of one NLST line: the name, type unknown.
func ParseNLST(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return unparsed(line)
	}
	return fetch.Entry{Name: line, Size: -1, Raw: line}
}

func unparsed(line string) fetch.Entry {
	return fetch.Entry{Raw: line, Unparsed: true, Size: -1}
}

// field is one whitespace-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

// fields splits line at runs of spaces and tabs, at most n fields.
func fields(line string, n int) []field {
	var out []field
	i := 0
	for len(out) < n {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		out = append(out, field{line[i:j], j})
		i = j
	}
	return out
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
