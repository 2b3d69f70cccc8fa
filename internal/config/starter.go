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

// DefaultListenAddr is where pads listen receives by default, and where
// the starter config's local destination points.
const DefaultListenAddr = "127.0.0.1:8090"

// ListenPath is the path of the starter config's local destination.
const ListenPath = "/webhooks/pads"

// Starter returns the path of the starter config in dataDir, writing it
// first if it does not exist. apiKey is the demo client's new API key when
// the file was written now, else "": only its digest is stored, so it can be
// shown only once. The config's local destination posts to listenAddr (""
// for DefaultListenAddr), signed with the secret "listen" of the data dir's
// secrets file, which Starter writes with pads' own keys if it is not
// there: secretsCreated reports that.
func Starter(dataDir, listenAddr string) (path, apiKey string, secretsCreated bool, err error) {
	path = filepath.Join(dataDir, StarterFile)
	if _, err := os.Stat(path); err == nil {
		return path, "", false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", false, fmt.Errorf("starter config: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", "", false, fmt.Errorf("create data dir: %w", err)
	}
	if listenAddr == "" {
		listenAddr = DefaultListenAddr
	}
	if secretsCreated, err = EnsureWebhookSecret(dataDir, ListenSecret); err != nil {
		return "", "", false, err
	}
	key, digest := NewAPIKey()
	text := fmt.Sprintf(starterText, dataDir, filepath.Join(dataDir, "pads.db"), digest, "http://"+listenAddr+ListenPath, ListenSecret)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", false, fmt.Errorf("write starter config: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", "", false, fmt.Errorf("write starter config: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", "", false, fmt.Errorf("write starter config: %w", err)
	}
	return path, key, secretsCreated, nil
}

const starterText = `# pads starter configuration, written on the first start without --config.
# Edit it freely (docs/configuration.md lists every key), then run
# pads reload to apply it. The demo client's API key was printed once; only
# its SHA-256 is kept here. Make a new key with: pads keys api
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
    destinations:
      # Every save's results go to pads listen, a receiver on this machine
      # that checks each signature and prints the delivery: run it in
      # another terminal. local: true allows plain http to a loopback
      # address for this destination only; a clinic's own destination is
      # an https URL (docs/receivers).
      - id: listen
        type: webhook
        local: true
        url: %s
        auth:
          hmac:
            storedSecret: %s   # whsec_ secret in secrets.json, where pads listen reads it
        # Retried for about four minutes, so pads listen may start late.
        retry: {attempts: 8, initialDelay: 2s, multiplier: 2}
`
