package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		file    string // "" = no file
		wantErr string
		check   func(t *testing.T, c *Config)
	}{
		{name: "missing file gives defaults", check: func(t *testing.T, c *Config) {
			if c.Logs.MaxPayloadBytes != DefaultMaxPayloadBytes || c.ContextWindow != DefaultContextWindow || c.DryRun || c.Path != "" || c.State.Keep != DefaultStateKeep {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "values", file: "logs:\n  max_payload_bytes: 1024\n  max_bytes: 5000\ncontext_window: 1000000\ndry_run: true\nstate:\n  keep: 20\n",
			check: func(t *testing.T, c *Config) {
				if c.Logs.MaxPayloadBytes != 1024 || c.Logs.MaxBytes != 5000 || c.ContextWindow != 1_000_000 || !c.DryRun || c.State.Keep != 20 {
					t.Errorf("values not read: %+v", c)
				}
			}},
		{name: "zero or negative limits keep defaults", file: "logs:\n  max_payload_bytes: 0\ncontext_window: -5\nstate:\n  keep: -1\n",
			check: func(t *testing.T, c *Config) {
				if c.Logs.MaxPayloadBytes != DefaultMaxPayloadBytes || c.ContextWindow != DefaultContextWindow || c.State.Keep != DefaultStateKeep {
					t.Errorf("limits: %+v", c)
				}
			}},
		{name: "unparsable file: defaults and an error naming the file", file: "logs: [unclosed\n", wantErr: "config.yaml",
			check: func(t *testing.T, c *Config) {
				if c.Logs.MaxPayloadBytes != DefaultMaxPayloadBytes {
					t.Errorf("defaults not kept: %+v", c)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(path)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
			}
			tt.check(t, c)
		})
	}
}

func TestSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	data := "feedback:\n  enabled: true\n  test_lead: lead\nstrategies:\n  token-budget: {}\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var fb struct {
		Enabled  bool   `yaml:"enabled"`
		TestLead string `yaml:"test_lead"`
	}
	if err := c.Section("feedback", &fb); err != nil || !fb.Enabled || fb.TestLead != "lead" {
		t.Fatalf("Section(feedback) = %+v, %v", fb, err)
	}
	var strict struct {
		Enabled bool `yaml:"enabled"`
	}
	if err := c.Section("feedback", &strict); err == nil || !strings.Contains(err.Error(), "test_lead") {
		t.Errorf("an unknown key must be an error naming it, got %v", err)
	}
	var none struct{ X int }
	if err := c.Section("absent", &none); err != nil {
		t.Errorf("absent section: %v", err)
	}
}

// TestPositions: a section decodes from the file's syntax tree, so its
// errors name the line and column in config.yaml itself; Where puts them
// first, on one line.
func TestPositions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	data := "dry_run: false\ncontext_window: 1\nfeedback:\n  enabled: true\n  bogus: 1\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Enabled bool `yaml:"enabled"`
	}
	err = c.Section("feedback", &v)
	if err == nil || !strings.Contains(err.Error(), `[5:3] unknown field "bogus"`) {
		t.Fatalf("Section error %v", err)
	}
	if got := c.Where(nil, "feedback", err); got != `config.yaml:5:3: feedback: unknown field "bogus"` {
		t.Fatalf("Where = %q", got)
	}
	n, ok, err := c.Node("feedback")
	if err != nil || !ok || n.GetToken().Position.Line != 4 {
		t.Fatalf("Node = %v, %v, %v", n, ok, err)
	}
	if got := c.Where(n, "feedback", NodeError(nil, os.ErrInvalid)); got != "config.yaml:4:3: feedback: invalid argument" {
		t.Fatalf("Where with a fallback = %q", got)
	}
	if _, ok, err := c.Node("missing"); ok || err != nil {
		t.Fatalf("missing section: %v %v", ok, err)
	}
}

func TestUserPath(t *testing.T) {
	for _, tt := range []struct{ xdg, home, want string }{
		{"/x/conf", "/home/u", "/x/conf/spcstr/config.yaml"},
		{"", "/home/u", "/home/u/.config/spcstr/config.yaml"},
		{"relative", "/home/u", "/home/u/.config/spcstr/config.yaml"},
		{"", "", ""},
	} {
		env := map[string]string{"XDG_CONFIG_HOME": tt.xdg, "HOME": tt.home}
		if got := UserPath(func(k string) string { return env[k] }); got != tt.want {
			t.Errorf("UserPath(%q, %q) = %q, want %q", tt.xdg, tt.home, got, tt.want)
		}
	}
}
