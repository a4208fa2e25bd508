// Command load sends one request again and again through an HTTP proxy
// from several connections at once, and reports the rate and the latency:
// the load client of bench/serve.sh.
//
//	load -proxy http://127.0.0.1:PORT -target URL [-accept TYPE] [-c 32] [-d 10s]
//
// Each of the -c clients keeps one connection to the proxy (a new one when
// the proxy closes it) and sends "GET URL HTTP/1.1" — the absolute form
// that a proxy, or an RFC 1630 gateway, is asked with, whatever the URL's
// scheme — then reads the whole reply, for -d. Requests started before -d
// ends are waited for (up to -wait), so that a server slower than -d
// still counts: the rate is the requests answered over the time until the
// last answer. A reply other than 200, or a failed exchange, is an error.
//
// It prints one line:
//
//	requests N errors E seconds S rps R p50_ms A p99_ms B bytes N
//
// and exits 1 when there were errors or no request was answered.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	proxy := flag.String("proxy", "", "the proxy, http://HOST:PORT (required)")
	target := flag.String("target", "", "the URL asked for (required)")
	accept := flag.String("accept", "*/*", "the Accept header")
	clients := flag.Int("c", 32, "connections at once")
	dur := flag.Duration("d", 10*time.Second, "how long to start requests")
	wait := flag.Duration("wait", 5*time.Minute, "how long to wait for the requests in flight after -d")
	flag.Parse()
	pu, err := url.Parse(*proxy)
	if *target == "" || err != nil || pu.Host == "" || *clients < 1 || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: load -proxy http://HOST:PORT -target URL [-accept TYPE] [-c N] [-d DURATION]")
		os.Exit(2)
	}
	req := "GET " + *target + " HTTP/1.1\r\nHost: " + pu.Host + "\r\nAccept: " + *accept + "\r\nUser-Agent: urlget-bench-load\r\n\r\n"
	r := run(pu.Host, req, *clients, *dur, *wait)
	fmt.Printf("requests %d errors %d seconds %.2f rps %.1f p50_ms %.2f p99_ms %.2f bytes %d\n",
		len(r.latencies), r.errors, r.seconds, r.rps(), ms(pct(r.latencies, 50)), ms(pct(r.latencies, 99)), r.bytes)
	if r.errors > 0 || len(r.latencies) == 0 {
		if r.firstErr != "" {
			fmt.Fprintln(os.Stderr, "load: first error:", r.firstErr)
		}
		os.Exit(1)
	}
}

// result is what a run measured.
type result struct {
	latencies []time.Duration // of the requests answered, sorted
	errors    int
	firstErr  string
	bytes     int64
	seconds   float64 // from the start to the last answer
}

func (r *result) rps() float64 {
	if len(r.latencies) == 0 || r.seconds <= 0 {
		return 0
	}
	return float64(len(r.latencies)) / r.seconds
}

// run sends req to addr from clients connections, starting requests for
// dur and waiting up to wait more for those in flight.
func run(addr, req string, clients int, dur, wait time.Duration) *result {
	start := time.Now()
	stop := start.Add(dur)
	deadline := stop.Add(wait)
	var (
		mu   sync.Mutex
		r    result
		last time.Time
	)
	fail := func(err error) {
		mu.Lock()
		r.errors++
		if r.firstErr == "" {
			r.firstErr = err.Error()
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			var c net.Conn
			var br *bufio.Reader
			defer func() {
				if c != nil {
					c.Close()
				}
			}()
			for time.Now().Before(stop) {
				if c == nil {
					var err error
					if c, err = net.DialTimeout("tcp", addr, 10*time.Second); err != nil {
						fail(err)
						c = nil
						time.Sleep(10 * time.Millisecond)
						continue
					}
					br = bufio.NewReaderSize(c, 64<<10)
				}
				c.SetDeadline(deadline)
				t0 := time.Now()
				n, keep, err := exchange(c, br, req)
				t1 := time.Now()
				if err != nil {
					fail(err)
				} else {
					mu.Lock()
					r.latencies = append(r.latencies, t1.Sub(t0))
					r.bytes += n
					if t1.After(last) {
						last = t1
					}
					mu.Unlock()
				}
				if err != nil || !keep {
					c.Close()
					c = nil
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(r.latencies)
	if len(r.latencies) > 0 {
		r.seconds = last.Sub(start).Seconds()
	}
	return &r
}

// exchange sends req on c and reads the whole reply; keep says whether
// the connection may carry another request.
func exchange(c net.Conn, br *bufio.Reader, req string) (n int64, keep bool, err error) {
	if _, err := io.WriteString(c, req); err != nil {
		return 0, false, err
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, false, err
	}
	n, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil {
		return n, false, err
	}
	if res.StatusCode != http.StatusOK {
		return n, false, fmt.Errorf("reply %s", res.Status)
	}
	return n, !res.Close, nil
}

// pct is the p-th percentile of sorted durations (nearest rank).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := (len(d)*p + 99) / 100
	return d[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
