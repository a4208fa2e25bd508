package prospero

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds the Prospero v5 requests urlget sends and the parsed
// form of the replies (§3.2, §3.3).

// header is the start of every request message: the protocol version with
// the software id, and who asks.
func header(b *strings.Builder, software, user string) {
	b.WriteString("VERSION 5 ")
	b.WriteString(Quote(software))
	b.WriteString("\nAUTHENTICATE '' UNAUTHENTICATED ")
	b.WriteString(Quote(user))
	b.WriteByte('\n')
}

// objectInfoRequest asks for attributes ("#ALL", "CONTENTS", "A+B") of
// the object hsoname at version ("0" for the current one).
func objectInfoRequest(software, user, attrs, hsoname, version string) []byte {
	var b strings.Builder
	header(&b, software, user)
	b.WriteString("GET-OBJECT-INFO ")
	b.WriteString(attrs)
	b.WriteString(" ASCII ")
	b.WriteString(Quote(hsoname))
	b.WriteByte(' ')
	b.WriteString(Quote(version))
	b.WriteByte('\n')
	return []byte(b.String())
}

// listRequest lists the directory hsoname with each link's attributes
// (DIRECTORY + LIST ATTRIBUTES COMPONENTS, as vls -a does). The version
// token is sent only when it is not the current one ("0").
func listRequest(software, user, hsoname, version string) []byte {
	var b strings.Builder
	header(&b, software, user)
	b.WriteString("DIRECTORY ASCII ")
	b.WriteString(Quote(hsoname))
	if version != "0" && version != "" {
		b.WriteByte(' ')
		b.WriteString(Quote(version))
	}
	b.WriteString("\nLIST ATTRIBUTES COMPONENTS\n")
	return []byte(b.String())
}

// Attr is one ATTRIBUTE line.
type Attr struct {
	AppliesTo string   // OBJECT, LINK, CACHED, REPLACEMENT, ADDITIONAL
	Kind      string   // INTRINSIC, APPLICATION, FIELD
	Name      string   // SIZE, ACCESS-METHOD, CONTENTS, …
	Type      string   // SEQUENCE, LINK, FILTER; "" in the old FIELD form
	Values    []string // unquoted
}

// Link is one LINK line and the ATTRIBUTE lines after it.
type Link struct {
	Flag     string // L (listed) or U (union)
	Target   string // FILE, DIRECTORY, DIRECTORY+FILE, OBJECT, EXTERNAL, SYMBOLIC
	Name     string
	HostType string // INTERNET-D
	Host     string // host or host(port)
	HSOType  string // ASCII
	HSOName  string
	Version  string
	Attrs    []Attr
}

// Failure is a FAILURE line: the code and the rest of the line.
type Failure struct {
	Code string
	Text string
}

// Reply is a parsed Prospero reply.
type Reply struct {
	Attrs     []Attr // attributes before any LINK: the object's own
	Links     []Link
	NoneFound bool
	Failure   *Failure
	Forwarded []string // FORWARDED tokens after the keyword: htype host ntype hsoname version
	Errors    []string // ERROR lines
	Warnings  []string // WARNING lines
	Other     []string // lines of no known kind, joined tokens (first few only)
}

// maxOther bounds the unknown lines a Reply keeps.
const maxOther = 16

// ParseReply parses a reply message.
func ParseReply(msg []byte) (*Reply, error) {
	lines, err := Lines(msg)
	if err != nil {
		return nil, err
	}
	r := &Reply{}
	for _, t := range lines {
		kw := t[0]
		switch {
		case kw == "LINK":
			if len(t) < 9 {
				return nil, fmt.Errorf("short LINK line (%d tokens)", len(t))
			}
			r.Links = append(r.Links, Link{Flag: t[1], Target: t[2], Name: t[3], HostType: t[4],
				Host: t[5], HSOType: t[6], HSOName: t[7], Version: t[8]})
		case kw == "ATTRIBUTE" || strings.HasPrefix(kw, "ATTRIBUTE>"):
			if len(t) < 4 {
				return nil, fmt.Errorf("short ATTRIBUTE line (%d tokens)", len(t))
			}
			a := Attr{AppliesTo: t[1], Kind: t[2], Name: t[3]}
			rest := t[4:]
			if len(rest) > 0 && (a.Kind != "FIELD" || isAttrType(rest[0])) {
				a.Type, rest = rest[0], rest[1:]
			}
			a.Values = rest
			if n := len(r.Links); n > 0 {
				r.Links[n-1].Attrs = append(r.Links[n-1].Attrs, a)
			} else {
				r.Attrs = append(r.Attrs, a)
			}
		case kw == "NONE-FOUND":
			r.NoneFound = true
		case kw == "FAILURE":
			f := &Failure{}
			if len(t) > 1 {
				f.Code = t[1]
				f.Text = strings.Join(t[2:], " ")
			}
			if r.Failure == nil {
				r.Failure = f
			}
		case kw == "FORWARDED":
			r.Forwarded = t[1:]
		case kw == "ERROR":
			r.Errors = append(r.Errors, strings.Join(t[1:], " "))
		case kw == "WARNING":
			r.Warnings = append(r.Warnings, strings.Join(t[1:], " "))
		default:
			if len(r.Other) < maxOther {
				r.Other = append(r.Other, strings.Join(t, " "))
			}
		}
	}
	return r, nil
}

func isAttrType(s string) bool { return s == "SEQUENCE" || s == "LINK" || s == "FILTER" }

// attr finds the first attribute called name.
func attr(as []Attr, name string) (Attr, bool) {
	for _, a := range as {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}

// accessMethods are the ACCESS-METHOD values, in the server's order.
func accessMethods(as []Attr) [][]string {
	var ms [][]string
	for _, a := range as {
		if a.Name == "ACCESS-METHOD" && len(a.Values) > 0 {
			ms = append(ms, a.Values)
		}
	}
	return ms
}

// sizeOf reads a SIZE attribute ("50 bytes"); -1 when absent or not in bytes.
func sizeOf(as []Attr) int64 {
	a, ok := attr(as, "SIZE")
	if !ok || len(a.Values) == 0 {
		return -1
	}
	f := strings.Fields(strings.Join(a.Values, " "))
	if len(f) == 0 || len(f) > 2 || len(f) == 2 && f[1] != "bytes" && f[1] != "byte" {
		return -1
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// isDir tells a directory by its UNIX-MODES or OBJECT-INTERPRETATION.
func isDir(as []Attr) bool {
	if a, ok := attr(as, "UNIX-MODES"); ok && len(a.Values) > 0 && strings.HasPrefix(a.Values[0], "d") {
		return true
	}
	if a, ok := attr(as, "OBJECT-INTERPRETATION"); ok && len(a.Values) > 0 && a.Values[0] == "DIRECTORY" {
		return true
	}
	return false
}
