package fetch

import "strings"

// HeaderLine reads one header line given to send (curl's -H and
// --proxy-header) as curl does: "Name: value" sends the
// line as given (value, from its first byte that is no space, not empty);
// "Name:" with nothing but spaces after it sends nothing; "Name;" with
// nothing at all after it sends "Name:"; "Name;" followed by anything
// sends nothing. Whatever it sends, the line replaces the field the client
// would send of that name. A name is what comes before the first ':', or,
// in a line without one, before the first ';'. ok is false for a line
// that is no header field at all (no name, or no ':' nor ';').
func HeaderLine(line string) (name, val string, send, ok bool) {
	i := strings.IndexByte(line, ':')
	if i < 0 {
		j := strings.IndexByte(line, ';')
		if j <= 0 {
			return "", "", false, false
		}
		return strings.TrimSpace(line[:j]), "", j == len(line)-1, true
	}
	if i == 0 {
		return "", "", false, false
	}
	val = strings.TrimLeft(line[i+1:], " \t")
	return strings.TrimSpace(line[:i]), val, val != "", true
}
