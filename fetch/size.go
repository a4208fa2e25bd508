package fetch

import "fmt"

// SizeString is a byte count for people, in IEC units with one decimal
// above a KiB: "512 B", "1.5 KiB", "1.0 MiB", "2.3 GiB". It is the one
// style of urlget's meters and the mirror's lines.
func SizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
