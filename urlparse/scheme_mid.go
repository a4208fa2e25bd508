package urlparse

import "strings"

// MID is a mid: or cid: URL (RFC 2392):
//
//	mid:message-id             a mail or news message
//	mid:message-id/content-id  one MIME body part of it
//	cid:content-id             a body part of the message the URL is in
//
// The ids are addr-specs ("960830.1639@XIson.com") percent-encoded, "/"
// included; they are kept here decoded and without angle brackets.
type MID struct {
	MessageID string // "" for a cid: URL
	ContentID string // "" when a mid: URL names the whole message
}

// MID reads a mid: or cid: URL. A mid: URL is split at its first literal
// "/", and each piece is decoded after splitting, so "%2F" stays inside its
// id. A pair of angle brackets around an id ("mid:%3Cid@host%3E") is taken
// off. The URL may have no authority and no query; an id may not be empty.
func (u *URL) MID() (MID, error) {
	s := u.String()
	switch u.Scheme {
	case "mid", "cid":
	default:
		return MID{}, errAt(s, 0, "scheme", "not a mid: or cid: URL")
	}
	start := len(u.RawScheme) + 1
	if u.HasAuth {
		return MID{}, errAt(s, start, u.Scheme+"-url", "a "+u.Scheme+" URL has no \"//\" authority")
	}
	if u.HasQuery {
		return MID{}, errAt(s, start+len(u.RawPath), u.Scheme+"-url", "a "+u.Scheme+" URL has no query")
	}
	var m MID
	if u.Scheme == "cid" {
		m.ContentID = unbracket(Unescape(u.RawPath))
		if m.ContentID == "" {
			return MID{}, errAt(s, start, "content-id", "empty content-id")
		}
		return m, nil
	}
	raw, part, hasPart := strings.Cut(u.RawPath, "/")
	m.MessageID = unbracket(Unescape(raw))
	if m.MessageID == "" {
		return MID{}, errAt(s, start, "message-id", "empty message-id")
	}
	if hasPart {
		m.ContentID = unbracket(Unescape(part))
		if m.ContentID == "" {
			return MID{}, errAt(s, start+len(raw)+1, "content-id", "empty content-id after \"/\"")
		}
	}
	return m, nil
}

func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}
