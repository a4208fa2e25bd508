package ftp

import "strings"

// GuessType chooses the transfer type for a URL without ;type= (RFC 1738
// §3.2.3: "the client program interpreting the URL must guess the
// appropriate mode to use ... from the suffix of the name"). It returns
// 'a' (TYPE A, ASCII) for a name whose suffix, after the last ".", is one
// of these text suffixes (case-insensitive), and 'i' (TYPE I, binary) for
// every other name, names without a suffix included:
//
//	plain text      txt text asc ascii log lsm nfo faq me 1st
//	markup          htm html shtml xhtml xml xsl xslt css md markdown rst
//	                tex ltx sty bib
//	data as text    csv tsv json yaml yml toml ini cfg conf
//	patches         diff patch
//	source code     c h cc cxx cpp hh hpp go py pl pm rb sh bash csh el
//	                lisp scm java js ts f f77 f90 for pas awk sed mk
//	                bas asm s
//	7-bit encodings uu uue hqx shar eml mbox
//
// A compressed or archived file (".txt.gz", ".tar") is binary: only the
// last suffix counts. ASCII mode changes the bytes (the server sends CRLF
// line ends, which the fetcher turns back into LF): use ;type=i, or the
// ftp-type option, for a byte-exact copy of a text file.
func GuessType(name string) byte {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 || strings.ContainsAny(name[i:], "/") {
		return 'i'
	}
	if textSuffixes[strings.ToLower(name[i+1:])] {
		return 'a'
	}
	return 'i'
}

var textSuffixes = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`
		txt text asc ascii log lsm nfo faq me 1st
		htm html shtml xhtml xml xsl xslt css md markdown rst tex ltx sty bib
		csv tsv json yaml yml toml ini cfg conf
		diff patch
		c h cc cxx cpp hh hpp go py pl pm rb sh bash csh el lisp scm java js ts
		f f77 f90 for pas awk sed mk bas asm s
		uu uue hqx shar eml mbox`) {
		textSuffixes[s] = true
	}
}
