package mirror

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// decodeRecord gives what json.Unmarshal gives, error or Record, on lines
// as Marshal writes them and on those lines changed at random; and the
// lines Marshal writes of plain ASCII take the one-pass path.
func TestDecodeRecordIsUnmarshal(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	plain := []string{"", "ftp://h/pub/a b", "d00/s01/f.bin", "ok", "file", "list-noyear", "size=309;list=2024-05-06 00:00"}
	odd := []string{`quo"te`, `back\slash`, "tab\there", "é", "\xff", "<&>", "\u2028"} // escaped by Marshal, or not ASCII
	pick := func() string {
		if rnd.Intn(40) == 0 {
			return odd[rnd.Intn(len(odd))]
		}
		return plain[rnd.Intn(len(plain))]
	}
	quick := 0
	for i := 0; i < 20000; i++ {
		rec := Record{URL: pick(), Path: pick(), Type: pick(), Name: pick(), ItemType: pick(),
			Size: rnd.Int63n(1<<40) - 2, MTime: pick(), MTimeSource: pick(), Unconfirmed: rnd.Intn(2) == 0,
			Key: pick(), SHA256: pick(), ETag: pick(), Fetched: pick(), Status: pick(),
			Target: pick(), Parent: pick(), Error: pick()}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		line := string(b)
		if i%2 == 1 {
			line = mutateLine(rnd, line)
		} else if quickRecord(line, new(Record)) {
			quick++
		} else if !strings.ContainsRune(line, '\\') && strings.IndexFunc(line, func(r rune) bool { return r >= 0x80 }) < 0 {
			t.Fatalf("a plain line as Marshal writes it was not read in one pass: %s", line)
		}
		var got, want Record
		gerr := decodeRecord([]byte(line), &got)
		werr := json.Unmarshal([]byte(line), &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("line %s:\ndecodeRecord %+v, %v\njson.Unmarshal %+v, %v", line, got, gerr, want, werr)
		}
	}
	if quick < 1000 {
		t.Fatalf("only %d lines read in one pass: the comparison proves little", quick)
	}
}

// Every string field of Record is read by its JSON key; Size and
// Unconfirmed are the only others, and the one pass reads them itself.
func TestRecordKeysAllRead(t *testing.T) {
	var r Record
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Type.Kind() == reflect.String:
			if p := r.stringField(key); p == nil || p != v.Field(i).Addr().Interface().(*string) {
				t.Errorf("Record.%s (json %q) is not read by stringField", f.Name, key)
			}
		case key == "size" && f.Type.Kind() == reflect.Int64, key == "unconfirmed" && f.Type.Kind() == reflect.Bool:
		default:
			t.Errorf("Record.%s (json %q, %s): quickRecord does not read it", f.Name, key, f.Type)
		}
	}
}

// mutateLine changes a few bytes of line at random: replaced, dropped,
// added, or a piece of it repeated (keys twice, and the like).
func mutateLine(rnd *rand.Rand, line string) string {
	const noise = ` {}[]",:\0123456789-tfnule.UR`
	m := []byte(line)
	for k := rnd.Intn(3); k >= 0 && len(m) > 0; k-- {
		switch p := rnd.Intn(len(m)); rnd.Intn(4) {
		case 0:
			m[p] = noise[rnd.Intn(len(noise))]
		case 1:
			m = append(m[:p], m[p+1:]...)
		case 2:
			m = append(m[:p], append([]byte{noise[rnd.Intn(len(noise))]}, m[p:]...)...)
		default:
			q := rnd.Intn(len(m))
			if p > q {
				p, q = q, p
			}
			m = append(m[:q], append([]byte(string(m[p:q])), m[q:]...)...)
		}
	}
	return string(m)
}

// decodePathLine gives what json.Unmarshal gives, on lines as Marshal
// writes them and on those lines changed at random.
func TestDecodePathLineIsUnmarshal(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	names := []string{"", "d00/s01/f.bin", "ftp://h/pub/d00/s01/f.bin", `a"b`, "é", "x\\y"}
	for i := 0; i < 20000; i++ {
		b, _ := json.Marshal(pathLine{Path: names[rnd.Intn(len(names))], Owner: names[rnd.Intn(len(names))]})
		line := string(b)
		if i%2 == 1 {
			line = mutateLine(rnd, line)
		}
		var got, want pathLine
		gerr := decodePathLine([]byte(line), &got)
		werr := json.Unmarshal([]byte(line), &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && got != want {
			t.Fatalf("line %s: decodePathLine %+v, %v; json.Unmarshal %+v, %v", line, got, gerr, want, werr)
		}
	}
}
