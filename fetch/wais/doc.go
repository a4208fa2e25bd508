// Package wais fetches wais:// URLs (RFC 1738 §3.9, RFC 4156): searches of
// WAIS databases and their documents, from freeWAIS-sf and the servers
// that speak its dialect of Z39.50-1988 (default port 210).
//
// # URLs
//
//	wais://host:port/database              the database: its help records, or a search (below)
//	wais://host:port/database?words        a search ("+" is a space, as for Lynx)
//	wais://host:port/database/TYPE/LENGTH/DOCID   a document, as Lynx and libwww write it
//	wais://host:port/database/TYPE/DOCID   a document, RFC 1738's form (no length)
//
// A DOCID in Lynx's notation, "<tag>=<bytes>;" for every field, is turned
// back into the DocID's fields (urlparse.WAIS.DocFields, with the
// compressed-integer lengths freeWAIS-sf uses, so that fields of 128
// bytes and more work, which they do not in Lynx); any other DOCID is sent
// as its decoded bytes.
//
// # The exchange
//
// One TCP connection, requests and replies strictly in order. An Init is
// sent first, announcing 100000-byte messages; a server that refuses it
// (Result 0) or cannot read it (an empty reply) is used without, as Lynx
// always does, and an accepted one tells the size of the server's buffer.
//
// A search is a relevance search (query type "3") for the words, asking
// for at most wais-max-results documents (default 40, as waissearch). The
// result is a listing (Meta.Dir): its body holds one line per document —
// score, length, lines, types, date, headline and the document's URL in
// Lynx's form with its LENGTH — that Listing parses and Render presents as
// text or JSON lines (see Render). A database URL without words takes them
// from the option fetch.OptSearch (-d WORDS); with none, it makes the
// empty search, for which freeWAIS-sf returns the database's help records
// (its source description, type WSRC, and its catalog), unless the
// wais-prompt option or fetch.OptInteractive is set: then Open returns a
// *fetch.InputNeededError, so that the CLI can ask. (The fetcher cannot
// tell a terminal from a pipe; the CLI sets fetch.OptInteractive when its
// standard input is a terminal.)
//
// A document is fetched in byte chunks (a search with a type-1 query, as
// every WAIS client does; Present is not used by WAIS), one request at a
// time: freeWAIS-sf reads its socket through one stdio stream, and a
// request that arrives before it has answered the last one makes it close
// the connection. The chunks are as large as the server's buffer (the
// size its InitResponse gives, else freeWAIS-sf's 100000 bytes): the
// server needs some 44 ms a reply whatever its size, so a 5 MB document
// takes 50 replies rather than the 500 of waissearch's and Lynx's
// 10000-byte chunks. A chunk that does not fit the server's buffer gets an
// empty message; the chunk is then halved, and the size that worked is
// kept for the rest of the connection. wais-chunk-size (Fetcher.ChunkSize)
// sets the chunk, 10000 for a server that needs waissearch's;
// wais-pipeline (Fetcher.Window) sends requests ahead of the replies, for
// a server known to answer them in order. Each reply is handed out before
// the next one is read: memory is one message, whatever the document's
// size. With the LENGTH of a Lynx URL, Meta.Size is known and a resume
// (Request.Offset) starts the chunks at the offset, and a Request.Range
// (its first range; "-LAST" needs the LENGTH) asks for the chunks from its
// first byte to its last; without it, chunks are
// read until a short one, an empty one or the server's "Request out of
// range" diagnostic.
//
// # Errors
//
// Refused before connecting (ErrMalformed, exit 3): CR, LF or NUL in the
// database name or the words; a database name with "@" (db@host:port makes
// freeWAIS-sf forward the request to that host) unless wais-allow-forward
// is set; no database. A diagnostic record from the server is a
// *ServerError (its text sanitized when shown), of Kind ErrNotFound when
// it says the database or document does not exist (freeWAIS-sf's "The
// following database is not available", "Missing DocID in request", "Bad
// DocID in request", "File not present in specified database"). A
// database URL without words answered with no records at all is
// ErrNotFound too: a real database always has its help records, and
// freeWAIS-sf says nothing else about a database it does not have. A
// reply that breaks the protocol — a header announcing more than 1 MiB,
// lengths inside the APDU that disagree with it, more text than asked
// for — is ErrProtocol; a connection closed before a reply is complete is
// ErrPartial, its message naming the request ("… after the retrieval
// request for bytes START–END").
//
// # Options
//
//	search              the search words when the URL has none (-d, --data)
//	wais-max-results    at most this many documents from a search (default 40)
//	wais-allow-forward  allow db@host:port databases
//	wais-prompt         ask for the words (InputNeededError) rather than list the help records
//	wais-chunk-size     bytes asked for per document request (0, the default: the server's buffer)
//	wais-pipeline       document requests in flight (1, the default: one at a time)
package wais
