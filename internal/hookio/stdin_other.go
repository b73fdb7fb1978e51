//go:build !unix

package hookio

import (
	"os"
	"time"
)

// readFileDeadline is the poll(2) reader on Unix; elsewhere ReadPayload
// reads in a goroutine.
func readFileDeadline(*os.File, int64, time.Time, time.Duration) ([]byte, bool, error) {
	return nil, false, nil
}
