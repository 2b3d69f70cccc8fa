package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StarterFile is the config pads writes into DataDir on its first start
// without --config.
const StarterFile = "pads.yaml"

// Starter returns the path of the starter config in dataDir, writing it
// first if it does not exist. apiKey is the demo client's new API key when
// the file was written now, else "": only its digest is stored, so it can be
// shown only once.
func Starter(dataDir string) (path, apiKey string, err error) {
	path = filepath.Join(dataDir, StarterFile)
	if _, err := os.Stat(path); err == nil {
		return path, "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("starter config: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", "", fmt.Errorf("create data dir: %w", err)
	}
	key, digest := NewAPIKey()
	text := fmt.Sprintf(starterText, dataDir, filepath.Join(dataDir, "pads.db"), digest)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("write starter config: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", "", fmt.Errorf("write starter config: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", "", fmt.Errorf("write starter config: %w", err)
	}
	return path, key, nil
}

const starterText = `# pads starter configuration, written on the first start without --config.
# Edit it freely (docs/configuration.md lists every key); send SIGHUP to
# reload it. The demo client's API key was printed once; only its SHA-256 is
# kept here. Make a new key with: pads keys api
serviceName: pads
listen: 127.0.0.1:8080
dataDir: %s
database: sqlite://%s
tokenTTL: 1h
clients:
  - id: demo
    apiKeys:
      - sha256: %s
    subscription: full
    funnels:
      - id: demo-main
`
