package mirror

import (
	"encoding/json"
	"strconv"
	"strings"
)

// decodeRecord parses a manifest line into r, as json.Unmarshal does.
//
// A rerun reads one record for every file it lists, and encoding/json
// (reflection, a validating pass, then a decoding one) took a sixth of a
// no-change rerun's CPU. So a line as json.Marshal writes a Record — one
// flat object of the Record's own keys, strings of printable ASCII with no
// escape, whole numbers, true and false, no white space — is read here in
// one pass, its strings sharing one copy of the line; anything else (an
// escape, a byte past ASCII, another key, null, white space) goes to
// json.Unmarshal, so the result is always the one it gives.
func decodeRecord(line []byte, r *Record) error {
	if quickRecord(string(line), r) {
		return nil
	}
	*r = Record{}
	return json.Unmarshal(line, r)
}

// quickRecord is decodeRecord's one pass: false (and r untouched) when
// the line is not one it reads.
func quickRecord(s string, r *Record) bool {
	if len(s) < 2 || s[0] != '{' {
		return false
	}
	var q Record
	if s == "{}" {
		*r = q
		return true
	}
	for i := 1; ; {
		key, n, ok := quickString(s, i)
		if !ok || n >= len(s) || s[n] != ':' || n+1 >= len(s) {
			return false
		}
		i = n + 1
		switch s[i] {
		case '"':
			v, n, ok := quickString(s, i)
			f := q.stringField(key)
			if !ok || f == nil {
				return false
			}
			*f, i = v, n
		case 't', 'f':
			if key != "unconfirmed" {
				return false
			}
			switch {
			case len(s) >= i+4 && s[i:i+4] == "true":
				q.Unconfirmed, i = true, i+4
			case len(s) >= i+5 && s[i:i+5] == "false":
				q.Unconfirmed, i = false, i+5
			default:
				return false
			}
		default:
			if key != "size" {
				return false
			}
			j := i
			if s[j] == '-' {
				j++
			}
			d := j
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			if j == d || s[d] == '0' && j > d+1 { // JSON has no leading zeros
				return false
			}
			v, err := strconv.ParseInt(s[i:j], 10, 64)
			if err != nil {
				return false
			}
			q.Size, i = v, j
		}
		switch {
		case i < len(s) && s[i] == ',':
			i++
		case i == len(s)-1 && s[i] == '}':
			*r = q
			return true
		default:
			return false
		}
	}
}

// quickString reads the JSON string that starts at s[i] when it holds only
// printable ASCII and no escape: its text and the index after it.
func quickString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", 0, false
		}
	}
	return "", 0, false
}

// stringField is the Record's string field of JSON key k, nil when none.
func (r *Record) stringField(k string) *string {
	switch k {
	case "url":
		return &r.URL
	case "path":
		return &r.Path
	case "type":
		return &r.Type
	case "name":
		return &r.Name
	case "item_type":
		return &r.ItemType
	case "mtime":
		return &r.MTime
	case "mtime_source":
		return &r.MTimeSource
	case "key":
		return &r.Key
	case "sha256":
		return &r.SHA256
	case "etag":
		return &r.ETag
	case "fetched":
		return &r.Fetched
	case "status":
		return &r.Status
	case "target":
		return &r.Target
	case "parent":
		return &r.Parent
	case "error":
		return &r.Error
	}
	return nil
}

// decodePathLine parses a line of a pathIndex file into pl, as
// json.Unmarshal does: a line as Marshal writes it in one pass (as
// decodeRecord reads records), any other by json.Unmarshal.
func decodePathLine(line []byte, pl *pathLine) error {
	const pre, mid = `{"url":`, `,"owner":`
	if s := string(line); strings.HasPrefix(s, pre) {
		p, n, ok := quickString(s, len(pre))
		if ok && strings.HasPrefix(s[n:], mid) {
			if o, e, ok := quickString(s, n+len(mid)); ok && e == len(s)-1 && s[e] == '}' {
				*pl = pathLine{Path: p, Owner: o}
				return nil
			}
		}
	}
	*pl = pathLine{}
	return json.Unmarshal(line, pl)
}
