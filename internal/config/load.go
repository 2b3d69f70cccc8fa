package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxFileSize bounds the config file; a registry of thousands of clients fits.
const maxFileSize = 4 << 20

func load(path string, getenv func(string) string, standIns bool) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("config: %s is larger than %d bytes", path, maxFileSize)
	}
	cfg, err := parse(data, getenv, standIns)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.Path = path
	return cfg, nil
}

// LoadForReading is Load for a command that sends nothing (pads
// deliveries list, pads audit): a ${NAME} of a destination's or an
// operator endpoint's auth or headers whose variable is unset takes a
// stand-in value instead of failing, so such commands run without the
// destinations' secrets in their environment. StandIns names those
// values; nothing may be sent with them.
func LoadForReading(path string, getenv func(string) string) (*Config, error) {
	return load(path, getenv, true)
}

// Load reads, expands and validates the config file at path. getenv resolves
// ${NAME} values.
func Load(path string, getenv func(string) string) (*Config, error) {
	return load(path, getenv, false)
}

// Parse reads a config from YAML text; see Load.
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	return parse(data, getenv, false)
}

func parse(data []byte, getenv func(string) string, standIns bool) (*Config, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	cfg := &Config{lines: map[string]int{}}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		w := walker{getenv: getenv, c: cfg, standIns: standIns}
		w.walk(root, reflect.TypeFor[Config](), "")
		if err := root.Decode(cfg); err != nil {
			// The decoder's messages name their lines; nothing decoded
			// is worth checking further.
			var te *yaml.TypeError
			if errors.As(err, &te) {
				for _, m := range te.Errors {
					cfg.problems.add(m)
				}
			} else {
				cfg.problems.add(err.Error())
			}
			return nil, cfg.problems.err()
		}
	}
	cfg.withDefaults()
	cfg.validate()
	if err := cfg.problems.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// walker checks every mapping key against the yaml tags of the Go type it
// decodes into, replaces ${NAME} scalars, and records the line of each path.
// yaml.v3 checks known fields only when decoding from a reader, and ${NAME}
// must be replaced before decoding, so the walk does both on the node tree.
// It reports each problem and goes on, so that one run lists them all.
type walker struct {
	getenv func(string) string
	c      *Config
	// standIns: unset secrets of sending give way to stand-ins
	// (LoadForReading).
	standIns bool
}

func (w walker) walk(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	w.c.lines[path] = n.Line
	if n.Kind == yaml.AliasNode {
		w.c.problems.add(fmt.Sprintf("line %d: YAML aliases are not supported in the config", n.Line))
		return
	}
	switch {
	case n.Kind == yaml.ScalarNode:
		w.expand(n, path)
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for i, c := range n.Content {
			w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fieldByTag(t, k.Value)
			if !ok {
				w.c.problems.add(fmt.Sprintf("line %d: unknown key %q%s", k.Line, k.Value, where(path)))
				continue
			}
			w.walk(n.Content[i+1], ft, join(path, k.Value))
		}
	}
	// Any other pairing (a list where a map belongs, say) is left for the
	// decoder, whose type error names the line.
}

// expand replaces ${NAME}. An unset variable is reported once, and the
// value's own checks are skipped: "${NAME}" is not what was meant.
func (w walker) expand(n *yaml.Node, path string) {
	m := envRef.FindStringSubmatch(n.Value)
	if m == nil {
		return
	}
	v := w.getenv(m[1])
	if v == "" && w.standIns && sendingSecret(path) {
		n.Value, n.Tag, n.Style = standIn(path), "!!str", 0
		w.c.standIns = append(w.c.standIns, path)
		return
	}
	if v == "" {
		w.c.problems.add(fmt.Sprintf("line %d: environment variable %s is not set", n.Line, m[1]))
		if w.c.failed == nil {
			w.c.failed = map[string]bool{}
		}
		w.c.failed[path] = true
		return
	}
	n.Value, n.Tag, n.Style = v, "!!str", 0
}

func fieldByTag(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && name != "-" {
			return f.Type, true
		}
	}
	return nil, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func where(path string) string {
	if path == "" {
		return ""
	}
	return " in " + path
}

// errAt formats a validation error with the line of path, when known.
func (c *Config) errAt(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	// A defaulted value has no line of its own: name its nearest parent's.
	for p := path; p != ""; p = parent(p) {
		if line, ok := c.lines[p]; ok && line > 0 {
			return fmt.Errorf("line %d: %s: %s", line, path, msg)
		}
	}
	return fmt.Errorf("%s: %s", path, msg)
}

func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}
