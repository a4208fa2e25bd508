package fetch

import "testing"

// --data-urlencode forms, as curl reads them (moved from cmd/urlget's
// TestRequestPartsShort).
func TestURLEncodeData(t *testing.T) {
	for in, want := range map[string]string{"a b": "a+b", "=x&y": "x%26y", "n=é/~": "n=%C3%A9%2F~", "plain.-_~": "plain.-_~"} {
		if got, err := URLEncodeData(in, nil); err != nil || string(got) != want {
			t.Errorf("--data-urlencode %q = %q %v, want %q", in, got, err, want)
		}
	}
}

// --url-query forms, as curl 7.88 sends them: --data-urlencode's with
// lower-case hex digits, "+" for as it is, the pieces joined with "&".
func TestURLQueryData(t *testing.T) {
	q := func(vs ...string) string {
		var args []DataArg
		for _, v := range vs {
			args = append(args, DataArg{Kind: DataURLQuery, Value: v})
		}
		b, err := ReadData(args, func(string) ([]byte, error) { return []byte("hi\n"), nil })
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range [][2]string{
		{q("a=b c&d"), "a=b+c%26d"},
		{q("n=é/?~"), "n=%c3%a9%2f%3f~"},
		{q("+k=%41a/b?c", "=only", "plain text"), "k=%41a/b?c&only&plain+text"},
		{q("f@x", "@x"), "f=hi%0a&hi%0a"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
