// Command gendocs writes spcstr's man pages and shell completions, generated
// from the cobra command tree, for the release archives:
//
//	go run ./tools/gendocs DIR
//
// writes DIR/man/spcstr*.1 and DIR/completions/spcstr.{bash,zsh,fish,ps1}.
// It is a program of its own so that the spcstr binary does not carry
// cobra/doc: its Markdown renderer (go-md2man → blackfriday) compiles
// regexps at package init, about 1 ms on every hook call.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/dylan-gluck/spcstr/cmd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	root := cmd.NewRootCmd(io.Discard, io.Discard)
	root.DisableAutoGenTag = true // no generation date: reproducible archives

	man := filepath.Join(dir, "man")
	if err := os.MkdirAll(man, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{Title: "SPCSTR", Section: "1", Source: "spcstr", Manual: "spcstr manual"}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}

	comp := filepath.Join(dir, "completions")
	if err := os.MkdirAll(comp, 0o755); err != nil {
		return err
	}
	for name, gen := range map[string]func(*cobra.Command, *bytes.Buffer) error{
		"spcstr.bash": func(c *cobra.Command, b *bytes.Buffer) error { return c.GenBashCompletionV2(b, true) },
		"spcstr.zsh":  func(c *cobra.Command, b *bytes.Buffer) error { return c.GenZshCompletion(b) },
		"spcstr.fish": func(c *cobra.Command, b *bytes.Buffer) error { return c.GenFishCompletion(b, true) },
		"spcstr.ps1":  func(c *cobra.Command, b *bytes.Buffer) error { return c.GenPowerShellCompletionWithDesc(b) },
	} {
		var b bytes.Buffer
		if err := gen(root, &b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(comp, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
