package config

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Key is a decoded secret key.
type Key struct {
	ID     string
	Secret []byte
}

// Keys are the service's own secrets, decoded.
type Keys struct {
	JWT        []Key
	Encryption []Key
}

// SecretsFile is where generated secrets live inside DataDir.
const SecretsFile = "secrets.json"

type secretsFile struct {
	JWTKeys        []SecretKey `json:"jwtKeys"`
	EncryptionKeys []SecretKey `json:"encryptionKeys"`
	// WebhookSecrets are whsec_ signing secrets by name, for destinations
	// with hmac.storedSecret: pads listen reads the same file.
	WebhookSecrets map[string]string `json:"webhookSecrets,omitempty"`
}

// ListenSecret names the signing secret of the starter config's local
// destination, the one pads listen verifies with.
const ListenSecret = "listen"

// LoadKeys returns the secrets of the config; a kind the config does not give
// is read from DataDir/secrets.json, which is created (mode 0600) the first
// time. generated reports that the file was written now.
func LoadKeys(c *Config) (keys Keys, generated bool, err error) {
	s := secretsFile{JWTKeys: c.Secrets.JWTKeys, EncryptionKeys: c.Secrets.EncryptionKeys}
	if len(s.JWTKeys) == 0 || len(s.EncryptionKeys) == 0 {
		stored, gen, err := storedSecrets(filepath.Join(c.DataDir, SecretsFile))
		if err != nil {
			return Keys{}, false, err
		}
		generated = gen
		if len(s.JWTKeys) == 0 {
			s.JWTKeys = stored.JWTKeys
		}
		if len(s.EncryptionKeys) == 0 {
			s.EncryptionKeys = stored.EncryptionKeys
		}
	}
	if keys.JWT, err = decodeKeys(s.JWTKeys); err != nil {
		return Keys{}, false, fmt.Errorf("jwt keys: %w", err)
	}
	if keys.Encryption, err = decodeKeys(s.EncryptionKeys); err != nil {
		return Keys{}, false, fmt.Errorf("encryption keys: %w", err)
	}
	return keys, generated, nil
}

func storedSecrets(path string) (secretsFile, bool, error) {
	var s secretsFile
	data, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(data, &s); err != nil || len(s.JWTKeys) == 0 || len(s.EncryptionKeys) == 0 {
			return s, false, fmt.Errorf("secrets file %s is damaged; restore it from backup", path)
		}
		return s, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return s, false, fmt.Errorf("read secrets: %w", err)
	}
	s = secretsFile{
		JWTKeys:        []SecretKey{{ID: "k1", Key: NewSecret()}},
		EncryptionKeys: []SecretKey{{ID: "e1", Key: NewSecret()}},
		WebhookSecrets: map[string]string{ListenSecret: NewWebhookSecret()},
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return s, false, fmt.Errorf("create data dir: %w", err)
	}
	// O_EXCL: two processes starting at once must not each write their own.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return s, false, fmt.Errorf("write secrets: %w", err)
	}
	return s, true, writeSecrets(f, s)
}

// writeSecrets writes s to f, synced, and closes f.
func writeSecrets(f *os.File, s secretsFile) error {
	data, _ := json.MarshalIndent(s, "", "  ")
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write secrets: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write secrets: %w", err)
	}
	return f.Close()
}

// StoredWebhookSecret returns the whsec_ secret named name in
// dataDir/secrets.json.
func StoredWebhookSecret(dataDir, name string) (string, error) {
	path := filepath.Join(dataDir, SecretsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, errors.Unwrap(err))
	}
	var s secretsFile
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("secrets file %s is damaged; restore it from backup", path)
	}
	v, ok := s.WebhookSecrets[name]
	if !ok {
		return "", fmt.Errorf("%s has no webhook secret %q", path, name)
	}
	if _, err := WebhookSecret(v); err != nil {
		return "", fmt.Errorf("%s: webhook secret %q %v", path, name, err)
	}
	return v, nil
}

// EnsureWebhookSecret makes dataDir/secrets.json hold a webhook secret
// named name: it writes the whole file, with pads' own keys, when there is
// none (created reports it), or adds the secret to the file in place.
func EnsureWebhookSecret(dataDir, name string) (created bool, err error) {
	path := filepath.Join(dataDir, SecretsFile)
	s, created, err := storedSecrets(path)
	if err != nil || s.WebhookSecrets[name] != "" {
		return created, err
	}
	if s.WebhookSecrets == nil {
		s.WebhookSecrets = map[string]string{}
	}
	s.WebhookSecrets[name] = NewWebhookSecret()
	// A new file renamed over the old: a crash leaves one or the other,
	// never half of the keys every record is sealed with.
	tmp, err := os.CreateTemp(dataDir, ".secrets-*.json")
	if err != nil {
		return false, fmt.Errorf("write secrets: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write secrets: %w", err)
	}
	if err := writeSecrets(tmp, s); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("write secrets: %w", err)
	}
	return false, nil
}

// NewWebhookSecret returns a fresh Standard Webhooks signing secret:
// whsec_ and base64 of 32 random bytes.
func NewWebhookSecret() string { return "whsec_" + NewSecret() }

func decodeKeys(in []SecretKey) ([]Key, error) {
	out := make([]Key, len(in))
	for i, k := range in {
		b, err := base64.StdEncoding.DecodeString(k.Key)
		if err != nil {
			return nil, fmt.Errorf("key %q is not base64", k.ID)
		}
		out[i] = Key{ID: k.ID, Secret: b}
	}
	return out, nil
}

// NewSecret returns base64 of 32 random bytes: a fresh JWT or encryption key.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// NewAPIKey returns a fresh client API key and its SHA-256 hex digest.
func NewAPIKey() (key, digest string) {
	b := make([]byte, 32)
	rand.Read(b)
	key = "pads_" + base64.RawURLEncoding.EncodeToString(b)
	d := DigestAPIKey(key)
	return key, hex.EncodeToString(d[:])
}

// DigestAPIKey is the SHA-256 of an API key, as the config stores it.
func DigestAPIKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }
