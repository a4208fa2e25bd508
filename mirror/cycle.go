package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// Cycles in a directory tree (ftp, http): a symbolic link to "." or to an
// ancestor makes a directory contain itself, and a server that follows
// links (vsftpd, nginx's autoindex) lists it again at every level. Where
// the server names no directory uniquely (MLSD's unique fact), a
// directory whose listing is the same as one of its ancestors' — the same
// entries, each with the same type, size and date — is taken to be that
// ancestor: recorded skipped, with the reason, and not followed.

// dirNode links a directory to its ancestors for cycle detection.
type dirNode struct {
	parent *dirNode
	fp     string // listingPrint of the listing
	url    string
}

// listingPrint is the fingerprint of a listing whose entries are keys
// (each one entry's type, name and facts), in any order.
func listingPrint(keys []string) string {
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameAsAncestor records fp as n's listing and returns the URL of the
// nearest ancestor listed the same, "" when none is.
func (n *dirNode) sameAsAncestor(fp string) string {
	n.fp = fp
	for a := n.parent; a != nil; a = a.parent {
		if a.fp == fp {
			return a.url
		}
	}
	return ""
}

// cycleWhy is the reason a directory listed as its ancestor is skipped.
func cycleWhy(ancestor string) string {
	return "a cycle: the directory lists the same as its ancestor " + ancestor
}
