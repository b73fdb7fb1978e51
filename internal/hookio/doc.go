// Package hookio owns the wire format between Claude Code and spcstr: decoding
// one hook payload from stdin (leniently, since fields are added or change type
// from release to release), the names of hook events and their log files, and
// the single JSON answer spcstr may print on stdout.
//
// It knows nothing about files, state or policies; everything above it builds on
// the Event and Answer types defined here.
package hookio
