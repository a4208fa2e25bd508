package wais_test

import (
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
// loopback (10000-byte chunks: lockstep, and with chunk requests sent
// ahead; then 60000-byte chunks), and in the same iteration copies the same
// bytes over a plain TCP connection: "tcp/wais" is how many times faster
// the plain copy was, measured side by side so that the load of the
// machine weighs on both alike.
func BenchmarkDocument(b *testing.B) {
	data := benchBytes()
	db := &waistest.DB{Name: "bench", Docs: []*waistest.Doc{{Name: "big.bin", Type: "BINARY", Data: data}}}
	s := waistest.Start(b, waistest.Config{DBs: []*waistest.DB{db}})
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
	for _, f := range []wais.Fetcher{{Window: 1}, {Window: 2}, {Window: 4}, {Window: 8}, {Window: 4, ChunkSize: 60000}} {
		name := "window=" + strconv.Itoa(f.Window)
		if f.ChunkSize != 0 {
			name += ",chunk=" + strconv.Itoa(f.ChunkSize)
		}
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
