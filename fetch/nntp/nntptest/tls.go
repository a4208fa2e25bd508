package nntptest

import (
	"crypto/tls"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// TLSConfigs returns a server configuration holding the test certificate
// (fetchtest.Cert) and a client configuration that trusts it.
func TLSConfigs(t testing.TB) (server, client *tls.Config) { return fetchtest.TLSConfigs(t) }
