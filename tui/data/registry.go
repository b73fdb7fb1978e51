package data

import "github.com/dylan-gluck/spcstr/internal/registry"

// LoadRegistry reads the session registry (missing or damaged: empty).
func LoadRegistry(path string) registry.File { return registry.Load(path) }
