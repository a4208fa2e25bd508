package fetch

import (
	"os"
	"os/user"
)

// DefaultAddress is the user's mail address as far as a program can tell:
// the login name ($USER, else the system's, else "urlget") at the host name
// (else "localhost"). mailto uses it as the sender when none is given (ftp
// does not: its anonymous password is a fixed address, ftp.DefaultEmail).
func DefaultAddress() string {
	name := os.Getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" {
		name = "urlget"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
}
