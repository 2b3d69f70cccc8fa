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
}

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
	}
	data, _ = json.MarshalIndent(s, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return s, false, fmt.Errorf("create data dir: %w", err)
	}
	// O_EXCL: two processes starting at once must not each write their own.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return s, false, fmt.Errorf("write secrets: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return s, false, fmt.Errorf("write secrets: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return s, false, fmt.Errorf("write secrets: %w", err)
	}
	return s, true, f.Close()
}

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
