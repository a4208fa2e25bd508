//go:build !unix

package owner

import "io/fs"

// Others is false where files have no owner ids.
func Others(fs.FileInfo) bool { return false }
