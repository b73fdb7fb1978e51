package watch

import "github.com/dylan-gluck/spcstr/tui/data"

func logFile(name string) bool { return data.LogFile(name) }
