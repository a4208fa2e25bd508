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

	start := time.Now()
	stop := start.Add(*dur)
	deadline := stop.Add(*wait)
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      int
		firstErr  string
		bytes     int64
		last      time.Time
	)
	var wg sync.WaitGroup
	for range *clients {
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
					if c, err = net.DialTimeout("tcp", pu.Host, 10*time.Second); err != nil {
						mu.Lock()
						errs++
						firstErr = keepFirst(firstErr, err.Error())
						mu.Unlock()
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
				mu.Lock()
				if err != nil {
					errs++
					firstErr = keepFirst(firstErr, err.Error())
				} else {
					latencies = append(latencies, t1.Sub(t0))
					bytes += n
					if t1.After(last) {
						last = t1
					}
				}
				mu.Unlock()
				if err != nil || !keep {
					c.Close()
					c = nil
				}
			}
		})
	}
	wg.Wait()
	n := len(latencies)
	secs := last.Sub(start).Seconds()
	rps := 0.0
	if n > 0 && secs > 0 {
		rps = float64(n) / secs
	}
	slices.Sort(latencies)
	fmt.Printf("requests %d errors %d seconds %.2f rps %.1f p50_ms %.2f p99_ms %.2f bytes %d\n",
		n, errs, secs, rps, ms(pct(latencies, 50)), ms(pct(latencies, 99)), bytes)
	if errs > 0 || n == 0 {
		if firstErr != "" {
			fmt.Fprintln(os.Stderr, "load: first error:", firstErr)
		}
		os.Exit(1)
	}
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

// keepFirst keeps the first error message.
func keepFirst(first, s string) string {
	if first != "" {
		return first
	}
	return s
}
