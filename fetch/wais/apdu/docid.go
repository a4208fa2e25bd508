package apdu

import "github.com/urlget/urlget/urlparse"

// A DocID is opaque to a client: it sends back the bytes the server gave.
// freeWAIS-sf builds it as a sequence of fields, each a tag, a length and
// bytes (both compressed integers): 1 original server, 2 original
// database, 3 original local id ("<start> <end> <path>"), 4–6 the same for
// the distributor, 7 copyright disposition. Lynx and CERN libwww write
// those fields into wais:// URLs ("<tag>=<value>;", urlparse.WAISField);
// DocIDFields and AppendDocID convert between the two.

// DocIDFields splits a DocID into its fields; false when the bytes are not
// a sequence of fields (a server with DocIDs of its own making).
func DocIDFields(id []byte) ([]urlparse.WAISField, bool) {
	if len(id) == 0 {
		return nil, false
	}
	var fields []urlparse.WAISField
	for len(id) > 0 {
		tag, n, err := CInt(id)
		if err != nil {
			return nil, false
		}
		l, m, err := CInt(id[n:])
		if err != nil || l > len(id)-n-m {
			return nil, false
		}
		fields = append(fields, urlparse.WAISField{Tag: tag, Value: string(id[n+m : n+m+l])})
		id = id[n+m+l:]
	}
	return fields, true
}

// AppendDocID appends the DocID made of fields. Lengths past 127 bytes
// take two or more bytes (a compressed integer), which freeWAIS-sf writes
// and reads; Lynx's one-byte lengths are the same below 128.
func AppendDocID(b []byte, fields []urlparse.WAISField) []byte {
	for _, f := range fields {
		b = AppendString(b, f.Tag, f.Value)
	}
	return b
}
