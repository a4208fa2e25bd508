package fetch

import (
	"bytes"
	"encoding/json"
	"time"
)

var entryTypes = [...]string{EntryUnknown: "unknown", EntryFile: "file", EntryDir: "dir", EntryLink: "link", EntryOther: "other"}

// String is the type's name in JSON: unknown, file, dir, link or other.
func (t EntryType) String() string {
	if int(t) < len(entryTypes) {
		return entryTypes[t]
	}
	return "unknown"
}

// entryJSON is an Entry as a JSON object.
type entryJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Size     *int64 `json:"size,omitempty"`
	ModTime  string `json:"mtime,omitempty"`
	Target   string `json:"target,omitempty"`
	URL      string `json:"url,omitempty"`
	Raw      string `json:"raw,omitempty"`
	Unparsed bool   `json:"unparsed,omitempty"`
}

// MarshalJSON writes the entry as urlget --json prints a listing line:
// {"name", "type" (EntryType's String), "size" (absent when unknown),
// "mtime" (RFC 3339, UTC; absent when unknown), "target", "url", and for
// an unparsed line "raw" and "unparsed": true}, HTML characters as they
// are.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{Name: e.Name, Type: e.Type.String(), Target: e.Target, URL: e.URL, Unparsed: e.Unparsed}
	if e.Size >= 0 {
		j.Size = &e.Size
	}
	if !e.ModTime.IsZero() {
		j.ModTime = e.ModTime.UTC().Format(time.RFC3339)
	}
	if e.Unparsed {
		j.Raw = e.Raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
