// Command hookonly is a reference for the hook benchmark: the recorder alone,
// without the rest of spcstr (dashboard, cobra, exporter) linked in. The
// difference between it and `spcstr hook` is what the single binary's other
// packages cost every hook call (their package init and the page faults of a
// larger binary).
package main

import (
	"context"
	"os"

	"github.com/dylan-gluck/spcstr/recorder"
)

func main() {
	recorder.Run(context.Background(), recorder.Options{})
	os.Exit(0)
}
