package fetch

import (
	"encoding/json"
	"testing"
	"time"
)

func TestEntryJSON(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "a<b>.txt", Type: EntryFile, Size: 12, ModTime: time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), URL: "ftp://h/a<b>.txt", Raw: "line"},
			`{"name":"a<b>.txt","type":"file","size":12,"mtime":"2024-01-02T02:04:05Z","url":"ftp://h/a<b>.txt"}`},
		{Entry{Name: "d", Type: EntryDir, Size: -1}, `{"name":"d","type":"dir"}`},
		{Entry{Raw: "???", Unparsed: true, Size: -1}, `{"name":"","type":"unknown","raw":"???","unparsed":true}`},
		{Entry{Name: "l", Type: EntryLink, Size: -1, Target: "t"}, `{"name":"l","type":"link","target":"t"}`},
	} {
		b, err := c.e.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s %v, want %s", c.e, b, err, c.want)
		}
		if _, err := json.Marshal(c.e); err != nil {
			t.Errorf("json.Marshal: %v", err)
		}
	}
}
