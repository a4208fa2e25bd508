package fetch

import "time"

// SetCookieClock gives c another clock (the cookie file fuzzer's fixed now).
func SetCookieClock(c *CookieJar, now func() time.Time) { c.now = now }
