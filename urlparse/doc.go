// Package urlparse parses, resolves, normalizes, builds and finds URLs of
// every RFC 1738 scheme, exactly as the RFCs write them.
//
// # Two layers, two verdicts
//
// The generic layer is RFC 3986 and nothing else: ParseRef takes any URI
// reference, ParseAbsolute any absolute URI, whatever its scheme, and they
// answer every generic question on their own (the components, raw and
// percent-decoded; the host's kind; resolution with Ref.Resolve, RFC 3986
// §5.2 strict; normalization with Ref.Normalize, §6.2.2 and §6.2.3). Nothing
// is repaired: the input comes back byte for byte from String.
//
// The scheme layer reads a URL's components again under its scheme's own
// syntax (RFC 1738 for ftp, http, gopher, news, nntp, telnet, wais, file and
// prospero; RFC 9110, 4266, 6068 and 5538 for https, gophers, mailto and
// nntps) and fills in the typed fields of URL (URL.FTP, URL.Gopher, ...).
// Parse runs both layers. A URL that RFC 3986 accepts but its scheme does
// not ("http:g" has no host, "http://h:80808/" a port over 65535) is a
// second, separate verdict: Parse returns an *Error whose Scheme is set,
// beside the URL's generic components. A caller that wants RFC 3986's answer
// uses those; a caller that fetches refuses the URL (fetch.Client does).
//
// # URLs and IRIs
//
// Parse, ParseRef and ParseAbsolute take URIs only: ASCII, as RFC 3986
// defines them. ParseIRI and ParseIRIRef also take IRIs (RFC 3987), the
// form people type and paste, and return the URL of their URI form: the
// host through IDNA ("bücher.de" is "xn--bcher-kva.de"), every other
// non-ASCII character percent-encoded as UTF-8, and the angle brackets of a
// pasted message-id ("news:<id@host>") dropped. Errors name the input as
// given.
//
// # Before the wire
//
// Decoded fields hold exactly the bytes the URL encodes, CR and LF
// included. URL.CheckLine refuses what must not reach a line protocol;
// URL.LookupHost gives the host to hand to a resolver. The builders
// (FTPURL, GopherURL, MailtoURL, ...) write URLs that Parse reads back to the
// same typed fields, and Extract finds URLs in running text (RFC 1738
// appendix, RFC 3986 appendix C).
package urlparse
