package main

import (
	"context"
	"errors"
	"io"
)

func reloadCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("reload: not yet")
}
