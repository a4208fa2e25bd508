package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// ParseMLSx parses one line of an MLSD reply, or the fact line of an MLST
// reply, as RFC 3659 §7 defines an entry: "[facts] SP pathname", where
// facts are "fact=value;" repeated. A line that starts with a space has no
// facts (" name"); the MLST caller removes the space that starts every
// fact line of an MLST reply before calling. type=file, dir, cdir, pdir,
// OS.unix=slink:TARGET and OS.unix=symlink are recognised; size (or the
// "sizd" some servers give directories) and modify give Size and ModTime.
// A fact without "=", an empty name or a modify fact that is not a time-val
// make the line Unparsed.
func ParseMLSx(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if e, _, ok := parseMLSx(line); ok {
		return e
	}
	return unparsed(line)
}

// parseMLSx also reports whether the entry is the listed directory itself
// or its parent (type=cdir or pdir).
func parseMLSx(line string) (e fetch.Entry, self bool, ok bool) {
	sp := strings.IndexByte(line, ' ')
	if sp < 0 || sp > 0 && line[sp-1] != ';' {
		return e, false, false
	}
	facts := line[:sp]
	e = fetch.Entry{Name: line[sp+1:], Size: -1, Raw: line}
	if e.Name == "" {
		return e, false, false
	}
	sizd := int64(-1)
	for _, f := range strings.Split(strings.TrimSuffix(facts, ";"), ";") {
		if facts == "" {
			break
		}
		k, v, found := strings.Cut(f, "=")
		if !found || k == "" {
			return e, false, false
		}
		switch strings.ToLower(k) {
		case "type":
			lv := strings.ToLower(v)
			switch {
			case lv == "file":
				e.Type = fetch.EntryFile
			case lv == "dir":
				e.Type = fetch.EntryDir
			case lv == "cdir" || lv == "pdir":
				e.Type, self = fetch.EntryDir, true
			case strings.HasPrefix(lv, "os.unix=slink"):
				e.Type = fetch.EntryLink
				if _, t, ok := strings.Cut(v, ":"); ok {
					e.Target = t
				}
			case lv == "os.unix=symlink":
				e.Type = fetch.EntryLink
			default:
				e.Type = fetch.EntryOther
			}
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case "sizd":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				sizd = n
			}
		case "modify":
			t, err := ParseMDTM(v)
			if err != nil {
				return e, false, false
			}
			e.ModTime = t
		}
	}
	if e.Size < 0 {
		e.Size = sizd
	}
	return e, self, true
}

// ParseMDTM reads an RFC 3659 time-val, YYYYMMDDHHMMSS[.sss], in UTC: the
// reply to MDTM and the MLSx modify fact.
func ParseMDTM(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	layout := "20060102150405"
	if i := strings.IndexByte(s, '.'); i >= 0 {
		layout += "." + strings.Repeat("0", len(s)-i-1)
	}
	return time.ParseInLocation(layout, s, time.UTC)
}

// parseEPLF reads "+fact,fact,…,\tname".
func parseEPLF(line string) (fetch.Entry, bool) {
	if line == "" || line[0] != '+' {
		return fetch.Entry{}, false
	}
	tab := strings.IndexByte(line, '\t')
	if tab < 0 || tab+1 >= len(line) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: line[tab+1:], Size: -1, Raw: line, Type: fetch.EntryUnknown}
	for _, f := range strings.Split(line[1:tab], ",") {
		if f == "" {
			continue
		}
		switch f[0] {
		case '/':
			e.Type = fetch.EntryDir
		case 'r':
			if e.Type == fetch.EntryUnknown {
				e.Type = fetch.EntryFile
			}
		case 's':
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case 'm':
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil {
				e.ModTime = time.Unix(n, 0).UTC()
			}
		}
	}
	return e, true
}

// looksMLSx tells an MLSx line given for LIST from other formats: its first
// word is a run of "fact=value;".
func looksMLSx(line string) bool {
	sp := strings.IndexByte(line, ' ')
	return sp > 0 && line[sp-1] == ';' && strings.IndexByte(line[:sp], '=') > 0
}
