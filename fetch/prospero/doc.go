// Package prospero resolves prospero:// URLs (RFC 1738 §3.11, RFC 4157)
// and fetches what they name. A Prospero name is a handle on a directory
// server: urlget asks the server about the object over ARDP (reliable
// datagrams over UDP, package ardp), in Prospero protocol v5 text, and
// then retrieves it by one of the access methods the server lists.
//
// # The request
//
// prospero://host:port/hsoname;field=value… (port 1525; an hsoname that
// starts with "/" gives "//"): one message
//
//	VERSION 5 <User-Agent>
//	AUTHENTICATE '' UNAUTHENTICATED <user, or "anonymous">
//	GET-OBJECT-INFO #ALL ASCII <hsoname> <version>
//
// with every token quoted as the ISI server quotes (Quote). ";OBJECT-
// VERSION=n" is the version token (default 0); other fields are ignored,
// with a note under -v. CR, LF and NUL in the hsoname or a field are
// refused (ErrMalformed) before anything is sent.
//
// # Resolution
//
// The object's ACCESS-METHOD attributes are tried in the server's order,
// the first that urlget can use wins, except that a usable AFTP method
// comes before PROSPERO-CONTENTS: an object the server knows by anonymous
// FTP is fetched from the FTP server, as ISI's vget follows the object's
// access method (the stock dirsrv, P53.17May94b, crashes when asked for
// the CONTENTS of such an object):
//
//	PROSPERO-CONTENTS  GET-OBJECT-INFO CONTENTS: the data token of the reply,
//	                   unquoted as its packets arrive (not held in memory)
//	AFTP               ftp://host:port/path;type=i (";type=a" for TEXT)
//	GOPHER             gopher://host:port/<type><selector> (6th token TEXT→0,
//	                   BINARY→9, or the type; else the selector's first byte)
//	WAIS               wais://host:port/<hsoname> (database, or db/TYPE[/LENGTH]/DOCID)
//	LOCAL              file:///hsoname, only when the server is this machine
//	TELNET, TN3270     printed (the body lists the URL and the login hint), not
//	                   opened, unless Options["prospero-telnet"] is set
//	others (NFS, AFS, FTP, RCP, …)  skipped, with a note under -v
//
// An empty token (two quotes on the wire) in positions 2–5 of a method
// means "the link's": this URL's host and
// hsoname. An object without access methods whose UNIX-MODES starts with
// "d" (or a NONE-FOUND reply) is a directory: DIRECTORY + LIST ATTRIBUTES
// COMPONENTS, given as a listing (Meta.Dir; Resource.Listing is
// ParseEntry): one line a link, "type size mtime name<TAB>URL", the URL a
// prospero:// URL for Prospero links and the access-method URL for
// EXTERNAL ones; a gopher gateway's text line (a link to NULL) is of type
// "info", its text the name, with no URL (Entry.ItemType 'i'). Only a
// name of the server's own tree has a parent directory (Parent). With Options["prospero-resolve"] the body is the
// resolved URL(s), one a line, instead.
//
// # The next hop goes through the Client
//
// AFTP, GOPHER, WAIS, LOCAL and (when asked) TELNET are not fetched here:
// the Resource returned has Meta.Referral set and Meta.Location the URL,
// and fetch.Client fetches it in its place, as it follows an HTTP
// redirect. This was chosen over calling the other fetchers from this
// package because the Client already owns the policy a second hop needs —
// credentials only to the first URL's scheme, host and port, the schemes a
// hop may lead to (a file: URL only from a loopback server), the hop limit,
// proxies, timeouts, the size cap, the "-v" chain ("* Following referral
// …") — and Meta.EffectiveURL becomes the URL finally fetched. A
// FORWARDED reply is a referral to the new prospero:// location too, so a
// forwarding loop ends at the Client's redirect limit
// (ErrTooManyRedirects). A Fetcher used without a Client returns the
// referral to its caller.
//
// # Transport and limits
//
// Each transaction has its own UDP socket (through Config.Dialer, so a
// SOCKS proxy, which cannot carry UDP, gives ErrUnsupported) and its own
// connection id. Retransmission follows the ISI client: 4 s, doubling, 3
// retries; the server's "wait" replies replace the timer (each capped at
// 15 min, at most 32 in a row). The Client's connect timeout bounds the
// wait for the server's first packet; the context (--max-time) bounds
// everything and cancels the transaction at the server. Replies held to be
// parsed are capped at 1 MiB; the CONTENTS data streams.
//
// # Errors
//
// FAILURE NOT-FOUND and NOT-A-DIRECTORY are ErrNotFound (exit 78),
// NOT-AUTHORIZED ErrAccessDenied (9); no reply is ErrTimeout (28); a reply
// that breaks ARDP (a packet past the total, a total that changes) or
// Prospero is ErrProtocol (8); ARDP redirects past 4 are
// ErrTooManyRedirects (47); no usable access method is ErrUnsupported (1).
package prospero
