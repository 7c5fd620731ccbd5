package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// applyConfigFile reads a config file and sets every flag it names that was
// not given on the command line, so flags override the file.
//
// The format is one setting per line, `name = value`, where name is a flag
// name without the dashes (dir, mongo-addr, durability, ...); a repeatable
// flag (set-parameter, resp-config) takes one line per value. Blank lines and
// lines starting with # are ignored; values may be quoted with double quotes.
func applyConfigFile(path string, flags *pflag.FlagSet) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	given := map[string]bool{} // on the command line; a repeatable flag's lines in the file all apply
	flags.Visit(func(fl *pflag.Flag) { given[fl.Name] = true })
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, value, ok := strings.Cut(text, "=")
		if !ok {
			return fmt.Errorf("config file %s:%d: want 'name = value', got %q", path, line, text)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		fl := flags.Lookup(name)
		if fl == nil || name == "config" {
			return fmt.Errorf("config file %s:%d: unknown setting %q", path, line, name)
		}
		if given[fl.Name] {
			continue
		}
		if err := flags.Set(name, value); err != nil {
			return fmt.Errorf("config file %s:%d: %s: %w", path, line, name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}
