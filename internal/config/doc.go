// Package config reads the declarative client registry: the YAML file of
// `pads serve --config FILE`.
//
// Loading is strict: an unknown key is an error naming its line, a value
// that is exactly ${NAME} is replaced by that environment variable (an unset
// one is an error), and every value is validated before a Config is
// returned, so a reload either swaps in a whole valid registry or changes
// nothing.
package config
