package apdu_test

import (
	"testing"

	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/fetch/wais/internal/capture"
)

// FuzzParse: no input makes a decoder panic or read past its slice, and
// a DocID that splits into fields joins back into the same bytes.
func FuzzParse(f *testing.F) {
	msgs, err := capture.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range msgs {
		if len(m.Bytes) > apdu.HeaderLen {
			f.Add(m.Bytes[apdu.HeaderLen:])
		}
	}
	f.Fuzz(func(t *testing.T, a []byte) {
		if r, err := apdu.ParseResponse(a, 5); err == nil && len(r.Headers) > 5 {
			t.Errorf("%d headers kept, max 5", len(r.Headers))
		}
		apdu.ParseSearch(a)
		apdu.ParseInit(a)
		apdu.ParseInitResponse(a)
		if fields, ok := apdu.DocIDFields(a); ok {
			// Lengths with leading 0x80 bytes are legal and come back
			// shorter; the fields themselves always come back.
			back, ok := apdu.DocIDFields(apdu.AppendDocID(nil, fields))
			if !ok || len(back) != len(fields) {
				t.Fatalf("DocID %x: fields %v came back as %v", a, fields, back)
			}
			for i := range back {
				if back[i] != fields[i] {
					t.Errorf("DocID %x: field %d %v came back as %v", a, i, fields[i], back[i])
				}
			}
		}
	})
}
