package wais_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/waistest"
)

const benchSize = 64 << 20

var benchData []byte

func benchBytes() []byte {
	if benchData == nil {
		benchData = waistest.Bytes(benchSize, 64)
	}
	return benchData
}

// BenchmarkDocument fetches a 64 MiB document through waistest on
// loopback, with no service time (the default: one request at a time, as
// large as the buffer holds; 10000-byte chunks, one at a time and sent
// ahead to a server that takes them), and in the same iteration copies the same
// bytes over a plain TCP connection: "tcp/wais" is how many times faster
// the plain copy was, measured side by side so that the load of the
// machine weighs on both alike.
func BenchmarkDocument(b *testing.B) {
	data := benchBytes()
	db := &waistest.DB{Name: "bench", Docs: []*waistest.Doc{{Name: "big.bin", Type: "BINARY", Data: data}}}
	s := waistest.Start(b, waistest.Config{DBs: []*waistest.DB{db}, Pipelined: true})
	tcp := fetchtest.NewServer(b, func(c net.Conn) { c.Write(data) })
	res, err := (&fetch.Client{}).Open(context.Background(), s.URL("bench?big"))
	if err != nil {
		b.Fatal(err)
	}
	var url string
	for e, err := range res.Entries() {
		if err != nil {
			b.Fatal(err)
		}
		url = e.URL
	}
	res.Body.Close()
	for _, f := range []wais.Fetcher{{}, {ChunkSize: wais.LockstepChunkSize}, {ChunkSize: wais.LockstepChunkSize, Window: 4}} {
		name := "window=" + strconv.Itoa(max(f.Window, 1)) + ",chunk=" + strconv.Itoa(f.ChunkSize)
		b.Run(name, func(b *testing.B) {
			c := client(f, nil)
			b.SetBytes(benchSize)
			var inWAIS, inTCP time.Duration
			for b.Loop() {
				t0 := time.Now()
				tcpCopy(b, tcp.Addr)
				t1 := time.Now()
				res, err := c.Open(context.Background(), url)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || n != benchSize {
					b.Fatalf("%d bytes, %v", n, err)
				}
				inWAIS += time.Since(t1)
				inTCP += t1.Sub(t0)
			}
			b.ReportMetric(float64(inWAIS)/float64(inTCP), "wais/tcp")
			b.ReportMetric(float64(benchSize)*float64(b.N)/inWAIS.Seconds()/1e6, "wais-MB/s")
			b.ReportMetric(float64(benchSize)*float64(b.N)/inTCP.Seconds()/1e6, "tcp-MB/s")
		})
	}
}

// serviceTime is what freeWAIS-sf takes per reply on loopback, whatever
// its size (measured: 44 ms a 10000-byte chunk, 4.5 s for 5 MB in 60000-byte
// chunks).
const serviceTime = 44 * time.Millisecond

// BenchmarkServiceTime fetches a 5 MB document through waistest as
// freeWAIS-sf serves it — one request at a time, 44 ms a reply — the way
// urlget does (chunks as large as the server's buffer) and the way
// waissearch and Lynx do (10000-byte chunks), one after the other in each
// iteration: "lockstep/urlget" is how many times faster urlget was (the
// target is at least 4). Run it with -benchtime 1x: an iteration takes
// some 25 s.
func BenchmarkServiceTime(b *testing.B) {
	const size = 5_000_000
	data := waistest.Bytes(size, 5)
	db := &waistest.DB{Name: "bench", Docs: []*waistest.Doc{{Name: "big.bin", Type: "BINARY", Data: data}}}
	s := waistest.Start(b, waistest.Config{DBs: []*waistest.DB{db}, Delay: serviceTime})
	url := s.DocURL("bench", db.Docs[0], true)
	urlget, lockstep := client(wais.Fetcher{}, nil), client(wais.Fetcher{ChunkSize: wais.LockstepChunkSize}, nil)
	get := func(c *fetch.Client) time.Duration {
		t0 := time.Now()
		res, err := c.Open(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || !bytes.Equal(got, data) {
			b.Fatalf("%d bytes, %v", len(got), err)
		}
		return time.Since(t0)
	}
	var inURLGet, inLockstep time.Duration
	for b.Loop() {
		inURLGet += get(urlget)
		inLockstep += get(lockstep)
	}
	if s.ClosedAhead() != 0 {
		b.Fatal("a request was sent ahead")
	}
	b.ReportMetric(inURLGet.Seconds()/float64(b.N), "urlget-s")
	b.ReportMetric(inLockstep.Seconds()/float64(b.N), "lockstep-s")
	b.ReportMetric(float64(inLockstep)/float64(inURLGet), "lockstep/urlget")
}

func tcpCopy(b *testing.B, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, c)
	c.Close()
	if err != nil || n != benchSize {
		b.Fatalf("%d bytes, %v", n, err)
	}
}
