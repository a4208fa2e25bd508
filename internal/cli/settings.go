package cli

import (
	"regexp"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// SettingFlags spells the library settings that library messages name in
// Go's terms as the flags that set them: fetch, mirror and serve never name
// a flag of urlget's (a Go program has none), so "use Client.NoProxy for
// this host" is shown as "use --noproxy for this host". A Request option,
// Options[KEY] or Options[KEY]=VALUE, is spelled from the option registry
// (SettingFlag).
var SettingFlags = map[string]string{
	"Client.NoProxy":             "--noproxy",
	"Client.Protocols":           "--proto",
	"Client.RedirectProtocols":   "--proto-redir",
	"Client.NoURLUser":           "--disallow-username-in-url",
	"Client.Interface":           "--interface",
	"Client.LocalPorts":          "--local-port",
	"Client.MaxTime":             "--max-time",
	"mirror.Options.Delete":      "--delete",
	"mirror.Options.DeleteLimit": "--max-delete",
	"mirror.Options.MaxDepth":    "--max-depth",
	"mirror.Options.WARC":        "--warc",
	"mirror.Options.MaxFiles":    "--max-files",
	"mirror.Options.MaxBytes":    "--max-bytes",
	"mirror.Options.Refetch":     "--refetch",
	"mirror.Options.Verify":      "--verify",
	"mirror.Options.Checksum":    "--checksum",
	"mirror.Options.Parents":     "--parents",
	"serve.Options.AllowPrivate": "--allow-private",
	"serve.Options.AllowFile":    "--allow-file",
}

// SettingRE finds a setting named in a library message.
var SettingRE = regexp.MustCompile(`\b(?:(?:mirror|serve)\.Options\.[A-Z]\w*|Client\.[A-Z]\w*|Options\[[a-z0-9-]+\](?:=[a-z0-9]+)?)`)

// SettingFlag is the flag that sets a setting named as SettingRE finds it.
func SettingFlag(s string) (string, bool) {
	if f, ok := SettingFlags[s]; ok {
		return f, true
	}
	key, val, hasVal := strings.Cut(strings.TrimPrefix(s, "Options["), "]=")
	if key == s {
		return "", false
	}
	key = strings.TrimSuffix(key, "]")
	for _, o := range fetch.RegisteredOptions() {
		// A flag of every scheme the key serves (--ssl-reqd) before one of
		// a scheme's own (--ftp-ssl-reqd): the registry lists shared
		// options first.
		if o.Key == key && (!hasVal || o.Kind == fetch.Bool && o.SetValue() == val) {
			if o.Short != "" {
				return "-" + o.Short + "/--" + o.FlagName(), true
			}
			return "--" + o.FlagName(), true
		}
	}
	return "", false
}

// InFlags is a library message with the settings it names spelled as
// urlget's flags; a setting urlget has no flag for stays as it is.
func InFlags(msg string) string {
	if !strings.Contains(msg, "Options") && !strings.Contains(msg, "Client.") {
		return msg
	}
	return SettingRE.ReplaceAllStringFunc(msg, func(s string) string {
		if f, ok := SettingFlag(s); ok {
			return f
		}
		return s
	})
}
